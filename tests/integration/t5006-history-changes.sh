#!/bin/sh
# t5006: each host's history and its change points (issue 13) through
# `schedfarm import`, `schedfarm changes` and `schedfarm report` on a real
# PostgreSQL.  A seeded synthetic history of 300 points (CV 1%, ten boots
# per kernel v6.0 .. v6.29) with shifts of +3% at points 100 and 200: both
# are found within +-3 points with the kernels either side, and nothing
# on the flat series beside it or on another host; a second call searches
# nothing again; new points are searched again; a patch's kernel never
# enters the history; the filters; the tau suggestion; the host and
# metric pages plot each series with its change points marked.
#
# The numbers come from a Park-Miller generator and Box-Muller in awk, so
# the same file is written on every machine.
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

# history SEED HOST METRIC UNIT BETTER FIRST N SHIFT1 SHIFT2: N points of
# METRIC on HOST from kernel v6.(FIRST/10) on, CV 1%, times 1.03 from
# point SHIFT1 and again from SHIFT2 (-1: none).
history() {
	awk -v seed="$1" -v host="$2" -v metric="$3" -v unit="$4" \
		-v better="$5" -v first="$6" -v n="$7" -v a="$8" -v b="$9" '
	function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
	function gauss() { return sqrt(-2 * log(rnd())) * cos(6.283185307179586 * rnd()) }
	BEGIN {
		for (i = first; i < first + n; i++) {
			m = 1000
			if (a >= 0 && i >= a) m *= 1.03
			if (b >= 0 && i >= b) m *= 1.03
			printf "v6.%d,%s,hackbench,groups=10,%s,%s,%s,%.4f\n",
				int(i / 10), host, metric, unit, better,
				m * (1 + 0.01 * gauss())
		}
	}'
}

test_expect_success 'import a 300-point history with two +3% shifts, and flat ones' '
	{
		echo "kernel,host,workload,params,metric,unit,better,value"
		history 20261201 box1 time s lower 0 300 100 200
		history 4242 box1 flat ops/s higher 0 300 -1 -1
		history 777 box2 time s lower 0 300 -1 -1
	} >hist.csv &&
	test "$(wc -l <hist.csv)" = 901 &&
	schedfarm import hist.csv >out &&
	grep_or_fail "imported 900 observation rows" out
'

test_expect_success 'changes finds both shifts within 3 points, with the kernels either side, and nothing else' '
	schedfarm changes --json >c.json &&
	jq -e ".series == 3 and .analysed == 3 and .points == 900 and .found == 2" c.json &&
	jq -e "[.changes[] | select(.host != \"box1\" or .metric != \"time\")] | length == 0" c.json &&
	jq -e "[.changes[].index] | sort | (.[0] - 100 | fabs) <= 3 and (.[1] - 200 | fabs) <= 3" c.json &&
	jq -e "all(.changes[]; .direction == \"worse\" and (.pct_shift - 3 | fabs) < 0.6 and .p_value < 0.001 and .points == 300)" c.json &&
	jq -r ".changes[] | [.index, .kernel_before, .kernel_after] | @tsv" c.json >k &&
	while read -r idx before after; do
		test "$before" = "v6.$(((idx - 1) / 10))" &&
		test "$after" = "v6.$((idx / 10))" || return 1
	done <k &&
	schedfarm changes --no-update >c.txt &&
	grep -E "^[0-9-]+ [0-9:]+  box1  hackbench$" c.txt &&
	grep -E "^    params groups=10$" c.txt &&
	grep -E "^    time \(s\): [0-9.]+ -> [0-9.]+ \(\+[23]\.[0-9]%, worse\), p [0-9.e-]+$" c.txt &&
	grep -E "^    between v6\.[0-9]+ and v6\.[0-9]+, point [0-9]+ of 300 \([0-9]+ before, [0-9]+ after\)$" c.txt &&
	test "$(grep -c " -> " c.txt)" = 2
'

test_expect_success 'a second call searches nothing again; what is stored stays' '
	schedfarm changes --json >c2.json &&
	jq -e ".series == 3 and .analysed == 0 and (.changes | length) == 2" c2.json &&
	test "$(q "SELECT count(*) FROM history_changes")" = 2 &&
	test "$(q "SELECT count(*) FROM history_hosts")" = 2
'

test_expect_success 'new points of a base kernel: that series is searched again' '
	{
		echo "kernel,host,workload,params,metric,unit,better,value"
		history 99 box1 time s lower 300 20 0 200
	} >more.csv &&
	schedfarm import more.csv >/dev/null &&
	schedfarm changes --json >c3.json &&
	jq -e ".analysed == 1 and .points == 320 and (.changes | length) == 2" c3.json &&
	test "$(q "SELECT n_points FROM history_series WHERE metric = \$\$time\$\$ AND host_id = (SELECT id FROM hosts WHERE name = \$\$box1\$\$)")" = 320
'

test_expect_success 'a patch kernel never enters the history' '
	{
		echo "kernel,host,workload,params,metric,unit,better,value"
		history 5 box1 time s lower 320 10 0 0 | sed "s/^v6\.32,/v6.31-patched,/"
	} >patched.csv &&
	schedfarm import patched.csv >/dev/null &&
	k=$(q "SELECT id FROM kernels WHERE name = \$\$v6.31-patched\$\$") &&
	q "INSERT INTO patches (name, submitter, base, series, series_sha256, n_patches, kernel_id) VALUES (\$\$x\$\$, \$\$y\$\$, \$\$v6.31\$\$, \$\$x\$\$, repeat(\$\$a\$\$, 64), 1, $k)" >/dev/null &&
	schedfarm changes --json >c4.json &&
	test "$(q "SELECT n_points FROM history_series WHERE metric = \$\$time\$\$ AND host_id = (SELECT id FROM hosts WHERE name = \$\$box1\$\$)")" = 320
'

test_expect_success 'filters: --host, --metric, --since, --limit' '
	schedfarm changes --host box2 --json >f1.json &&
	jq -e "(.changes | length) == 0 and .series == 1" f1.json &&
	schedfarm changes --metric "ti*" --no-update --json >f2.json &&
	jq -e "(.changes | length) == 2" f2.json &&
	schedfarm changes --metric "fl?t" --no-update --json >f3.json &&
	jq -e "(.changes | length) == 0" f3.json &&
	schedfarm changes --since "2999-01-01" --no-update --json >f4.json &&
	jq -e "(.changes | length) == 0" f4.json &&
	schedfarm changes --limit 1 --no-update --json >f5.json &&
	jq -e "(.changes | length) == 1" f5.json &&
	schedfarm changes --since yesterday --no-update >f6.txt &&
	test "$(grep -c " -> " f6.txt)" = 2 &&
	schedfarm changes --limit 0 2>err; test $? = 2 &&
	grep_or_fail "--limit '\''0'\'' is out of range" err &&
	! schedfarm changes --since "not a date" 2>err
'

test_expect_success 'tau suggested per metric from the A/A spread of the history' '
	schedfarm changes --suggest-tau --json >t.json &&
	jq -e ".boots == 5 and ([.metrics[].metric] | sort) == [\"flat\", \"time\"]" t.json &&
	jq -e "all(.metrics[]; .cv > 0.8 and .cv < 1.2 and .p95 > 0.5 and .p95 < 3 and .tau >= 0.5 and .tau <= 3 and .current == 2 and .pairs >= 30)" t.json &&
	schedfarm changes --suggest-tau --boots 10 --metric time >t.txt &&
	grep -E "^time +2 +[0-9]+ +[0-9.]+% +[0-9.]+% +tau [0-9.]+% +2\.0%$" t.txt &&
	schedfarm changes --suggest-tau --since 2026-01-01 2>err; test $? = 2
'

test_expect_success 'the host and metric pages plot each series with its change points marked' '
	schedfarm report --out "$SCRATCH/rep" >rep.out &&
	B1=$(q "SELECT id FROM hosts WHERE name = \$\$box1\$\$") &&
	marks() {
		grep -o "class=\"change-point\" [^>]*><title>change between v6\.[0-9]* and v6\.[0-9]* (before point [0-9]*)" "$1" | sort -u | wc -l
	} &&
	test "$(marks "$SCRATCH/rep/host-$B1.html")" = 2 &&
	grep_or_fail "History and change points" "$SCRATCH/rep/host-$B1.html" &&
	test -f "$SCRATCH/rep/host-$B1-changes.csv" &&
	test "$(wc -l <"$SCRATCH/rep/host-$B1-changes.csv")" = 3 &&
	M=$(ls "$SCRATCH/rep" | grep "^metric-time-.*\.html$") &&
	test "$(marks "$SCRATCH/rep/$M")" = 2 &&
	grep -q "<svg" "$SCRATCH/rep/$M" &&
	grep_or_fail "href=\"$M\"" "$SCRATCH/rep/index.html" &&
	schedfarm --json report --out "$SCRATCH/rep" >rep2.json &&
	jq -e ".pages_rendered == 1" rep2.json
'

test_expect_success 'help changes and the man page name the method' '
	schedfarm help changes >h.txt &&
	grep_or_fail "E-divisive means" h.txt &&
	grep_or_fail "--suggest-tau" h.txt &&
	grep -q "^\.B changes" "$TOP/doc/schedfarm.1"
'

test_done
