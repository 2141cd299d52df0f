#!/bin/sh
# t8003: a bisection as its rows say it (made here by SQL in the shape
# analysis/bisect.c writes: a series of five on a libvirt host, the good
# and bad ends, three steps, the culprit patch 3 with its %change and CI)
# is shown by `bisect show` (text and JSON) and by its page,
# bisect-ID.html, with the steps table, the plot of the mean per point,
# and a link from the patch's page; `bisect cancel` stops a running
# bisection and cancels its queued job; the verbs refuse what does not
# exist.  The whole path with real kernels is tests/kernel/t7102 (make
# check-kernel).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home

q() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}

test_expect_success 'a finished bisection and a running one, as rows' '
	schedfarm db migrate >/dev/null &&
	q "INSERT INTO hosts (name, kind) VALUES (\$\$vm\$\$, \$\$libvirt\$\$)" &&
	q "INSERT INTO plans (name, sha256, body) VALUES (\$\$fair\$\$, repeat(\$\$b\$\$, 64), \$\$workload: fairness-loop\$\$)" &&
	for k in base base+PLM1.1 base+PLM1.2 base+PLM1.3 base+PLM1.4 base+PLM1; do
		q "INSERT INTO kernels (name, base, build_state, build_seconds) VALUES (\$\$$k\$\$, \$\$base\$\$, \$\$built\$\$, 60)" || return 1
	done &&
	q "UPDATE kernels SET build_seconds = 900 WHERE name = \$\$base\$\$" &&
	q "INSERT INTO patches (name, submitter, base, series, series_sha256, n_patches, base_kernel_id, kernel_id, answer_state, answer_verdict, answer_headline)
	   VALUES (\$\$the <b>series</b>\$\$, \$\$dev\$\$, \$\$base\$\$, \$\$x\$\$, repeat(\$\$a\$\$, 64), 5,
		   (SELECT id FROM kernels WHERE name = \$\$base\$\$), (SELECT id FROM kernels WHERE name = \$\$base+PLM1\$\$),
		   \$\$answered\$\$, \$\$regression\$\$, \$\$jain_index -19.9% regression on vm\$\$)" &&
	q "INSERT INTO bisections (patch_id, host_id, plan_id, workload, params, metric, direction, n_points, max_boots, auto, state, culprit, pct_change, ci_low, ci_high, p_value, result, finished_at)
	   VALUES (1, 1, 1, \$\$fairness-loop\$\$, \$\${\"groups\": \"/a:4,/b:4\"}\$\$, \$\$jain_index\$\$, \$\$regression\$\$, 5, 11, true, \$\$done\$\$, 3, -19.8, -21.0, -18.6, 0.0004,
		   \$\$patch 3/5 (sched/core: cap cgroup v2 cpu.weight) is the first bad patch: jain_index -19.8% regression against base+PLM1.2 on vm\$\$, now())" &&
	pos=0 &&
	for k in base base+PLM1.1 base+PLM1.2 base+PLM1.3 base+PLM1.4 base+PLM1; do
		mark=untested
		case $pos in 0|2) mark=good ;; 3|5) mark=bad ;; esac
		q "INSERT INTO bisection_points (bisection_id, position, kernel_id, label, mark) VALUES (1, $pos, (SELECT id FROM kernels WHERE name = \$\$$k\$\$), \$\$patch $pos\$\$, \$\$$mark\$\$)" || return 1
		pos=$((pos + 1))
	done &&
	q "INSERT INTO bisection_steps (bisection_id, step, position, kernel_id, state, looks, boots, n, mean, mean_good, mean_bad, pct_vs_good, ci_low, ci_high, p_value, verdict_good, verdict_bad, finished_at) VALUES
	   (1, 1, 2, (SELECT id FROM kernels WHERE name = \$\$base+PLM1.2\$\$), \$\$good\$\$, 1, 3, 3, 0.99, 0.99, 0.79, 0.1, -1.0, 1.2, 0.8, \$\$no-change\$\$, \$\$regression\$\$, now()),
	   (1, 2, 3, (SELECT id FROM kernels WHERE name = \$\$base+PLM1.3\$\$), \$\$bad\$\$, 2, 7, 7, 0.80, 0.99, 0.79, -19.2, -20.9, -17.5, 0.001, \$\$regression\$\$, \$\$no-change\$\$, now())" &&
	q "INSERT INTO bisections (patch_id, host_id, plan_id, metric, direction, n_points, max_boots)
	   VALUES (1, 1, 1, \$\$jain_index\$\$, \$\$regression\$\$, 5, 11)" &&
	q "INSERT INTO bisection_points (bisection_id, position, kernel_id, label, mark) VALUES (2, 0, 1, \$\$b\$\$, \$\$good\$\$), (2, 1, 2, \$\$1\$\$, \$\$untested\$\$), (2, 2, 3, \$\$2\$\$, \$\$untested\$\$), (2, 3, 4, \$\$3\$\$, \$\$untested\$\$), (2, 4, 5, \$\$4\$\$, \$\$untested\$\$), (2, 5, 6, \$\$5\$\$, \$\$bad\$\$)" &&
	q "INSERT INTO bisection_steps (bisection_id, step, position, kernel_id, boots) VALUES (2, 1, 2, 3, 3)" &&
	q "INSERT INTO jobs (kernel_id, plan_id, host_constraint, boots, bisect_step_id) VALUES (3, 1, \$\$vm\$\$, 3, (SELECT id FROM bisection_steps WHERE bisection_id = 2))"
'

test_expect_success 'bisect show prints the result, the steps and the points' '
	schedfarm bisect show 1 >show && cat show &&
	grep_or_fail "bisect #1: PLM#1 \"the <b>series</b>\", 5 changes, done" show &&
	grep_or_fail "result: patch 3/5 (sched/core: cap cgroup v2 cpu.weight) is the first bad patch" show &&
	grep -E "^  2 +3 +base\+PLM1\.3 +7 +0\.8 +-19\.2% +\[-20\.9%, -17\.5%\] +bad" show &&
	grep -E "^    3 bad +base\+PLM1\.3 +patch 3$" show &&
	schedfarm bisect show 1 --json >b.json &&
	jq -e ".culprit == 3 and .culprit_kernel == \"base+PLM1.3\" and (.steps | length) == 2 and .steps[1].build_seconds == 60 and .page == \"file://$SCHEDFARM_HOME/report/bisect-1.html\"" b.json
'

test_expect_success 'the page: steps, plot, result; linked from the patch page, strings escaped' '
	schedfarm report >rep && cat rep &&
	P=$SCHEDFARM_HOME/report &&
	test -s "$P/bisect-1.html" && test -s "$P/bisect-1-steps.csv" &&
	grep_or_fail "Bisection 1: jain_index on vm" "$P/bisect-1.html" &&
	grep_or_fail "is the first bad patch" "$P/bisect-1.html" &&
	grep_or_fail "<svg" "$P/bisect-1.html" &&
	grep_or_fail "mean per point" "$P/bisect-1.html" &&
	grep_or_fail "-19.8% [-21.0%, -18.6%] p=0.0004" "$P/bisect-1.html" &&
	grep_or_fail "href=\"bisect-1.html\"" "$P/patch-1.html" &&
	grep_or_fail "jain_index -19.9% regression on vm" "$P/patch-1.html" &&
	grep_or_fail "the &lt;b&gt;series&lt;/b&gt;" "$P/bisect-1.html" &&
	! grep -q "<b>series</b>" "$P/bisect-1.html" &&
	head -n 1 "$P/bisect-1-steps.csv" | grep -q "^step,point,kernel,state"
'

test_expect_success 'a second report rewrites nothing; a changed step rewrites its page' '
	schedfarm report --list >rep2 && ! grep -q "wrote bisect-1.html" rep2 &&
	q "UPDATE bisection_steps SET note = \$\$again\$\$ WHERE bisection_id = 1 AND step = 2" &&
	schedfarm report --list >rep3 && grep_or_fail "wrote bisect-1.html" rep3
'

test_expect_success 'bisect cancel stops a running bisection and its queued job' '
	schedfarm bisect cancel 2 >c && grep_or_fail "bisect #2: cancelled" c &&
	test "$(q "SELECT state FROM jobs WHERE bisect_step_id IS NOT NULL")" = cancelled &&
	test "$(q "SELECT state FROM bisections WHERE id = 2")" = cancelled &&
	schedfarm bisect cancel 2 >c2 && grep_or_fail "not running" c2
'

test_expect_success 'a commit range: its points are the first-parent commits, the ends are queued first' '
	command -v git >/dev/null || { echo "git not installed"; return 1; }
	git init -q tree && (
		cd tree && git config user.email t@example.org && git config user.name t &&
		for i in 0 1 2 3; do
			echo "$i" >file && git add file && git commit -qm "change $i" || exit 1
		done
	) &&
	good=$(git -C tree rev-parse HEAD~3) && bad=$(git -C tree rev-parse HEAD) &&
	printf "workload: pipe-pingpong\nboots: 2\n" >p.yaml &&
	schedfarm bisect --tree tree --good "$good" --bad "$bad" --plan p.yaml \
		--host vm --metric round_trip_us >out && cat out &&
	grep_or_fail "bisect #3: $SCRATCH/tree $good..$bad, 3 commits, round_trip_us on vm: the ends are measured first" out &&
	schedfarm bisect show 3 --json >r.json &&
	jq -e ".tree == \"$SCRATCH/tree\" and .n == 3 and (.points | length) == 4" r.json &&
	jq -e ".points[1].label | startswith(\"$(echo "$good" | cut -c1-12)\") | not" r.json &&
	jq -e ".points[3].rev == \"$bad\" and (.points[3].label | endswith(\"change 3\"))" r.json &&
	jq -e ".steps | length == 1 and .[0].step == 0 and (.[0].jobs | length) == 2 and .[0].boots == 3" r.json &&
	test "$(q "SELECT string_agg(k.name || \$\$ \$\$ || j.boots, \$\$,\$\$ ORDER BY j.id) FROM jobs j JOIN kernels k ON k.id = j.kernel_id WHERE j.bisect_step_id IS NOT NULL AND j.state = \$\$queued\$\$")" = "tree@$(echo "$bad" | cut -c1-12) 3,tree@$(echo "$good" | cut -c1-12) 3" &&
	test "$(q "SELECT base_ref || \$\$ \$\$ || build_mode FROM kernels WHERE name = \$\$tree@$(echo "$bad" | cut -c1-12)\$\$")" = "$bad incremental" &&
	schedfarm bisect cancel 3 >/dev/null &&
	! schedfarm bisect --tree tree --good "$bad" --bad "$good" --plan p.yaml \
		--host vm --metric round_trip_us 2>err && grep_or_fail "holds no commit" err
'

test_expect_success 'names that do not exist and bad usage' '
	! schedfarm bisect show 99 2>err && grep_or_fail "no bisection 99" err &&
	! schedfarm bisect cancel 99 2>err && grep_or_fail "no bisection 99" err &&
	! schedfarm bisect 42 2>err && grep_or_fail "no patch PLM#42" err &&
	! schedfarm patch show 42 2>err && grep_or_fail "no patch PLM#42" err &&
	schedfarm bisect 2>err; test $? = 2 &&
	schedfarm bisect --tree /x --good a 2>err; test $? = 2 &&
	grep_or_fail "a range needs --tree, --good and --bad" err &&
	schedfarm bisect 1 --max-boots 2 2>err; test $? = 2 &&
	schedfarm bisect 1 --metric jain_index 2>err; test $? = 1 &&
	grep_or_fail "PLM#1 has no job yet: nothing was measured to bisect" err
'

test_done
