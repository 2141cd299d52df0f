#!/bin/sh
# t6001: `schedfarm report` over a database holding seed-derived imports
# (seed 003's re-aim regression, seed 001's sysbench thread sweep and
# volanomark runs), real local runs of the fairness loop for a base kernel
# and for a patch named <script>alert(1)</script>, and a host named
# "><img src=x onerror=alert(1)>.  The pages are opened in headless
# Chromium: screenshots go to the scratch folder, the DOM is checked for
# the numbers the database holds and for axes on every plot, and no
# script may run.  Then the incremental part: a second report writes only
# the index, one new run rewrites a handful of pages, a deleted page and a
# changed template are noticed.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
for v in import compare host submit run report; do
	schedfarm help "$v" >/dev/null 2>&1 ||
		skip_all "this schedfarm has no '$v' verb yet"
done
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

# inspect FACTS.json PAGE...: open pages in chromium, facts to FACTS.json.
inspect() {
	_facts=$1
	shift
	rm -rf "$SCRATCH/profile"
	node "$TOP/tests/browser/inspect-pages.js" "$_facts" "$SHOTS" \
		"$SCRATCH/profile" "$@"
}

# browser_test DESCRIPTION SCRIPT: a test that needs the browser.
browser_test() {
	if [ -n "$BROWSER_OK" ]; then
		test_expect_success "$1" "$2"
	else
		test_skip "$1" "$BROWSER_WHY"
	fi
}

test_expect_success 'seed-derived imports, compared' '
	schedfarm db migrate >/dev/null &&
	schedfarm import "$DATA/seed003-reaim.csv" "$DATA/seed001-sysbench.csv" \
		"$DATA/hostile.csv" >out &&
	schedfarm compare --base 2.6.0-test2-mm4 --new 2.6.0-test2-mm4-A3 >/dev/null &&
	schedfarm compare --base 2.6.25 --new 2.6.26-rc >/dev/null
'

test_expect_success 'real local runs: base kernel, then a patch with a hostile name' '
	schedfarm host add here --kind local >/dev/null &&
	schedfarm run "$DATA/fairness-short.yaml" --host here --kernel local-base >run1.out 2>&1 &&
	schedfarm submit "$DATA/sched-tweak.patch" --base local-base \
		--plan "$DATA/fairness-short.yaml" --host here --kernel local-tweak \
		--name "<script>alert(1)</script>" >submit.out &&
	schedfarm run >run2.out 2>&1 &&
	PLM=$(sql "SELECT id FROM patches") &&
	schedfarm compare "$PLM" >/dev/null &&
	test "$(sql "SELECT count(*) FROM samples")" -gt 0
'

# A run whose agent reported /proc/schedstat (this machine has none), as
# the agent's counter lines would store it: two CPUs, one domain level.
test_expect_success 'a run with schedstat counters (inserted as ingest would)' '
	sql "INSERT INTO runs (host_id, kernel_id, workload, status, params)
	     SELECT h.id, k.id, \$\$memchunk\$\$, \$\$done\$\$, \$\${\"short_threads\": 1}\$\$
	     FROM hosts h, kernels k WHERE h.name = \$\$here\$\$ AND k.name = \$\$local-base\$\$
	     RETURNING id" >schedrun &&
	R=$(head -n 1 schedrun) &&
	sql "INSERT INTO counters (run_id, source, scope, name, value) VALUES
	     ($R, \$\$schedstat\$\$, \$\$cpu0\$\$, \$\$run_delay\$\$, 123456789),
	     ($R, \$\$schedstat\$\$, \$\$cpu1\$\$, \$\$run_delay\$\$, 987654321),
	     ($R, \$\$schedstat\$\$, \$\$cpu0\$\$, \$\$pcount\$\$, 10),
	     ($R, \$\$schedstat\$\$, \$\$cpu1\$\$, \$\$pcount\$\$, 12),
	     ($R, \$\$schedstat\$\$, \$\$cpu0/domain0/busy\$\$, \$\$lb_gained\$\$, 3),
	     ($R, \$\$schedstat\$\$, \$\$cpu1/domain0/idle\$\$, \$\$lb_gained\$\$, 5),
	     ($R, \$\$schedstat\$\$, \$\$cpu0/domain0\$\$, \$\$alb_pushed\$\$, 1)" &&
	sql "INSERT INTO results (run_id, metric, value, unit, direction)
	     VALUES ($R, \$\$records_per_s\$\$, 4993368, \$\$1/s\$\$, \$\$higher\$\$)"
'

PLM=$(sql "SELECT id FROM patches" 2>/dev/null)
SCHEDRUN=$(head -n 1 "$SCRATCH/schedrun" 2>/dev/null)
REAIM_PAGE=compare-$(sql "SELECT b.id || '-' || n.id FROM kernels b, kernels n
	WHERE b.name = '2.6.0-test2-mm4' AND n.name = '2.6.0-test2-mm4-A3'" 2>/dev/null)
SWEEP_PAGE=compare-$(sql "SELECT b.id || '-' || n.id FROM kernels b, kernels n
	WHERE b.name = '2.6.25' AND n.name = '2.6.26-rc'" 2>/dev/null)
HOSTILE=host-$(sql "SELECT id FROM hosts WHERE name LIKE '%onerror%'" 2>/dev/null)
FAIRRUN=$(sql "SELECT min(r.id) FROM runs r JOIN jobs j ON j.id = r.job_id
	WHERE j.patch_id IS NOT NULL" 2>/dev/null)
PLAN=plan-$(sql "SELECT id FROM plans WHERE name = 'fairness-short'" 2>/dev/null)
export PLM SCHEDRUN REAIM_PAGE SWEEP_PAGE HOSTILE FAIRRUN PLAN OUT SHOTS

test_expect_success 'report writes every page, its data files and the stylesheet' '
	schedfarm --json report --out "$OUT" >r1.json &&
	jq -e ".pages_written > 10 and .index == \"$OUT/index.html\"" r1.json &&
	for f in index.html style.css patch-$PLM.html $REAIM_PAGE.html \
		$SWEEP_PAGE.html $HOSTILE.html run-$FAIRRUN.html \
		run-$SCHEDRUN.html $PLAN.html $REAIM_PAGE-compare.csv \
		$REAIM_PAGE-compare.json patch-$PLM-plm.csv run-$FAIRRUN-samples.csv; do
		test -s "$OUT/$f" || { echo "missing $f"; return 1; }
	done
'

test_expect_success 'every page holds its body once (not again in its leading comment)' '
	tmpl=$(wc -c <"$TOP/web-static/page.html") &&
	for f in "$OUT"/*.html; do
		test "$(grep -c "<main>" "$f")" = 1 || { echo "<main> twice in $f"; return 1; }
		# The page is the template with the title and the body put in:
		# its size is at most the template, the body and a title.
		body=$(sed -n "/^<main>$/,/^<\/main>$/p" "$f" | wc -c) &&
		size=$(wc -c <"$f") &&
		test "$size" -le $((tmpl + body + 1024)) ||
			{ echo "$f: $size bytes for a $body-byte body"; return 1; }
		# The leading comment is the template'"'"'s own, unfilled.
		sed -n "2,/-->/p" "$f" >comment &&
		test "$(wc -c <comment)" -lt 1024 &&
		grep -q "@BODY@" comment || { echo "$f: comment filled in:"; head -c 300 comment; return 1; }
	done
'

test_expect_success 'a kernel given with --kernel to a local host is said to be labelled, not built' '
	grep_or_fail "labelled, not built" "$OUT/patch-$PLM.html" &&
	grep_or_fail "labelled, not built" "$OUT/run-$FAIRRUN.html"
'

test_expect_success 'every page has the CSP and no script, no external resource' '
	for f in "$OUT"/*.html; do
		grep -q "http-equiv=\"Content-Security-Policy\" content=\"default-src .none.; style-src .self.;" "$f" ||
			{ echo "no CSP in $f"; return 1; }
		! grep -qi "<script" "$f" || { echo "script in $f"; return 1; }
		! grep -Eqi "(src|href)=\"(https?:)?//" "$f" || { echo "external in $f"; return 1; }
	done
'

test_expect_success 'hostile names are escaped in HTML, CSV and JSON' '
	grep_or_fail "&lt;script&gt;alert(1)&lt;/script&gt;" "$OUT/patch-$PLM.html" &&
	grep_or_fail "&lt;script&gt;alert(1)&lt;/script&gt;" "$OUT/index.html" &&
	grep_or_fail "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" "$OUT/$HOSTILE.html" &&
	! grep -q "<img" "$OUT/$HOSTILE.html" "$OUT/index.html" &&
	jq -e ".[0].name == \"<script>alert(1)</script>\"" "$OUT/index-patches.json" &&
	grep_or_fail "\"\"\"><img src=x onerror=alert(1)>\"" "$OUT/index-hosts.csv"
'

browser_test 'a page that runs a script is caught (the detector works)' '
	cp "$TOP/tests/data/report/control.html" "$SCRATCH/control.html" &&
	inspect control.json "$SCRATCH/control.html" &&
	jq -e ".control.dialogs | length == 1" control.json
'

browser_test 'chromium opens every page: no dialog, no console message, no script' '
	inspect facts.json "$OUT"/index.html "$OUT/patch-$PLM.html" \
		"$OUT/$REAIM_PAGE.html" "$OUT/$SWEEP_PAGE.html" "$OUT/$HOSTILE.html" \
		"$OUT/run-$FAIRRUN.html" "$OUT/run-$SCHEDRUN.html" "$OUT/$PLAN.html" &&
	jq -e "length == 8" facts.json &&
	jq -e "[.[] | .dialogs + .console + .pageerrors] | flatten | length == 0" facts.json &&
	jq -e "[.[] | .scripts + .handlers + .images] | add == 0" facts.json &&
	jq -e "[.[] | .requests[] | select(startswith(\"file://\") | not)] | length == 0" facts.json &&
	jq -e "[.[] | .stylesheet_applied] | unique == [\"rgb(36, 41, 47)\"]" facts.json &&
	for p in index patch-$PLM $REAIM_PAGE $SWEEP_PAGE $HOSTILE run-$FAIRRUN; do
		test "$(stat -c %s "$SHOTS/$p.png")" -gt 20000 || { echo "small shot $p"; return 1; }
	done
'

browser_test 'the hostile patch and host names render as text' '
	jq -e ".\"patch-$PLM\".h1 == \"PLM $PLM: <script>alert(1)</script>\"" facts.json &&
	jq -e ".\"$HOSTILE\".h1 == \"Host \\\"><img src=x onerror=alert(1)>\"" facts.json &&
	jq -e ".index.tables.patches[0][1] == \"<script>alert(1)</script>\"" facts.json &&
	jq -e "[.index.tables.hosts[][0]] | index(\"\\\"><img src=x onerror=alert(1)>\") != null" facts.json
'

browser_test 'every plot has both axes with labels, ticks and a legend' '
	jq -e "[.[] | .plots[]] | length >= 7" facts.json &&
	jq -e "[.[] | .plots[] | select((.x_label // \"\") == \"\" or (.y_label // \"\") == \"\"
		or .x_ticks < 2 or .y_ticks < 2 or (.legend | length) < 1)] | length == 0" facts.json
'

# What compare stored (the pages must show exactly these, never recompute).
stored() {
	sql "SELECT $1 FROM comparisons c JOIN kernels k ON k.id = c.new_kernel_id
	     WHERE k.name = \$\$$2\$\$ AND c.workload = \$\$$3\$\$ AND c.params->>\$\$$4\$\$ = \$\$$5\$\$
	     ORDER BY c.computed_at DESC, c.id DESC LIMIT 1"
}

test_expect_success 'the seed numbers are on the pages (dot plot tables)' '
	for v in 1467.06 1478.82 1473.36 1375.63 1278.40 1293.11; do
		grep_or_fail ">$v<" "$OUT/$REAIM_PAGE.html" || return 1
	done &&
	grep_or_fail ">841.90<" "$OUT/$SWEEP_PAGE.html" &&
	grep_or_fail ">2246.63<" "$OUT/$SWEEP_PAGE.html"
'

browser_test 'seed 003: the PLM and compare tables hold the re-aim numbers' '
	F=".\"$REAIM_PAGE\"" &&
	jq -e "$F.tables.plm[0] | .[2] == \"2.6.0-test2-mm4\" and .[6] == \"1473.08\" and .[9] == \"base\"" facts.json &&
	jq -e "$F.tables.plm[1] | .[2] == \"2.6.0-test2-mm4-A3\" and .[6] == \"1315.71\" and .[9] == \"-10.68%\" and .[8] == \"stp4-000\"" facts.json &&
	MB=$(stored "round(mean_base::numeric, 2)" 2.6.0-test2-mm4-A3 reaim users 4) &&
	MN=$(stored "round(mean_new::numeric, 2)" 2.6.0-test2-mm4-A3 reaim users 4) &&
	PC=$(stored "to_char(pct_change, \$\$FMS990.00\$\$)" 2.6.0-test2-mm4-A3 reaim users 4) &&
	V=$(stored verdict 2.6.0-test2-mm4-A3 reaim users 4) &&
	test "$PC" = -10.68 &&
	jq -e --arg mb "$MB" --arg mn "$MN" --arg pc "$PC%" --arg v "$V" \
		"$F.tables.compare[0] | .[0] == \$v and .[7] == \"3\" and .[8] == \$mb and .[10] == \"3\" and .[11] == \$mn and .[13] == \$pc" facts.json &&
	jq -e "$F.plots[0].markers == 6 and $F.plots[0].x_label == \"observation in run order\"" facts.json
'

browser_test 'seed 001: the thread sweep plot and its table, threads in numeric order' '
	F=".\"$SWEEP_PAGE\"" &&
	jq -e "[$F.tables.compare[] | select(.[2] == \"sysbench\") | .[3]] ==
		[\"cgroup=/;threads=1\", \"cgroup=/;threads=2\", \"cgroup=/;threads=4\",
		 \"cgroup=/;threads=8\", \"cgroup=/;threads=16\", \"cgroup=/;threads=32\",
		 \"cgroup=/;threads=64\", \"cgroup=/;threads=128\", \"cgroup=/;threads=256\"]" facts.json &&
	jq -e "[$F.tables.compare[] | select(.[3] == \"cgroup=/;threads=1\")][0] | .[8] == \"841.90\" and .[11] == \"842.54\"" facts.json &&
	jq -e "[$F.tables.compare[] | select(.[3] == \"cgroup=/;threads=256\")][0] | .[8] == \"2188.98\" and .[11] == \"2246.63\"" facts.json &&
	jq -e "[$F.plots[] | select(.x_label == \"threads, log₂ scale\")] | length == 1" facts.json &&
	jq -e "[$F.plots[] | select(.x_label == \"threads, log₂ scale\")][0] |
		.x_ticks == 9 and .y_label == \"transactions (tps)\" and (.legend | length) == 2" facts.json &&
	MB=$(stored "round(mean_base::numeric, 2)" 2.6.26-rc volanomark clients 1000) &&
	MN=$(stored "round(mean_new::numeric, 2)" 2.6.26-rc volanomark clients 1000) &&
	V=$(stored verdict 2.6.26-rc volanomark clients 1000) &&
	jq -e --arg mb "$MB" --arg mn "$MN" --arg v "$V" \
		"[$F.tables.compare[] | select(.[2] == \"volanomark\")][0] | .[0] == \$v and .[8] == \$mb and .[11] == \$mn" facts.json
'

browser_test 'run page: results, time series of shares, perf-sched-stats counters' '
	J=$(sql "SELECT value FROM results WHERE run_id = $FAIRRUN AND metric = \$\$samples\$\$ ORDER BY iteration") &&
	F=".\"run-$FAIRRUN\"" &&
	jq -e --arg j "$(echo $J)" "[$F.tables.results[] | select(.[2] == \"samples\") | .[3]] | join(\" \") == \$j" facts.json &&
	jq -e "[$F.plots[] | select(.y_label == \"CPU share (% of one CPU)\" and .x_label == \"time since the iteration started (s)\")] | length == 4" facts.json &&
	jq -e "[$F.plots[].title] == [\"Iteration 0: per group\", \"Iteration 0: per task\", \"Iteration 1: per group\", \"Iteration 1: per task\"]" facts.json &&
	jq -e "[$F.plots[].legend[]] | index(\"share./a\") != null and index(\"share./b\") != null and index(\"share./a/task4\") != null" facts.json &&
	grep_or_fail "local-tweak" "$OUT/run-$FAIRRUN.html" &&
	S=".\"run-$SCHEDRUN\"" &&
	jq -e "$S.body_text | contains(\"run_delay\t123456789\t987654321\t1111111110\")" facts.json &&
	jq -e "$S.body_text | contains(\"busy lb_gained\t3\")" facts.json &&
	jq -e "$S.tables.results[0][3] == \"4993368\"" facts.json
'

browser_test 'patch page: jobs, PLM table with STP id and PLM#, plots' '
	F=".\"patch-$PLM\"" &&
	STP=$(sql "SELECT id FROM jobs WHERE patch_id = $PLM") &&
	jq -e --arg s "$STP" "$F.tables.jobs[0][0] == \$s and $F.tables.jobs[0][1] == \"done\"" facts.json &&
	jq -e --arg s "$STP" --arg p "$PLM" "[$F.tables.plm[] | select(.[0] == \$s and .[1] == \$p)] | length >= 1" facts.json &&
	jq -e "[$F.plots[] | select(.x_label == \"observation in run order\")] | length >= 1" facts.json &&
	jq -e "[$F.tables.plm[] | .[5]] | unique == [\"jain_index\"]" facts.json
'

test_expect_success 'a second report writes the index and nothing else' '
	schedfarm --json report --out "$OUT" >r2.json &&
	jq -e ".written == [\"index.html\"] and .pages_rendered == 1" r2.json
'

test_expect_success 'one new run rewrites at most 5 pages (its own, host, plan, patch, index) and the history pages of its metrics' '
	schedfarm run "$DATA/fairness-short.yaml" --host here --kernel local-base >run3.out 2>&1 &&
	schedfarm --json report --out "$OUT" >r3.json &&
	jq -e "[.written[] | select(endswith(\".html\")) | select(startswith(\"metric-\") | not)] | length <= 5" r3.json &&
	NEW=$(sql "SELECT max(id) FROM runs") &&
	nm=$(sql "SELECT count(DISTINCT metric) FROM results WHERE run_id = $NEW") &&
	jq -e --argjson n "$nm" "[.written[] | select(startswith(\"metric-\") and endswith(\".html\"))] | length <= \$n" r3.json &&
	jq -e --arg f "run-$NEW.html" ".written | index(\$f) != null" r3.json &&
	jq -e ".written | index(\"index.html\") != null" r3.json
'

test_expect_success 'a deleted page is written again' '
	rm "$OUT/run-$SCHEDRUN.html" &&
	schedfarm --json report --out "$OUT" >r4.json &&
	jq -e --arg f "run-$SCHEDRUN.html" ".written | sort == ([\$f, \"index.html\"] | sort)" r4.json
'

test_expect_success 'a changed template rewrites every page' '
	cp -r "$TOP/web-static" "$SCRATCH/static2" &&
	sed -i "s|<main>|<main class=\"v2\">|" "$SCRATCH/static2/page.html" &&
	schedfarm --json report --out "$OUT" --static "$SCRATCH/static2" >r5.json &&
	jq -e ".pages_rendered == .pages_checked + 1" r5.json &&
	grep -q "main class=\"v2\"" "$OUT/$REAIM_PAGE.html"
'

test_expect_success 'a template without the CSP is refused' '
	sed -i "/Content-Security-Policy/d" "$SCRATCH/static2/page.html" &&
	! schedfarm report --out "$OUT" --static "$SCRATCH/static2" 2>err &&
	grep_or_fail "lacks the Content-Security-Policy" err
'

test_expect_success '--since a future date looks at nothing but still writes the index' '
	rm "$OUT/index.html" &&
	schedfarm --json report --out "$OUT" --since 2999-01-01 >r6.json &&
	jq -e ".pages_checked == 0 and .written == [\"index.html\"]" r6.json &&
	! schedfarm report --out "$OUT" --since "not a date" 2>err &&
	grep_or_fail "not a date" err
'

test_expect_success 'text output names the index; bad usage exits 2' '
	! schedfarm report --out "$SCRATCH/schedrun" 2>err &&
	grep_or_fail "is not a folder" err &&
	schedfarm report --out "$OUT" >out &&
	grep_or_fail "$OUT/index.html" out &&
	! grep -q "checked" out &&
	schedfarm report --out "$OUT" >out2 &&
	T=$(ls "$OUT"/*.html | wc -l) &&
	{ grep -q "^report: 1 page rendered, $((T - 1)) unchanged; 1 page and 0 other files written$" out2 ||
		{ cat out2; false; }; } &&
	{ schedfarm report stray-arg 2>err; test $? = 2; } &&
	{ schedfarm report --bogus 2>err; test $? = 2; }
'

test_done
