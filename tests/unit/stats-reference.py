#!/usr/bin/python3
# stats-reference.py - where the expected numbers of test-stats.c and
# test-compare.c come from.  Run with Debian's python3-scipy (1.10):
#     /usr/bin/python3 tests/unit/stats-reference.py
# Each value is printed with the SciPy call (or the textbook formula) that
# produced it; the C tests carry the same numbers with that provenance.
import numpy as np
from scipy import stats, optimize
from scipy.special import ndtr, ndtri

def show(name, v):
    print(f"{name:55s} {v!r}")

# Student's t quantile (scipy.stats.t.ppf).
show("t.ppf(0.975, 10)", stats.t.ppf(0.975, 10))
show("t.ppf(0.95, 2.5)", stats.t.ppf(0.95, 2.5))
show("norm.ppf(0.975)", stats.norm.ppf(0.975))

# Seed 003 (re-aim, 4-way, Andrew Morton): without and with sched-...-A3.
a3 = np.array([1467.06, 1478.82, 1473.36])
b3 = np.array([1375.63, 1278.40, 1293.11])

def fieller_root_form(a, b, conf):
    """Fieller's interval as the set of ratios r for which
    |mean_b - r mean_a| / sqrt(v_b + r^2 v_a) <= t: found by root finding
    (scipy.optimize.brentq), not by the quadratic formula the C code uses."""
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = stats.t.ppf(1 - (1 - conf) / 2, df)
    f = lambda r: (mb - r * ma) ** 2 - t * t * (vb + r * r * va)
    r0 = mb / ma
    return df, optimize.brentq(f, r0 * 0.01, r0, xtol=1e-14), \
        optimize.brentq(f, r0, r0 * 10, xtol=1e-14)

df, lo, hi = fieller_root_form(a3, b3, 0.95)
show("seed003 welch df", df)
show("seed003 fieller95 ratio low", lo)
show("seed003 fieller95 ratio high", hi)
df, lo, hi = fieller_root_form(a3, b3, 0.90)
show("seed003 fieller90 ratio low", lo)
show("seed003 fieller90 ratio high", hi)
# Unbounded: base {1, 10, 0.5}: mean 3.83, v_a = 9.58; t(df) ~ 4.3:
ua = np.array([1.0, 10.0, 0.5]); ub = np.array([2.0, 2.1, 2.2])
va = ua.var(ddof=1) / 3; vb = ub.var(ddof=1) / 3
dfu = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2)
tu = stats.t.ppf(0.975, dfu)
show("unbounded case: mean_a^2 - t^2 v_a (< 0)", ua.mean() ** 2 - tu * tu * va)

# Welch's t on logs (scipy.stats.ttest_ind, equal_var=False).
show("seed003 welch-log p", stats.ttest_ind(np.log(a3), np.log(b3), equal_var=False).pvalue)
va1 = np.array([124089, 121962, 121223.]); vb1 = np.array([121499, 120181, 119775.])
vf1 = np.array([117789, 118154, 118945.]); vg1 = np.array([130208, 129086, 129362.])
show("seed001 volano / welch-log p", stats.ttest_ind(np.log(va1), np.log(vb1), equal_var=False).pvalue)
show("seed001 volano /foo welch-log p", stats.ttest_ind(np.log(vf1), np.log(vg1), equal_var=False).pvalue)

# Welch's t on logs from summaries (lognormal moments), seed 004 cycles:
# n = 5000, perf's +- is the standard error in percent: sd = se% mean sqrt(n).
def lognorm(n, mean, sd):
    s2 = np.log1p((sd / mean) ** 2)
    return np.log(mean) - s2 / 2, np.sqrt(s2), n
n = 5000
cyc_a = (2414463154.0, 0.00056 * 2414463154.0 * np.sqrt(n))
cyc_b = (2448568573.0, 0.00037 * 2448568573.0 * np.sqrt(n))
ma, sa, _ = lognorm(n, *cyc_a); mb, sb, _ = lognorm(n, *cyc_b)
show("seed004 cycles welch-log-summary p",
     stats.ttest_ind_from_stats(ma, sa, n, mb, sb, n, equal_var=False).pvalue)
sm_a = (10.0, 1.0); sm_b = (10.6, 1.2)
ma, sa, _ = lognorm(6, *sm_a); mb, sb, _ = lognorm(7, *sm_b)
show("summary 6:(10,1) vs 7:(10.6,1.2) welch-log p",
     stats.ttest_ind_from_stats(ma, sa, 6, mb, sb, 7, equal_var=False).pvalue)

# Mann-Whitney U, exact, no ties (scipy.stats.mannwhitneyu method='exact').
x = [1.1, 2.3, 3.2, 4.8, 5.5, 6.1]; y = [3.9, 5.0, 7.2, 8.4, 9.9, 10.3, 11.0]
r = stats.mannwhitneyu(y, x, method="exact")
show("MW exact no ties U(y) and p", (r.statistic, r.pvalue))
show("MW 5+5 separated p (2/C(10,5))", 2 / 252)
show("MW 4+4 separated p (2/C(8,4))", 2 / 70)
# Ties: exact permutation distribution of the rank sum
# (scipy.stats.permutation_test, permutation_type='independent', every
# one of the C(11,5) = 462 splits enumerated).
tx = [1, 2, 2, 3, 5]; ty = [2, 3, 3, 4, 5, 6]
def ranksum(a, b, axis):
    allv = np.concatenate([a, b], axis=axis)
    rk = stats.rankdata(allv, axis=axis)
    return rk[..., : a.shape[axis]].sum(axis=axis)
r = stats.permutation_test((np.array(tx, float), np.array(ty, float)), ranksum,
                           permutation_type="independent", vectorized=True,
                           n_resamples=np.inf, alternative="two-sided")
show("MW exact with ties p (permutation_test)", r.pvalue)
show("MW with ties U(y)", stats.mannwhitneyu(ty, tx).statistic)
# Asymptotic above 20 per side, ties, continuity correction.
ax = [float(i % 7) for i in range(25)]; ay = [float(i % 7) + (i % 3) * 0.5 for i in range(22)]
r = stats.mannwhitneyu(ay, ax, method="asymptotic", use_continuity=True)
show("MW asymptotic 25+22 U(y) and p", (r.statistic, r.pvalue))

# BCa end points from fixed replicates (Efron & Tibshirani 14.3), the same
# steps as scipy's _bca_interval with np.percentile (linear).
B = 1000
reps = 1.0 + 0.05 * ndtri((np.arange(B) + 0.5) / B)
theta = 1.01; acc = 0.05
p0 = (np.sum(reps < theta) + 0.5 * np.sum(reps == theta)) / B
z0 = ndtri(p0)
for conf in (0.95, 0.90):
    al = (1 - conf) / 2
    qs = []
    for z in (ndtri(al), ndtri(1 - al)):
        qs.append(ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))
    show(f"BCa from replicates conf {conf}", tuple(np.percentile(reps, [100 * q for q in qs])))

# BCa end to end (scipy.stats.bootstrap, method='BCa', 200000 resamples).
ba = np.array([100.2, 99.1, 101.5, 98.7, 100.9, 99.8, 102.3, 100.1, 98.9, 101.0, 99.5, 100.4])
bb = np.array([95.3, 96.8, 94.9, 95.7, 97.1, 95.0, 96.2, 94.4, 95.9, 96.5, 95.2])
res = stats.bootstrap((ba, bb), lambda a, b, axis: b.mean(axis=axis) / a.mean(axis=axis),
                      vectorized=True, paired=False, confidence_level=0.95,
                      n_resamples=200000, method="BCa", random_state=1)
show("BCa scipy 95% ratio", (res.confidence_interval.low, res.confidence_interval.high))

# --- test-compare.c ---------------------------------------------------------
def fieller_summary(n1, m1, s1, n2, m2, s2, conf):
    va, vb = s1 * s1 / n1, s2 * s2 / n2
    df = (va + vb) ** 2 / (va ** 2 / (n1 - 1) + vb ** 2 / (n2 - 1))
    t = stats.t.ppf(1 - (1 - conf) / 2, df)
    f = lambda r: (m2 - r * m1) ** 2 - t * t * (vb + r * r * va)
    r0 = m2 / m1
    return (100 * (optimize.brentq(f, r0 * 0.5, r0, xtol=1e-15) - 1),
            100 * (optimize.brentq(f, r0, r0 * 2, xtol=1e-15) - 1))
n = 5000
for name, (m1, e1), (m2, e2) in (
        ("instructions", (994061050.0, 0.133), (1064610666.0, 0.086)),
        ("cycles", (2414463154.0, 0.056), (2448568573.0, 0.037)),
        ("elapsed", (2.251820874, 0.429), (1.704553841, 0.288))):
    s1 = e1 / 100 * m1 * np.sqrt(n); s2 = e2 / 100 * m2 * np.sqrt(n)
    show(f"seed004 {name} pct", 100 * (m2 / m1 - 1))
    show(f"seed004 {name} fieller95 pct", fieller_summary(n, m1, s1, n, m2, s2, 0.95))
    show(f"seed004 {name} fieller90 pct", fieller_summary(n, m1, s1, n, m2, s2, 0.90))
show("seed003 pct", 100 * (b3.mean() / a3.mean() - 1))
show("seed001 /foo pct", 100 * (vg1.mean() / vf1.mean() - 1))
show("seed001 /foo fieller95 pct", fieller_summary(3, vf1.mean(), vf1.std(ddof=1), 3, vg1.mean(), vg1.std(ddof=1), 0.95))
show("harmonic mean of 100, 200, 400 (12/7 * 100)", stats.hmean([100, 200, 400]))

# --- issue 13: the edges ----------------------------------------------------
# Pocock's constant for K looks: P(max_k |Z_k| >= c) = alpha, Z_k =
# W(t_k)/sqrt(t_k), computed as 1 - the multivariate normal probability of
# the box (-c, c)^K with corr(Z_i, Z_j) = sqrt(t_i / t_j) (i < j), found
# by scipy.optimize.brentq.  scipy's mvn integration is Monte Carlo
# (Genz), good to about 1e-5: the C code's recursive integration is the
# sharper of the two; the tests allow 1e-3 on c.  Pocock (1977) table:
# K = 2..5 at alpha 0.05: 2.178, 2.289, 2.361, 2.413.
def gs_crossing(t, c, sides):
    t = np.asarray(t, float)
    K = len(t)
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    mvn = stats.multivariate_normal(mean=np.zeros(K), cov=cov, allow_singular=True)
    mvn.abseps = 1e-7
    mvn.releps = 1e-7
    if sides == 2:
        # box via inclusion-exclusion is exact for cdf of the box
        from itertools import product
        tot = 0.0
        for signs in product((0, 1), repeat=K):
            upper = np.array([c if s == 0 else -c for s in signs])
            tot += (-1) ** sum(signs) * mvn.cdf(upper)
        return 1 - tot
    return 1 - mvn.cdf(np.full(K, c))

def gs_constant(t, alpha, sides):
    return optimize.brentq(lambda c: gs_crossing(t, c, sides) - alpha, 1.0, 6.0, xtol=1e-7)

for K in (2, 3, 4, 5):
    show(f"Pocock c K={K} alpha 0.05 (equal looks)", gs_constant(range(1, K + 1), 0.05, 2))
c = gs_constant([1, 2, 3, 4], 0.01, 2)
show("Pocock c K=4 alpha 0.01", c)
show("  nominal per-look 2(1-Phi(c))", 2 * stats.norm.sf(c))
c = gs_constant([7, 11, 15, 19], 0.01, 2)
show("looks at 7,11,15,19: c, alpha 0.01 two-sided", c)
show("  nominal per-look", 2 * stats.norm.sf(c))
c = gs_constant([7, 11, 15, 19], 0.05, 1)
show("looks at 7,11,15,19: c, 0.05 one-sided", c)
show("  no-change level 1 - 2(1-Phi(c))", 1 - 2 * stats.norm.sf(c))

# Welch's interval of a difference (t at Welch-Satterthwaite df, by hand
# from scipy.stats.t.ppf) and its p (scipy.stats.ttest_ind_from_stats).
da = np.array([0.5, -0.4, 0.3, -0.6, 0.2, -0.1])
db = np.array([4.8, 5.3, 5.1, 4.6, 5.2, 5.0])
va, vb = da.var(ddof=1) / 6, db.var(ddof=1) / 6
df = (va + vb) ** 2 / (va ** 2 / 5 + vb ** 2 / 5)
t = stats.t.ppf(0.975, df)
d = db.mean() - da.mean()
show("crossing zero: diff", d)
show("crossing zero: welch 95% low, high", (d - t * np.sqrt(va + vb), d + t * np.sqrt(va + vb)))
show("crossing zero: welch p",
     stats.ttest_ind(da, db, equal_var=False).pvalue)
# Negative means, better = higher: -10 -> -12 is -20%.
na_ = np.array([-10.1, -9.9, -10.0, -10.05, -9.95])
nb_ = np.array([-12.1, -11.9, -12.0, -12.05, -11.95])
show("negative means pct 100 (nb - na)/|na|", 100 * (nb_.mean() - na_.mean()) / abs(na_.mean()))
df, lo, hi = fieller_root_form(na_, nb_, 0.95)
show("negative means fieller ratio (lo, hi) -> pct = 100 (1 - r)", (100 * (1 - hi), 100 * (1 - lo)))

# BCa of a difference of means (scipy.stats.bootstrap, 200000 resamples).
rng = np.random.default_rng(13)
xa = np.round(rng.normal(0.0, 1.0, 35), 3)
xb = np.round(rng.normal(5.0, 1.0, 35), 3)
print("bca-diff sample a", list(xa))
print("bca-diff sample b", list(xb))
res = stats.bootstrap((xa, xb), lambda a, b, axis: b.mean(axis=axis) - a.mean(axis=axis),
                      vectorized=True, paired=False, confidence_level=0.95,
                      n_resamples=200000, method="BCa", random_state=1)
show("BCa scipy 95% difference", (res.confidence_interval.low, res.confidence_interval.high))

# Holm (by hand, Holm 1979): p = (0.004, 0.006, 0.02) -> sorted times
# (3, 2, 1): 0.012, 0.012, 0.02 after the running maximum.
show("Holm of (0.004, 0.006, 0.02)", (min(1, 3 * 0.004), max(3 * 0.004, 2 * 0.006), max(0.012, 0.02)))

# The comparison's Fieller and t intervals use n_a + n_b - 2 degrees of
# freedom when both sides have the same n (the standard errors coincide;
# coverage 95.0% at 3 per side where Welch's df gives 96.5%, see
# bench/calibration).  The same cases at those df:
def fieller(a, b, conf, df=None):
    """Fieller's ratio interval by root finding, t at df (Welch's when None)."""
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    if df is None:
        df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = stats.t.ppf(1 - (1 - conf) / 2, df)
    f = lambda r: (mb - r * ma) ** 2 - t * t * (vb + r * r * va)
    r0 = mb / ma
    lo = optimize.brentq(f, r0 * 0.01 if r0 > 0 else r0 * 10, r0, xtol=1e-15)
    hi = optimize.brentq(f, r0, r0 * 10 if r0 > 0 else r0 * 0.01, xtol=1e-15)
    return df, lo, hi
a3 = np.array([1467.06, 1478.82, 1473.36]); b3 = np.array([1375.63, 1278.40, 1293.11])
for conf in (0.95, 0.90):
    df, lo, hi = fieller(a3, b3, conf, 4)
    show(f"seed003 fieller{int(conf*100)} df 4 pct", (100*(lo-1), 100*(hi-1)))
na_ = np.array([-10.1, -9.9, -10.0, -10.05, -9.95]); nb_ = np.array([-12.1, -11.9, -12.0, -12.05, -11.95])
df, lo, hi = fieller(na_, nb_, 0.95, 8)
show("negative means fieller df 8 -> pct (100(1-hi), 100(1-lo))", (100*(1-hi), 100*(1-lo)))
da = np.array([0.5, -0.4, 0.3, -0.6, 0.2, -0.1]); db = np.array([4.8, 5.3, 5.1, 4.6, 5.2, 5.0])
va, vb = da.var(ddof=1)/6, db.var(ddof=1)/6
t = stats.t.ppf(0.975, 10); d = db.mean()-da.mean()
show("crossing zero t interval df 10", (d - t*np.sqrt(va+vb), d + t*np.sqrt(va+vb)))
def fs(n1, m1, s1, n2, m2, s2, conf, df):
    va, vb = s1*s1/n1, s2*s2/n2
    t = stats.t.ppf(1-(1-conf)/2, df)
    f = lambda r: (m2 - r*m1)**2 - t*t*(vb + r*r*va)
    r0 = m2/m1
    return (100*(optimize.brentq(f, r0*0.5, r0, xtol=1e-15)-1), 100*(optimize.brentq(f, r0, r0*2, xtol=1e-15)-1))
n = 5000
for name, (m1, e1), (m2, e2) in (("instructions", (994061050.0, 0.133), (1064610666.0, 0.086)), ("cycles", (2414463154.0, 0.056), (2448568573.0, 0.037))):
    s1 = e1/100*m1*np.sqrt(n); s2 = e2/100*m2*np.sqrt(n)
    show(f"seed004 {name} fieller95 df 9998", fs(n, m1, s1, n, m2, s2, 0.95, 9998))
    show(f"seed004 {name} fieller90 df 9998", fs(n, m1, s1, n, m2, s2, 0.90, 9998))
vf1 = np.array([117789, 118154, 118945.]); vg1 = np.array([130208, 129086, 129362.])
df, lo, hi = fieller(vf1, vg1, 0.95, 4)
show("seed001 /foo fieller95 df 4 pct", (100*(lo-1), 100*(hi-1)))
rng = np.random.default_rng(13)
xa = np.round(rng.normal(0.0, 1.0, 55), 3); xb = np.round(rng.normal(5.0, 1.0, 55), 3)
print("bca-diff55 a", ", ".join(f"{v}" for v in xa))
print("bca-diff55 b", ", ".join(f"{v}" for v in xb))
res = stats.bootstrap((xa, xb), lambda a, b, axis: b.mean(axis=axis) - a.mean(axis=axis), vectorized=True, paired=False, confidence_level=0.95, n_resamples=200000, method="BCa", random_state=1)
show("BCa scipy 95% difference (55 a side)", (res.confidence_interval.low, res.confidence_interval.high))

# --- issue 28: the ratio of means on the log scale (COMPARE_METHOD_VERSION 3)
# log(mean_b / mean_a) +- t se, se^2 = (sd_a/mean_a)^2/n_a + (sd_b/mean_b)^2/n_b
# (the delta method's variance of the log of a mean), ends exp()'d back;
# t from scipy.stats.t.ppf at the pooled df 2n - 2 for equal n.  Computed
# here with numpy/scipy on the raw values, independently of stats.c.
def log_ratio(n1, m1, s1, n2, m2, s2, conf, df):
    se = np.sqrt((s1 / m1) ** 2 / n1 + (s2 / m2) ** 2 / n2)
    t = stats.t.ppf(1 - (1 - conf) / 2, df)
    r = m2 / m1
    lo, hi = sorted((r * np.exp(-t * se), r * np.exp(t * se)))
    return lo, hi
def log_ratio_pct(a, b, conf, df):
    lo, hi = log_ratio(len(a), a.mean(), a.std(ddof=1), len(b), b.mean(), b.std(ddof=1), conf, df)
    if a.mean() > 0:
        return (100 * (lo - 1), 100 * (hi - 1))
    return (100 * (1 - hi), 100 * (1 - lo))
show("seed003 log-ratio95 df 4 pct", log_ratio_pct(a3, b3, 0.95, 4))
show("seed003 log-ratio90 df 4 pct", log_ratio_pct(a3, b3, 0.90, 4))
n = 5000
for name, (m1, e1), (m2, e2) in (("instructions", (994061050.0, 0.133), (1064610666.0, 0.086)), ("cycles", (2414463154.0, 0.056), (2448568573.0, 0.037))):
    s1 = e1/100*m1*np.sqrt(n); s2 = e2/100*m2*np.sqrt(n)
    for conf in (0.95, 0.90):
        lo, hi = log_ratio(n, m1, s1, n, m2, s2, conf, 9998)
        show(f"seed004 {name} log-ratio{int(conf*100)} df 9998 pct", (100*(lo-1), 100*(hi-1)))
show("negative means log-ratio95 df 8 pct", log_ratio_pct(na_, nb_, 0.95, 8))
show("seed001 /foo log-ratio95 df 4 pct", log_ratio_pct(vf1, vg1, 0.95, 4))
# Unequal n: Welch-Satterthwaite df on the two cv^2/n.
def log_ratio_welch(a, b, conf):
    va = (a.std(ddof=1) / a.mean()) ** 2 / len(a); vb = (b.std(ddof=1) / b.mean()) ** 2 / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return df, log_ratio_pct(a, b, conf, df)
show("bca-from-ten data (12 vs 11) log-ratio95 Welch df, pct", log_ratio_welch(ba, bb, 0.95))
# A positive metric with a huge spread (issue 28: "records_per_s -26.4%
# [-125.4%, +108.6%]"): Fieller's lower end is a negative ratio (below
# -100%), the log-scale one is not.
hs_a = np.array([120.0, 95.0, 140.0, 110.0]); hs_b = np.array([3.0, 260.0, 1.5, 90.0])
def fieller_roots(a, b, conf, df):
    """Fieller's set {r: (mb - r ma)^2 <= t^2 (vb + r^2 va)} as the roots
    of that quadratic (numpy.roots), for a lower end below 0."""
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    t = stats.t.ppf(1 - (1 - conf) / 2, df)
    return tuple(sorted(np.roots([ma * ma - t * t * va, -2 * ma * mb, mb * mb - t * t * vb])))
show("huge spread fieller95 df 6 ratio (lo, hi)", fieller_roots(hs_a, hs_b, 0.95, 6))
show("huge spread log-ratio95 df 6 pct", log_ratio_pct(hs_a, hs_b, 0.95, 6))
# Above 50 per side: the t interval of the difference at 2n - 2 = 108 df
# (BCa no more: its coverage was 93.8% there).
rng = np.random.default_rng(13)
xa = np.round(rng.normal(0.0, 1.0, 55), 3); xb = np.round(rng.normal(5.0, 1.0, 55), 3)
va, vb = xa.var(ddof=1)/55, xb.var(ddof=1)/55
t = stats.t.ppf(0.975, 108); d = xb.mean() - xa.mean()
show("bca-diff55 data: t interval df 108", (d - t*np.sqrt(va+vb), d + t*np.sqrt(va+vb)))
