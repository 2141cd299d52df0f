#!/bin/sh
# t5005: the comparison at its edges (issue 13), end to end through
# `schedfarm import` and `schedfarm compare` on a real PostgreSQL:
# negative means keep their direction, values that cross zero are compared
# on the difference in their unit, a base mean not told apart from zero
# is reported unbounded (and that differs from missing in --json), values
# the comparison cannot square are refused at import and huge ones that
# are accepted do not abort it, metrics without a direction get changed,
# results that disagree on the direction are compared without one and say
# so, and several deciding metrics are corrected with Holm's method, the
# correction stated in the table.  The report's comparison pages count
# changed apart from regressions and state the level and Holm's
# correction; the index's patch listing counts changed in a column of its
# own.  A positive metric with a huge spread (issue 28) gets the ratio's
# interval on the log scale: its lower end never reaches -100%.
#
# Expected numbers: by hand in the comments, or tests/unit/stats-reference.py.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"

H=$SCRATCH/home
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

# jq -e on FILE: the one row of metric $2 must satisfy expression $3.
row_is() {
	jq -e --arg m "$2" "[.[] | select(.metric == \$m)] | length == 1 and (.[0] | $3)" "$1" ||
		{ echo "row $2 does not satisfy $3 in:"; cat "$1"; return 1; }
}

# Five boots a side of each metric, each on a host of its own (so each is
# a family of one: no Holm correction); base kernel k-base, new kernel
# k-new.  Each metric is one of the issue's cases; e-holm has two.
cat >"$SCRATCH/edges.csv" <<'EOF'
kernel,host,workload,params,metric,unit,better,value
k-base,e-neg,synthetic,,neg_higher,score,higher,-10.1
k-base,e-neg,synthetic,,neg_higher,score,higher,-9.9
k-base,e-neg,synthetic,,neg_higher,score,higher,-10.0
k-base,e-neg,synthetic,,neg_higher,score,higher,-10.05
k-base,e-neg,synthetic,,neg_higher,score,higher,-9.95
k-new,e-neg,synthetic,,neg_higher,score,higher,-12.1
k-new,e-neg,synthetic,,neg_higher,score,higher,-11.9
k-new,e-neg,synthetic,,neg_higher,score,higher,-12.0
k-new,e-neg,synthetic,,neg_higher,score,higher,-12.05
k-new,e-neg,synthetic,,neg_higher,score,higher,-11.95
k-base,e-offset,synthetic,,offset,ppm,lower,0.5
k-base,e-offset,synthetic,,offset,ppm,lower,-0.4
k-base,e-offset,synthetic,,offset,ppm,lower,0.3
k-base,e-offset,synthetic,,offset,ppm,lower,-0.6
k-base,e-offset,synthetic,,offset,ppm,lower,0.2
k-new,e-offset,synthetic,,offset,ppm,lower,4.8
k-new,e-offset,synthetic,,offset,ppm,lower,5.3
k-new,e-offset,synthetic,,offset,ppm,lower,5.1
k-new,e-offset,synthetic,,offset,ppm,lower,4.6
k-new,e-offset,synthetic,,offset,ppm,lower,5.2
k-base,e-zero,synthetic,,near_zero,ops,higher,1e-9
k-base,e-zero,synthetic,,near_zero,ops,higher,1e-9
k-base,e-zero,synthetic,,near_zero,ops,higher,1e-9
k-base,e-zero,synthetic,,near_zero,ops,higher,1e-9
k-base,e-zero,synthetic,,near_zero,ops,higher,100
k-new,e-zero,synthetic,,near_zero,ops,higher,5.0
k-new,e-zero,synthetic,,near_zero,ops,higher,5.1
k-new,e-zero,synthetic,,near_zero,ops,higher,5.2
k-new,e-zero,synthetic,,near_zero,ops,higher,4.9
k-new,e-zero,synthetic,,near_zero,ops,higher,5.0
k-base,e-huge,synthetic,,huge,units,higher,1.00e80
k-base,e-huge,synthetic,,huge,units,higher,1.01e80
k-base,e-huge,synthetic,,huge,units,higher,0.99e80
k-base,e-huge,synthetic,,huge,units,higher,1.005e80
k-base,e-huge,synthetic,,huge,units,higher,0.995e80
k-new,e-huge,synthetic,,huge,units,higher,1.10e80
k-new,e-huge,synthetic,,huge,units,higher,1.11e80
k-new,e-huge,synthetic,,huge,units,higher,1.09e80
k-new,e-huge,synthetic,,huge,units,higher,1.105e80
k-new,e-huge,synthetic,,huge,units,higher,1.095e80
k-base,e-share,synthetic,,share_a,%cpu,none,298.1
k-base,e-share,synthetic,,share_a,%cpu,none,298.5
k-base,e-share,synthetic,,share_a,%cpu,none,298.3
k-base,e-share,synthetic,,share_a,%cpu,none,298.2
k-base,e-share,synthetic,,share_a,%cpu,none,298.4
k-new,e-share,synthetic,,share_a,%cpu,none,201.3
k-new,e-share,synthetic,,share_a,%cpu,none,201.7
k-new,e-share,synthetic,,share_a,%cpu,none,201.5
k-new,e-share,synthetic,,share_a,%cpu,none,201.4
k-new,e-share,synthetic,,share_a,%cpu,none,201.6
k-base,e-torn,synthetic,,torn,s,lower,2.0
k-base,e-torn,synthetic,,torn,s,lower,2.1
k-base,e-torn,synthetic,,torn,s,lower,2.0
k-base,e-torn,synthetic,,torn,s,lower,2.1
k-base,e-torn,synthetic,,torn,s,lower,2.0
k-new,e-torn,synthetic,,torn,s,higher,2.5
k-new,e-torn,synthetic,,torn,s,higher,2.6
k-new,e-torn,synthetic,,torn,s,higher,2.5
k-new,e-torn,synthetic,,torn,s,higher,2.6
k-new,e-torn,synthetic,,torn,s,higher,2.5
k-base,e-holm,synthetic,,h1,ops,higher,100
k-base,e-holm,synthetic,,h1,ops,higher,101
k-base,e-holm,synthetic,,h1,ops,higher,99
k-base,e-holm,synthetic,,h1,ops,higher,100.5
k-base,e-holm,synthetic,,h1,ops,higher,99.5
k-new,e-holm,synthetic,,h1,ops,higher,95
k-new,e-holm,synthetic,,h1,ops,higher,96
k-new,e-holm,synthetic,,h1,ops,higher,94
k-new,e-holm,synthetic,,h1,ops,higher,95.5
k-new,e-holm,synthetic,,h1,ops,higher,94.5
k-base,e-holm,synthetic,,h2,ops,higher,200
k-base,e-holm,synthetic,,h2,ops,higher,202
k-base,e-holm,synthetic,,h2,ops,higher,198
k-base,e-holm,synthetic,,h2,ops,higher,201
k-base,e-holm,synthetic,,h2,ops,higher,199
k-new,e-holm,synthetic,,h2,ops,higher,190
k-new,e-holm,synthetic,,h2,ops,higher,192
k-new,e-holm,synthetic,,h2,ops,higher,188
k-new,e-holm,synthetic,,h2,ops,higher,191
k-new,e-holm,synthetic,,h2,ops,higher,189
k-base,e-alone,synthetic,,h1,ops,higher,100
k-base,e-alone,synthetic,,h1,ops,higher,101
k-base,e-alone,synthetic,,h1,ops,higher,99
k-base,e-alone,synthetic,,h1,ops,higher,100.5
k-base,e-alone,synthetic,,h1,ops,higher,99.5
k-new,e-alone,synthetic,,h1,ops,higher,95
k-new,e-alone,synthetic,,h1,ops,higher,96
k-new,e-alone,synthetic,,h1,ops,higher,94
k-new,e-alone,synthetic,,h1,ops,higher,95.5
k-new,e-alone,synthetic,,h1,ops,higher,94.5
k-base,e-spread,synthetic,,records_per_s,records/s,higher,120
k-base,e-spread,synthetic,,records_per_s,records/s,higher,95
k-base,e-spread,synthetic,,records_per_s,records/s,higher,140
k-base,e-spread,synthetic,,records_per_s,records/s,higher,110
k-base,e-spread,synthetic,,records_per_s,records/s,higher,125
k-new,e-spread,synthetic,,records_per_s,records/s,higher,3
k-new,e-spread,synthetic,,records_per_s,records/s,higher,260
k-new,e-spread,synthetic,,records_per_s,records/s,higher,1.5
k-new,e-spread,synthetic,,records_per_s,records/s,higher,90
k-new,e-spread,synthetic,,records_per_s,records/s,higher,2
EOF

# kernel-demo's `converged` (1 on every base boot, 0 on every patched
# one) at three boots a side, and a summary pair near 1e150.
cat >"$SCRATCH/flags.csv" <<'EOF'
kernel,host,workload,params,metric,unit,better,value
k-base,edge2,fairness,,converged,,none,1
k-base,edge2,fairness,,converged,,none,1
k-base,edge2,fairness,,converged,,none,1
k-new,edge2,fairness,,converged,,none,0
k-new,edge2,fairness,,converged,,none,0
k-new,edge2,fairness,,converged,,none,0
EOF

test_expect_success 'import the edge cases' '
	schedfarm import "$SCRATCH/edges.csv" "$SCRATCH/flags.csv" >out &&
	test "$(grep -c ": imported " out)" = 2 &&
	schedfarm compare --base k-base --new k-new --workload synthetic --json >e.json &&
	schedfarm compare --base k-base --new k-new --workload synthetic --wide >e.txt &&
	schedfarm compare --base k-base --new k-new --host edge2 --json >f.json &&
	jq -r ".[] | .host + \" \" + .metric + \" \" + .verdict" e.json >verdicts
'

test_expect_success 'negative means keep their direction: -10 -> -12 is -20%, a regression' '
	row_is e.json neg_higher "
		(.pct_change + 20 | fabs) < 1e-9 and
		(.ci_low + 21.280314232325594 | fabs) < 1e-6 and
		(.ci_high + 18.733201601170336 | fabs) < 1e-6 and
		.scale == \"percent\" and .verdict == \"regression\""
'

test_expect_success 'values that cross zero are compared on the difference, in their unit' '
	row_is e.json offset "
		.scale == \"difference\" and .pct_change == null and
		.ci_low == null and (.difference - 5 | fabs) < 1e-9 and
		.diff_ci_low < .difference and .difference < .diff_ci_high and
		.ci_method == \"t-diff\" and .verdict == \"regression\" and
		(.note | test(\"the values cross 0: compared on the difference new - base in ppm\"))" &&
	grep -E "^ +[-0-9.]+ .* \+5 +\[\+[0-9.]+, \+[0-9.]+\] .*offset \(ppm\)  regression" e.txt &&
	grep_or_fail "note: the values cross 0: compared on the difference new - base in ppm" e.txt
'

test_expect_success 'a base not told apart from zero: unbounded, never a verdict; missing is not unbounded' '
	row_is e.json near_zero "
		.ci_unbounded == true and .ci_low == null and .ci_high == null and
		(.pct_change | type) == \"number\" and .verdict == \"inconclusive\" and
		(.note | test(\"not distinguishable from 0\"))" &&
	grep -E "near_zero \(ops\)  inconclusive" e.txt &&
	grep -E "unbounded" e.txt &&
	q "SELECT verdict, ci_unbounded FROM latest_comparisons WHERE metric = \$\$near_zero\$\$" >nz &&
	grep_or_fail "inconclusive|t" nz
'

test_expect_success 'values around 1e80 compare like any others (no abort)' '
	row_is e.json huge "
		(.pct_change - 10 | fabs) < 1e-6 and .ci_low > 8 and
		.ci_high < 12 and .verdict == \"improvement\""
'

test_expect_success 'a metric without a direction changed: -32%, changed (not inconclusive)' '
	row_is e.json share_a "
		.better == \"none\" and .pct_change < -32 and
		.verdict == \"changed\"" &&
	row_is f.json converged "
		.better == \"none\" and .scale == \"difference\" and
		.pct_change == null and .difference == -1 and
		.p_value == 0 and .verdict == \"changed\"" &&
	q "SELECT verdict FROM latest_comparisons WHERE metric = \$\$converged\$\$" >cv &&
	grep_or_fail "changed" cv
'

test_expect_success 'a positive metric with a huge spread: its interval stays above -100%' '
	# By numpy and scipy.stats.t.ppf at 8 df (the log-ratio lines of
	# stats-reference.py): -39.58% [-88.14%, +207.95%]; the Fieller lower
	# end was a ratio of -0.377, printed as -137.7%.
	row_is e.json records_per_s "
		.scale == \"percent\" and .ci_method == \"log-ratio\" and
		(.pct_change + 39.57627118644068 | fabs) < 1e-9 and
		(.ci_low + 88.14396127675003 | fabs) < 1e-6 and
		(.ci_high - 207.9466159784726 | fabs) < 1e-6 and
		.ci_low > -100" &&
	grep -E "records_per_s" e.txt >spread.txt &&
	! grep -E "\[-[1-9][0-9][0-9]" spread.txt
'

test_expect_success 'results that disagree on the direction are compared without one, and say so' '
	row_is e.json torn "
		.better == \"none\" and .verdict == \"changed\" and
		(.note | test(\"disagree on the direction \\\\(lower and higher is better\\\\)\"))"
'

test_expect_success 'several deciding metrics: Holm over the host, stated in the table' '
	# Each of h1 and h2 alone is a -5% regression at 5 + 5 (the exact
	# Mann-Whitney p of complete separation, 2/252 = 0.0079 < 0.01); on
	# one host they are one family: Holm makes it 2 x 0.0079 = 0.016.
	grep_or_fail "e-alone h1 regression" verdicts &&
	grep_or_fail "e-holm h1 inconclusive" verdicts &&
	grep_or_fail "e-holm h2 inconclusive" verdicts &&
	jq -e "[.[] | select(.host == \"e-holm\")] | length == 2 and all(.[];
		(.p_adjusted - 2 * 2 / 252 | fabs) < 1e-12 and
		(.note | test(\"Holm.s correction over the 2 deciding metrics on e-holm: adjusted p 0.0159\")))" e.json &&
	grep_or_fail "Holm'\''s correction over the 2 deciding metrics on e-holm: p shown unadjusted, adj. the adjusted p" e.txt &&
	test "$(grep -c "Holm" e.txt)" = 1 &&
	grep -E "h1 \(.*\)  inconclusive \(p=0\.0079, adj\. 0\.0159\)" e.txt &&
	q "SELECT DISTINCT family || \$\$ \$\$ || alpha FROM latest_comparisons WHERE host = \$\$e-holm\$\$" >fam &&
	test "$(cat fam)" = "2 0.01" &&
	test "$(q "SELECT count(*) FROM latest_comparisons WHERE method_version = 3")" = 11
'

test_expect_success 'import refuses what the comparison cannot represent, accepts 1e149' '
	cat >big.csv <<-EOF &&
	kernel,host,workload,params,metric,unit,better,value
	k-base,edge3,w,,m,u,higher,1e300
	k-base,edge3,w,,m,u,higher,-2e151
	k-base,edge3,w,,m,u,higher,1e-200
	EOF
	! schedfarm import big.csv 2>err &&
	grep_or_fail "big.csv:2: value '\''1e300'\'' is beyond what the comparison can represent (0, or a magnitude from 1e-150 to 1e150: it squares values)" err &&
	grep_or_fail "big.csv:3: value '\''-2e151'\''" err &&
	grep_or_fail "big.csv:4: value '\''1e-200'\''" err &&
	cat >sum.csv <<-EOF &&
	kernel,host,workload,params,metric,unit,better,n,mean,stddev
	k-base,edge3,w,,m,u,higher,10,1e149,1e148
	k-new,edge3,w,,m,u,higher,10,1.05e149,1e147
	k-new,edge3,w,,m2,u,higher,10,1e150,1e300
	EOF
	! schedfarm import sum.csv 2>err &&
	grep_or_fail "sum.csv:4: stddev '\''1e300'\'' is beyond what the comparison can represent" err &&
	! grep -q "1e300.*expected >= 0\|1e300.*0 or more" err &&
	sed -i "\$d" sum.csv &&
	schedfarm import sum.csv >out &&
	schedfarm compare --base k-base --new k-new --host edge3 --json >h.json &&
	row_is h.json m "(.pct_change - 5 | fabs) < 1e-9 and .ci_low != null"
'

# The verdict line of a comparison page (report/comparison.c), from the
# counts of the pair's latest comparisons: R I C N.
verdict_line() {
	_pl() { [ "$1" = 1 ] || echo s; }
	printf '%s' "<span class=\"count v-regression\">$1 regression$(_pl "$1")</span> <span class=\"count v-improvement\">$2 improvement$(_pl "$2")</span> <span class=\"count v-changed\">$3 changed (no direction)</span> over $4 comparison$(_pl "$4")"
}

test_expect_success 'the report counts changed apart from regressions and states the level and Holm' '
	q "SELECT count(*) FILTER (WHERE verdict = \$\$regression\$\$) || \$\$ \$\$ ||
	          count(*) FILTER (WHERE verdict = \$\$improvement\$\$) || \$\$ \$\$ ||
	          count(*) FILTER (WHERE verdict = \$\$changed\$\$) || \$\$ \$\$ || count(*)
	   FROM latest_comparisons WHERE base_kernel = \$\$k-base\$\$ AND new_kernel = \$\$k-new\$\$" >counts &&
	read -r R I C N <counts &&
	test "$R" -ge 1 && test "$C" -ge 1 &&
	B=$(q "SELECT id FROM kernels WHERE name = \$\$k-base\$\$") &&
	K=$(q "SELECT id FROM kernels WHERE name = \$\$k-new\$\$") &&
	schedfarm report --out "$SCRATCH/rep" >/dev/null &&
	grep_or_fail "$(verdict_line "$R" "$I" "$C" "$N")" "$SCRATCH/rep/compare-$B-$K.html" &&
	grep_or_fail "Verdicts at p &lt; 0.01, with Holm'\''s correction over each host'\''s deciding metrics (the adjusted p is in the note).</p>" "$SCRATCH/rep/compare-$B-$K.html" &&
	jq -e --arg b k-base --arg n k-new "[.[] | select(.base == \$b and .new == \$n)] | length == 1 and .[0].regressions == $R and .[0].changed == $C and .[0].comparisons == $N" "$SCRATCH/rep/index-kernels.json" &&
	# As a patch, the pair moves to the patch listing of the index,
	# where changed has a column of its own beside regressions.
	P=$(q "INSERT INTO patches (name, submitter, base, series, series_sha256, n_patches, base_kernel_id, kernel_id) VALUES (\$\$edges\$\$, \$\$t5005\$\$, \$\$k-base\$\$, \$\$x\$\$, repeat(\$\$a\$\$, 64), 1, $B, $K) RETURNING id" | head -n 1) &&
	schedfarm report --out "$SCRATCH/rep" >/dev/null &&
	grep_or_fail "<th class=\"num\">changed (no direction)</th>" "$SCRATCH/rep/index.html" &&
	jq -e --arg p "$P" "[.[] | select(.plm == \$p)] | length == 1 and (.[0] |
		.regressions == $R and .improvements == $I and .changed == $C and .comparisons == $N)" "$SCRATCH/rep/index-patches.json" &&
	grep_or_fail "$(verdict_line "$R" "$I" "$C" "$N")" "$SCRATCH/rep/patch-$P.html" &&
	grep_or_fail "Verdicts at p &lt; 0.01, with Holm'\''s correction over each host'\''s deciding metrics" "$SCRATCH/rep/patch-$P.html"
'

test_done
