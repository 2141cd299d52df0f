/*
 * changes.c - change points over each host's history; see changes.h.
 *
 * The search is E-divisive means with Hunter's windows and t tests
 * (datastax-labs/hunter analysis.py, now Apache Otava): it needs no
 * permutations, so a series of a few hundred points takes microseconds
 * and a farm's ten thousand series a fraction of a second; the database
 * round trips are what the update costs.  The significance tests are
 * stats.c's Student t test with the pooled variance (the GSL door).
 *
 * The method alone, no database: changes_db.c runs it over each host's
 * history and stores what it finds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "analysis/changes.h"
#include "analysis/compare.h"
#include "analysis/stats.h"
#include "parse.h"
#include "strvec.h"
#include "banned.h"

void changes_list_release(struct changes_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void list_add(struct changes_list *l, size_t idx, double qhat)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	memset(&l->v[l->nr], 0, sizeof(l->v[l->nr]));
	l->v[l->nr].idx = idx;
	l->v[l->nr].qhat = qhat;
	l->nr++;
}

/*
 * Student's t test (pooled variance) of x[a..m) against x[m..b), with
 * the two means.  Pooled, not Welch's: E-divisive picks the split that
 * looks most different, and a short side picked that way often has a
 * small spread of its own by chance; Welch's test would then see a
 * change in noise.  A side of fewer than 2 points: p 1.
 */
static double seg_test(const double *x, size_t a, size_t m, size_t b,
		       double *ret_m1, double *ret_m2)
{
	struct stats_summary s1, s2;
	double p = 1;

	stats_summarize(x + a, m - a, &s1);
	stats_summarize(x + m, b - m, &s2);
	*ret_m1 = s1.mean;
	*ret_m2 = s2.mean;
	if (m - a < 2 || b - m < 2)
		return 1;
	if (stats_student(&s1, &s2, &p) < 0 || isnan(p))
		return 1;
	return p;
}

/*
 * The split of x[a..b) that maximises q-hat (Matteson & James 2014,
 * alpha 1): for X = x[a..t), Y = x[t..b) of sizes m and k,
 *   q = m k / (m + k) (2/(m k) sum|X - Y| - sum|X - X'|/C(m,2)
 *                      - sum|Y - Y'|/C(k,2)),
 * with both sides at least CHANGES_MIN_SEGMENT.  The three sums move
 * with t in O(b - a) each.  *ret_t 0 when the segment is too short.
 */
static double best_split(const double *x, size_t a, size_t b, size_t *ret_t)
{
	double wl = 0, wr = 0, cross = 0, best = -HUGE_VAL;

	*ret_t = 0;
	if (b - a < 2 * CHANGES_MIN_SEGMENT)
		return best;
	for (size_t i = a; i < b; i++)
		for (size_t j = i + 1; j < b; j++)
			wr += fabs(x[i] - x[j]);
	/* t: the first point of Y; move x[t - 1] from Y to X. */
	for (size_t t = a + 1; t + CHANGES_MIN_SEGMENT <= b; t++) {
		size_t p = t - 1;
		double to_left = 0, to_right = 0, m, k, q;

		for (size_t i = a; i < p; i++)
			to_left += fabs(x[i] - x[p]);
		for (size_t j = p + 1; j < b; j++)
			to_right += fabs(x[p] - x[j]);
		wl += to_left;
		wr -= to_right;
		cross += to_right - to_left;
		m = (double)(t - a);
		k = (double)(b - t);
		if (t - a < CHANGES_MIN_SEGMENT)
			continue;
		q = m * k / (m + k) *
		    (2 * cross / (m * k) - wl / (m * (m - 1) / 2) -
		     wr / (k * (k - 1) / 2));
		if (q > best) {
			best = q;
			*ret_t = t;
		}
	}
	return best;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * E-divisive on x[lo..hi): split the segment whose best split has the
 * largest q-hat, as long as the t test against its neighbours passes
 * CHANGES_P_SPLIT; the splits (absolute indices) are added to *found.
 */
static void edivisive(const double *x, size_t lo, size_t hi,
		      struct changes_list *found)
{
	size_t cut[CHANGES_WINDOW + 2], ncut = 2;

	cut[0] = lo;
	cut[1] = hi;
	for (;;) {
		double best = -HUGE_VAL, m1, m2;
		size_t bt = 0, bseg = 0;

		for (size_t s = 0; s + 1 < ncut; s++) {
			size_t t;
			double q = best_split(x, cut[s], cut[s + 1], &t);

			if (t && q > best) {
				best = q;
				bt = t;
				bseg = s;
			}
		}
		if (!bt || ncut >= CHANGES_WINDOW + 2)
			return;
		/* The split is the best of every position E-divisive could
		 * take in its segment: Bonferroni over them, so a window of
		 * noise does not pass for its most extreme stretch. */
		if (seg_test(x, cut[bseg], bt, cut[bseg + 1], &m1, &m2) *
			    (double)(cut[bseg + 1] - cut[bseg] -
				     2 * CHANGES_MIN_SEGMENT + 1) >=
		    CHANGES_P_SPLIT)
			return;
		list_add(found, bt, best);
		memmove(&cut[bseg + 2], &cut[bseg + 1],
			(ncut - bseg - 1) * sizeof(cut[0]));
		cut[bseg + 1] = bt;
		ncut++;
	}
}

/*
 * Fill the statistics of cps->v[i] against its neighbours (0 and n).  Its
 * p is the t test's, times the number of positions a split of that
 * stretch could have taken (Bonferroni): the change point was chosen as
 * the most different of them, and a permutation test -- E-divisive's
 * own -- would charge for that choice the same way.
 */
static void restat(const double *x, size_t n, struct changes_list *cps,
		   size_t i)
{
	size_t a = i ? cps->v[i - 1].idx : 0,
	       b = i + 1 < cps->nr ? cps->v[i + 1].idx : n, npos;
	struct changes_point *c = &cps->v[i];

	c->p = seg_test(x, a, c->idx, b, &c->mean_before, &c->mean_after);
	npos = b - a > 2 * CHANGES_MIN_SEGMENT
		       ? b - a - 2 * CHANGES_MIN_SEGMENT + 1
		       : 1;
	c->p *= (double)npos;
	if (c->p > 1)
		c->p = 1;
	c->n_before = c->idx - a;
	c->n_after = b - c->idx;
}

/*
 * Move cps->v[i] to the split of the stretch between its neighbours that
 * leaves the least squared error (the largest n1 n2 / (n1 + n2) (m1 -
 * m2)^2): E-divisive's q-hat finds that a shift is there, least squares
 * where it is to the point.  Keeps CHANGES_MIN_SEGMENT either side, or a
 * side of a short stretch as it is.
 */
static void refine(const double *x, size_t n, struct changes_list *cps,
		   size_t i)
{
	size_t a = i ? cps->v[i - 1].idx : 0,
	       b = i + 1 < cps->nr ? cps->v[i + 1].idx : n;
	size_t lo = a + CHANGES_MIN_SEGMENT, hi = b - CHANGES_MIN_SEGMENT;
	double total = 0, left = 0, best = -1;
	size_t bt = cps->v[i].idx;

	if (b - a < 2 * CHANGES_MIN_SEGMENT)
		return;
	for (size_t k = a; k < b; k++)
		total += x[k] - x[a];
	for (size_t t = a + 1; t <= hi; t++) {
		double n1 = (double)(t - a), n2 = (double)(b - t), d, v;

		left += x[t - 1] - x[a];
		if (t < lo)
			continue;
		d = left / n1 - (total - left) / n2;
		v = n1 * n2 / (n1 + n2) * d * d;
		if (v > best) {
			best = v;
			bt = t;
		}
	}
	cps->v[i].idx = bt;
}

/* 1 when cps->v[i] and both its neighbours (those there are) keep
 * p < CHANGES_P_CONFIRM, their statistics filled afresh. */
static int restat_around(const double *x, size_t n, struct changes_list *cps,
			 size_t i)
{
	int ok = 1;

	for (size_t k = i ? i - 1 : 0; k <= i + 1 && k < cps->nr; k++) {
		restat(x, n, cps, k);
		ok &= cps->v[k].p < CHANGES_P_CONFIRM;
	}
	return ok;
}

/*
 * Move cps->v[i] as refine() would, and test again: a move that leaves
 * its own p or a neighbour's at CHANGES_P_CONFIRM or above is undone
 * (the least-squares place is only better where the rule still holds
 * there).  The statistics of i and its neighbours are fresh after.
 */
static void refine_tested(const double *x, size_t n, struct changes_list *cps,
			  size_t i)
{
	size_t was = cps->v[i].idx;

	refine(x, n, cps, i);
	if (cps->v[i].idx == was || restat_around(x, n, cps, i))
		return;
	cps->v[i].idx = was;
	restat_around(x, n, cps, i);
}

/*
 * Hunter's merge(): drop the weakest change point while its p is
 * CHANGES_P_CONFIRM or more, its neighbours tested again without it, so
 * that every point left meets the rule against its own neighbours.
 * Every point's statistics must be fresh on entry.
 */
static void merge(const double *x, size_t n, struct changes_list *cps)
{
	while (cps->nr) {
		size_t w = 0;

		for (size_t i = 1; i < cps->nr; i++)
			if (cps->v[i].p > cps->v[w].p)
				w = i;
		if (cps->v[w].p < CHANGES_P_CONFIRM)
			break;
		memmove(&cps->v[w], &cps->v[w + 1],
			(cps->nr - w - 1) * sizeof(cps->v[0]));
		cps->nr--;
		if (w > 0)
			restat(x, n, cps, w - 1);
		if (w < cps->nr)
			restat(x, n, cps, w);
	}
}

/* The median of v[0..n) (n >= 1), reordering v. */
static double median_of(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The outlier screen (a Hampel filter, doc/STATISTICS.md section 5):
 * into y[0..n), x with every point further than CHANGES_OUTLIER_SIGMA
 * robust standard deviations from the median of the CHANGES_OUTLIER_HALF
 * points either side of it (and itself) replaced by that median.  The
 * noise's scale is the median of |x[i+1] - x[i]| over 0.954 (the median
 * of |N(0, 2 s^2)| is 0.954 s): first differences do not see a level
 * shift, so a series with steps screens as its noise alone.  A run of up
 * to CHANGES_OUTLIER_HALF points apart is screened; a longer one is a
 * level of its own (the window's median joins it), so a shift is never
 * smoothed away.  A series without spread (scale 0) is copied as it is.
 */
static void screen(const double *x, size_t n, double *y)
{
	_cleanup_free_ double *d = NULL;
	double scale, w[2 * CHANGES_OUTLIER_HALF + 1];

	memcpy(y, x, n * sizeof(*y));
	if (n < 2 * CHANGES_OUTLIER_HALF + 1)
		return;
	d = xcalloc(n - 1, sizeof(*d));
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = fabs(x[i + 1] - x[i]);
	qsort(d, n - 1, sizeof(*d), cmp_double);
	scale = (n - 1) % 2 ? d[(n - 1) / 2]
			    : (d[(n - 1) / 2 - 1] + d[(n - 1) / 2]) / 2;
	scale /= 0.954;
	if (!(scale > 0))
		return;
	for (size_t i = 0; i < n; i++) {
		size_t a = i > CHANGES_OUTLIER_HALF ? i - CHANGES_OUTLIER_HALF
						    : 0,
		       b = i + CHANGES_OUTLIER_HALF + 1 < n
				   ? i + CHANGES_OUTLIER_HALF + 1
				   : n;
		double med;

		memcpy(w, x + a, (b - a) * sizeof(*w));
		med = median_of(w, b - a);
		if (fabs(x[i] - med) > CHANGES_OUTLIER_SIGMA * scale)
			y[i] = med;
	}
}

/*
 * The search on x[0..n) already screened, as changes_find() describes
 * it.
 */
static void find_screened(const double *x, size_t n, struct changes_list *ret)
{
	struct changes_list cand = { NULL, 0, 0 };
	_cleanup_free_ size_t *idx = NULL;
	size_t start = 0, nidx = 0;

	/* Windows of CHANGES_WINDOW, each starting half a window on or at
	 * the last change point found (Hunter's split()). */
	while (start < n) {
		size_t end = start + CHANGES_WINDOW < n ? start + CHANGES_WINDOW
							: n,
		       before = cand.nr, last = 0;

		edivisive(x, start, end, &cand);
		for (size_t k = before; k < cand.nr; k++)
			if (cand.v[k].idx > last)
				last = cand.v[k].idx;
		if (end == n)
			break;
		start = last > start + CHANGES_WINDOW / 2
				? last
				: start + CHANGES_WINDOW / 2;
	}
	/* The candidates, each once, in order. */
	idx = xcalloc(cand.nr ? cand.nr : 1, sizeof(*idx));
	for (size_t k = 0; k < cand.nr; k++)
		idx[k] = cand.v[k].idx;
	qsort(idx, cand.nr, sizeof(*idx), cmp_size);
	for (size_t k = 0; k < cand.nr; k++) {
		if (nidx && idx[nidx - 1] == idx[k])
			continue;
		idx[nidx++] = idx[k];
	}
	for (size_t k = 0; k < nidx; k++) {
		double q = NAN;

		for (size_t c = 0; c < cand.nr; c++)
			if (cand.v[c].idx == idx[k] &&
			    (isnan(q) || cand.v[c].qhat > q))
				q = cand.v[c].qhat;
		list_add(ret, idx[k], q);
	}
	changes_list_release(&cand);
	for (size_t i = 0; i < ret->nr; i++)
		restat(x, n, ret, i);
	merge(x, n, ret);
	/* Each survivor where least squares puts it, as long as the rule
	 * still holds there; then the rule checked once more over all of
	 * them, so that no reported point misses it. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ret->nr; i++)
			refine_tested(x, n, ret, i);
	for (size_t i = 0; i < ret->nr; i++)
		restat(x, n, ret, i);
	merge(x, n, ret);
}

int changes_find(const double *x, size_t n, struct changes_list *ret)
{
	_cleanup_free_ double *y = NULL;

	ret->nr = 0;
	if (n > CHANGES_MAX_POINTS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	if (!n)
		return 0;
	y = xcalloc(n, sizeof(*y));
	screen(x, n, y);
	find_screened(y, n, ret);
	return 0;
}
