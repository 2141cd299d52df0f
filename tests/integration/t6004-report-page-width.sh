#!/bin/sh
# t6004: every page of `schedfarm report` fits a 1 280-px window.  The
# data is t6001's (seed 003's re-aim regression, seed 001's thread sweep,
# a real local run of the fairness loop for a base kernel and for a
# patch) with long names and long params on top: a 90-character patch
# name, long kernel and host names, params with long cgroup paths.  Each
# page is opened in headless Chromium with a 1 280-px-wide window; the
# page may not scroll sideways (document.documentElement.scrollWidth <=
# clientWidth), and no table is wider than its box (a table that would
# be scrolls inside its box: the last resort, not the layout).  The
# index says an empty queue once, shows the newest 5 change points and
# links changes.html for all.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

DATA=$TOP/tests/data/report
H=$SCRATCH/home
OUT=$SCRATCH/report
SHOTS=$SCRATCH/screenshots
mkdir -p "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

sql() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}

# The browser: Debian's chromium driven by the pinned playwright-core.
BROWSER_OK=
BROWSER_WHY=
if ! command -v chromium >/dev/null 2>&1; then
	BROWSER_WHY="chromium not installed (make deps)"
elif ! command -v node >/dev/null 2>&1; then
	BROWSER_WHY="node not installed (make deps)"
elif [ ! -d "$TOP/tests/browser/node_modules/playwright-core" ]; then
	BROWSER_WHY="tests/browser/node_modules missing (make deps)"
else
	BROWSER_OK=1
fi

browser_test() {
	if [ -n "$BROWSER_OK" ]; then
		test_expect_success "$1" "$2"
	else
		test_skip "$1" "$BROWSER_WHY"
	fi
}

LONGK=2.6.26-rc8-sched-devel-group-balancer-take3-with-cfs-bandwidth-and-rt-throttling
LONGH=quad-core-q9450-in-rack-17-of-the-scheduler-lab-second-floor-east.example.org
LONGP="cgroup=/sys/fs/cgroup/cpu/benchmarks/sysbench/oltp/postgresql-8.3/read-write;threads=64;table_size=1000000"
PNAME=sched-fair-rework-the-smp-group-balancer-so-that-load-moves-between-groups-without-waiting
export LONGK LONGH LONGP PNAME

test_expect_success 'seed imports with long names and params, compared' '
	schedfarm db migrate >/dev/null &&
	{
		echo kernel,host,workload,params,metric,unit,better,value
		# 6 series of 16 points, each 10% up half way: 6 change points.
		for run in 1 2 3 4 5 6; do
			i=0
			while [ $i -lt 16 ]; do
				if [ $i -lt 8 ]; then k=2.6.25-long-base; v=1000; else k=$LONGK; v=1100; fi
				printf "%s,%s,sysbench-oltp-read-write-with-a-long-workload-name,\"%s;run=%s\",transactions_per_second_in_the_steady_state,tps,higher,%s\n" \
					"$k" "$LONGH" "$LONGP" $run $((v + i % 7))
				i=$((i + 1))
			done
		done
	} >long.csv &&
	schedfarm import "$DATA/seed003-reaim.csv" "$DATA/seed001-sysbench.csv" \
		"$DATA/hostile.csv" long.csv >out &&
	schedfarm compare --base 2.6.0-test2-mm4 --new 2.6.0-test2-mm4-A3 >/dev/null &&
	schedfarm compare --base 2.6.25 --new 2.6.26-rc >/dev/null &&
	schedfarm compare --base 2.6.25-long-base --new "$LONGK" >/dev/null
'

test_expect_success 'real local runs: a base kernel, then a patch with a long name' '
	schedfarm host add here --kind local >/dev/null &&
	schedfarm run "$DATA/fairness-short.yaml" --host here --kernel local-base >run1.out 2>&1 &&
	schedfarm submit "$DATA/sched-tweak.patch" --base local-base \
		--plan "$DATA/fairness-short.yaml" --host here --kernel local-tweak \
		--name "$PNAME" >submit.out &&
	schedfarm run >run2.out 2>&1 &&
	PLM=$(sql "SELECT id FROM patches") &&
	schedfarm compare "$PLM" >/dev/null
'

PLM=$(sql "SELECT id FROM patches" 2>/dev/null)
export PLM OUT SHOTS

test_expect_success 'report writes the pages, changes.html among them' '
	schedfarm --json report --out "$OUT" >r1.json &&
	test -s "$OUT/patch-$PLM.html" &&
	test -s "$OUT/changes.html" &&
	jq -e ".written | index(\"changes.html\") != null" r1.json
'

test_expect_success 'the index: the empty queue said once, the newest 5 change points, a link to all' '
	grep_or_fail "the queue is empty" "$OUT/index.html" &&
	! grep -q "0 jobs waiting" "$OUT/index.html" &&
	N=$(jq length "$OUT/changes-changes.json") &&
	test "$N" -gt 5 &&
	test "$(jq length "$OUT/index-changes.json")" = 5 &&
	jq -e "[.[].at] == ([.[].at] | sort | reverse)" "$OUT/changes-changes.json" &&
	test "$(jq -c "[.[:5][] | [.at, .metric, .host]]" "$OUT/changes-changes.json")" = \
		"$(jq -c "[.[] | [.at, .metric, .host]]" "$OUT/index-changes.json")" &&
	grep_or_fail "<a href=\"changes.html\">all $N change points</a>" "$OUT/index.html" &&
	test "$(jq length "$OUT/changes-metrics.json")" -gt 5
'

test_expect_success 'a second report leaves changes.html alone' '
	schedfarm --json report --out "$OUT" >r2.json &&
	jq -e ".written == [\"index.html\"]" r2.json
'

browser_test 'no page scrolls sideways in a 1 280-px window' '
	rm -rf "$SCRATCH/profile" &&
	node "$TOP/tests/browser/inspect-pages.js" facts.json "$SHOTS" \
		"$SCRATCH/profile" "$OUT"/*.html &&
	n=$(ls "$OUT"/*.html | wc -l) &&
	jq -e --argjson n "$n" "length == \$n" facts.json &&
	jq -e "[.[] | .client_width] | unique == [1280]" facts.json &&
	jq -r "to_entries[] | select(.value.scroll_width > .value.client_width) |
		\"\(.key): \(.value.scroll_width) px wide: \(.value.wide_elements | join(\", \"))\"" \
		facts.json >wide &&
	{ test ! -s wide || { cat wide; false; }; }
'

browser_test 'every table fits its box in a 1 280-px window (none needs its scroll bar)' '
	jq -r "to_entries[] | .key as \$p | .value.table_fit | to_entries[] |
		select(.value.width > .value.box) |
		\"\(\$p) table \(.key): \(.value.width) px in a \(.value.box)-px box\"" \
		facts.json >wide-tables &&
	{ test ! -s wide-tables || { cat wide-tables; false; }; }
'

browser_test 'verdicts and notes keep their words whole (insufficient-data, not insufficien|t-data)' '
	jq -e "[.[] | .words_cells] | add > 10" facts.json &&
	jq -r "to_entries[] | select(.value.words_split | length > 0) |
		\"\(.key): \(.value.words_split | join(\", \"))\"" \
		facts.json >split &&
	{ test ! -s split || { cat split; false; }; }
'

browser_test 'the patch page: every comparison is there, the long name too' '
	F=".\"patch-$PLM\"" &&
	jq -e --arg n "$PNAME" "$F.h1 == \"PLM $PLM: \" + \$n" facts.json &&
	jq -e "[.[] | .tables | keys[]] | length > 10" facts.json
'

test_done
