#!/bin/sh
# t4004: the new parts of the plan language through the queue, with a real
# PostgreSQL, a local host and the real agent: `run --set` overrides are
# checked like the file, stored with the job (jobs.plan_set) and used by
# it; `rerun` repeats them and may add more; `submit --set` with a bad
# value queues nothing; a together: plan runs its members at once and its
# results arrive under the members' names; a plan including a command
# workload from a shared file runs it; the report's run page shows the
# members' elapsed times side by side.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

H=$SCRATCH/home
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

test_expect_success 'a local host' '
	schedfarm host add here --kind local >out 2>err &&
	grep_or_fail "host here added (local)" out
'

test_expect_success 'run --set: the overrides are used and kept with the job' '
	schedfarm run "$TOP/plans/smoke.yaml" --host here --kernel k1 \
		--set params.duration=2s --set "workloads[1].params.round_trips=3000" \
		--set iterations=1 >run.out 2>&1 &&
	J=$(q "SELECT max(id) FROM jobs") && echo "$J" >job1 &&
	test "$(q "SELECT array_to_string(plan_set, \$\$|\$\$) FROM jobs WHERE id = $J")" = \
		"params.duration=2s|workloads[1].params.round_trips=3000|iterations=1" &&
	test "$(q "SELECT state FROM jobs WHERE id = $J")" = done &&
	test "$(q "SELECT params->>\$\$duration\$\$ FROM runs WHERE job_id = $J AND workload = \$\$memchunk\$\$")" = 2s &&
	test "$(q "SELECT params->>\$\$round_trips\$\$ FROM runs WHERE job_id = $J AND workload = \$\$pipe-pingpong\$\$")" = 3000 &&
	test "$(q "SELECT count(DISTINCT iteration) FROM results r JOIN runs u ON u.id = r.run_id WHERE u.job_id = $J AND NOT r.warmup")" = 1
'

test_expect_success 'job show says the overrides, in text and JSON' '
	J=$(cat job1) &&
	schedfarm job show "$J" --json | jq -e ".set == [\"params.duration=2s\", \"workloads[1].params.round_trips=3000\", \"iterations=1\"]" &&
	schedfarm job show "$J" >show &&
	grep_wrapped_or_fail "plan smoke (--set params.duration=2s --set workloads[1].params.round_trips=3000 --set iterations=1), host here" show
'

test_expect_success 'rerun repeats the overrides, and --set adds more after them' '
	J=$(cat job1) &&
	schedfarm rerun "$J" --host here --set params.duration=3s --json >r.json &&
	R=$(jq .job r.json) &&
	test "$(q "SELECT array_to_string(plan_set, \$\$|\$\$) FROM jobs WHERE id = $R")" = \
		"params.duration=2s|workloads[1].params.round_trips=3000|iterations=1|params.duration=3s" &&
	test "$(q "SELECT plan_id FROM jobs WHERE id = $R")" = "$(q "SELECT plan_id FROM jobs WHERE id = $J")" &&
	schedfarm run >run2.out 2>&1 &&
	test "$(q "SELECT params->>\$\$duration\$\$ FROM runs WHERE job_id = $R AND workload = \$\$memchunk\$\$")" = 3s &&
	test "$(q "SELECT params->>\$\$round_trips\$\$ FROM runs WHERE job_id = $R AND workload = \$\$pipe-pingpong\$\$")" = 3000
'

test_expect_success 'a bad --set is refused like a bad file, and nothing is queued' '
	n=$(q "SELECT count(*) FROM jobs") &&
	printf "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" >p.patch &&
	! schedfarm submit p.patch --base b0 --plan "$TOP/plans/smoke.yaml" \
		--set params.duration=ten 2>err &&
	grep_or_fail "smoke.yaml: error: --set params.duration=ten: workloads[0].params.duration: expected a duration" err &&
	! schedfarm rerun "$(cat job1)" --host here --set boot=2 2>err2 &&
	grep_or_fail "--set boot=2: plan: unknown key '"'"'boot'"'"'" err2 &&
	test "$(q "SELECT count(*) FROM jobs")" = "$n"
'

test_expect_success 'a together plan through the queue: members at once, results by name' '
	cat >tg.yaml <<-\EOF &&
	name: two-hogs
	iterations: 1
	warmup: 0
	cgroups:
	  - {path: /a, weight: 100}
	  - {path: /b, weight: 100}
	workloads:
	  - together:
	      - {name: a, workload: cpu-hog, params: {tasks: 3, duration: 2s, cgroup: /a}}
	      - {name: b, workload: cpu-hog, params: {tasks: 1, duration: 2s, cgroup: /b}}
	    sample_interval: 500ms
	metrics:
	  elapsed_ratio: {direction: lower, decides: true}
	  "share.*": {direction: none}
	timeouts: {run: 1m}
	EOF
	schedfarm run tg.yaml --host here --kernel k1 >run3.out 2>&1 &&
	J=$(q "SELECT max(id) FROM jobs") && echo "$J" >job3 &&
	test "$(q "SELECT state FROM jobs WHERE id = $J")" = done &&
	test "$(q "SELECT workload || \$\$ \$\$ || (params->>\$\$a\$\$) || \$\$ \$\$ || (params->>\$\$b.tasks\$\$) FROM runs WHERE job_id = $J")" = "together cpu-hog 1" &&
	q "SELECT metric FROM results r JOIN runs u ON u.id = r.run_id WHERE u.job_id = $J ORDER BY metric" >metrics &&
	for m in a.cpu_pct b.cpu_pct elapsed_s.a elapsed_s.b elapsed_ratio share.a share.b jain_index; do
		grep -qx "$m" metrics || { echo "no $m"; cat metrics; return 1; }
	done &&
	test "$(q "SELECT count(*) FROM samples s JOIN runs u ON u.id = s.run_id WHERE u.job_id = $J AND s.series = \$\$cpu_pct.a\$\$")" -ge 3
'

test_expect_success 'an included command workload through the queue' '
	mkdir -p cmdplan/workloads &&
	printf "#!/bin/sh\necho \"{\\\\\"ops\\\\\": 41.5}\"\necho \"{\\\\\"ops\\\\\": 42.5}\"\n" >cmdplan/ops.sh &&
	chmod 755 cmdplan/ops.sh &&
	cat >cmdplan/workloads/ops.yaml <<-EOF &&
	name: ops
	command: ["$SCRATCH/cmdplan/ops.sh"]
	parse: {format: jsonl}
	metrics: {ops_per_s: {key: ops, unit: 1/s, direction: higher}}
	EOF
	printf "include: [workloads/ops.yaml]\nworkload: ops\niterations: 2\nwarmup: 0\n" >cmdplan/plan.yaml &&
	schedfarm run cmdplan/plan.yaml --host here --kernel k1 >run4.out 2>&1 &&
	J=$(q "SELECT max(id) FROM jobs") &&
	test "$(q "SELECT state FROM jobs WHERE id = $J")" = done &&
	test "$(q "SELECT string_agg(value::text, \$\$,\$\$ ORDER BY iteration) FROM results r JOIN runs u ON u.id = r.run_id WHERE u.job_id = $J AND r.metric = \$\$ops_per_s\$\$")" = "42.5,42.5" &&
	q "SELECT body FROM plans p JOIN jobs j ON j.plan_id = p.id WHERE j.id = $J" >body &&
	grep_or_fail "--- # schedfarm include: workloads/ops.yaml" body
'

test_expect_success 'the run page shows the members side by side' '
	J=$(cat job3) &&
	RUN=$(q "SELECT id FROM runs WHERE job_id = $J") &&
	schedfarm report --out "$SCRATCH/report" >rep.out 2>&1 &&
	P="$SCRATCH/report/run-$RUN.html" &&
	grep_or_fail "Together" "$P" &&
	grep_or_fail "a: elapsed (s)" "$P" && grep_or_fail "b: elapsed (s)" "$P" &&
	grep_or_fail "a: CPU share (%)" "$P" &&
	ls "$SCRATCH/report" | grep -q "together" ||
		{ echo "no together data file"; ls "$SCRATCH/report" | head; return 1; }
'

test_expect_success 'a workload whose output gives no metric fails in run, not ingest, said once per place' '
	cat >hello.yaml <<-\EOF &&
	name: hello
	commands:
	  hello:
	    command: [echo, "hello: world"]
	    parse:
	      format: regex
	      patterns:
	        - "value: (?<value>[0-9.]+)"
	    metrics:
	      value: {unit: s, direction: lower}
	workload: hello
	iterations: 1
	warmup: 0
	EOF
	! schedfarm run hello.yaml --host here >hello.out 2>&1 &&
	J=$(q "SELECT max(id) FROM jobs") &&
	schedfarm job show "$J" --json >h.json &&
	jq -e ".error_phase == \"run\"" h.json &&
	jq -e "[.phases[] | select(.phase == \"ingest\")][0].status == \"ok\"" h.json &&
	jq -e "[.phases[] | select(.phase == \"collect\")][0].log | test(\"no value\") | not" h.json &&
	schedfarm job show "$J" >h.txt &&
	grep_wrapped_or_fail "failed (run: 1 of 1 runs failed" h.txt &&
	test "$(grep -c "no value for metric" h.txt)" -le 4 &&
	! grep -q "run [0-9]*: run [0-9]*:" h.txt &&
	! grep -q "(ingest)" h.txt
'

test_done
