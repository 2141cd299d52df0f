#!/bin/sh
# t2013: rt-app with the task set a plan gives inline: the JSON the farm
# writes for it is rt-app's own input (rt-app run on it by hand exits 0 and
# logs every task), the agent's run reports each task's slack, wake-up
# latency, performance index and missed periods, a bad task set is refused
# before anything runs, and plans/rt-periodic.yaml checks and, shortened,
# runs on local twice (the periodic set under a CPU hog in another cgroup,
# cyclictest beside), its metrics stored and compared.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
RTAPP=$(command -v rt-app) || skip_all "rt-app not installed (make deps)"

run() {
	printf "%s" "$1" | "$AGENT_BIN" run - >"$2" 2>"$2.err" ||
		{ cat "$2" "$2.err"; return 1; }
	tail -n 1 "$2" | jq -e ".type == \"done\" and .status == \"ok\"" >/dev/null ||
		{ cat "$2"; return 1; }
}
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\")][0].value" "$2"
}
TASKS='- {name: video, period: 16ms, run: 4ms, policy: fifo, priority: 10}\n- {name: audio, period: 10ms, run: 1ms, instances: 2}\n- {name: ui, period: 33ms, run: 2ms}'
SPEC="{\"run_id\":1,\"workload\":\"rt-app\",\"params\":{\"tasks\":\"$TASKS\",\"duration\":\"2s\"}}"

# rt-app, found first in PATH, keeps a copy of the JSON it was given and
# runs the real rt-app on it (nothing else changes).
mkdir bin &&
cat >bin/rt-app <<EOF2 &&
#!/bin/sh
cp "\$1" "$SCRATCH/given.json"
exec "$RTAPP" "\$@"
EOF2
chmod +x bin/rt-app

test_expect_success 'the JSON the agent writes is read by rt-app itself' '
	PATH="$SCRATCH/bin:$PATH" run "$SPEC" keep &&
	jq -e ".tasks.video.policy == \"SCHED_FIFO\" and .tasks.video.priority == 10 and .tasks.audio.instance == 2 and .tasks.ui.timer.period == 33000 and .global.duration == 2" given.json &&
	mkdir logs &&
	jq ".global.logdir = \"$SCRATCH/logs\" | .global.duration = 1" given.json >again.json &&
	{ "$RTAPP" again.json >rt.out 2>&1 || { cat rt.out; false; }; } &&
	ls logs >l &&
	grep -qx rt-video-0.log l && grep -qx rt-ui-3.log l &&
	test "$(grep -c "^rt-audio-" l)" = 2
'

test_expect_success 'each task: slack, wake-up latency, performance index, missed periods' '
	run "$SPEC" ra &&
	for t in video audio ui; do
		for m in slack_avg_us slack_min_us wakeup_latency_avg_us wakeup_latency_max_us perf_index perf_index_min missed_periods periods; do
			test "$(metric $t.$m ra)" != null || { echo "no $t.$m"; return 1; }
		done
	done &&
	# 2 s of a 16 ms period: about 125 periods
	awk -v p="$(metric video.periods ra)" "BEGIN { exit !(p >= 100 && p <= 126) }" &&
	awk -v p="$(metric audio.periods ra)" "BEGIN { exit !(p >= 300 && p <= 402) }" &&
	# the FIFO task is never late on an idle machine with 2 CPUs
	awk -v i="$(metric video.perf_index ra)" "BEGIN { exit !(i > 0.5 && i <= 1) }" &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"audio.missed_periods\")][0] | .direction == \"lower\"" ra &&
	! ls -d /tmp/schedfarm-rt-app-* 2>/dev/null
'

test_expect_success 'a bad task set is refused before anything runs' '
	printf "%s" "{\"run_id\":2,\"workload\":\"rt-app\",\"params\":{\"tasks\":\"- {name: a, period: 1ms, run: 2ms}\"}}" |
		"$AGENT_BIN" run - >bad; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0] | .field == \"params.tasks\" and (.message | test(\"run is longer than period\"))" bad
'

test_expect_success 'plans/rt-periodic.yaml checks; its task set is refused when bad' '
	schedfarm plan check "$TOP/plans/rt-periodic.yaml" >out &&
	grep_or_fail "rt-periodic.yaml: ok, 2 runs" out &&
	sed "s/policy: fifo, priority: 10/policy: fifo/" "$TOP/plans/rt-periodic.yaml" >bad.yaml &&
	! schedfarm plan check bad.yaml 2>err &&
	grep_or_fail "priority goes with policy fifo or rr" err
'

if command -v "$(pg_bindir)/initdb" >/dev/null 2>&1; then
H=$SCRATCH/home
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

test_expect_success 'rt-periodic, shortened, on local twice: stored and compared' '
	sed -e "s/duration: 20s/duration: 3s/" -e "s/tasks: 4,/tasks: 2,/" \
		-e "s/^iterations: 3/iterations: 1/" -e "s/^warmup: 1/warmup: 0/" \
		-e "/^kernel:/d" -e "/farm-base.config/d" \
		"$TOP/plans/rt-periodic.yaml" >short.yaml &&
	{ schedfarm run short.yaml --host local --kernel ka >o1 2>e1 || { cat o1 e1; false; }; } &&
	{ schedfarm run short.yaml --host local --kernel kb >o2 2>e2 || { cat o2 e2; false; }; } &&
	schedfarm compare --base ka --new kb --json >c.json && test -s c.json &&
	for m in rt.audio.perf_index rt.video.slack_avg_us rt.ui.missed_periods lat.latency_p99_us; do
		jq -e "[.[] | select(.metric == \"$m\")] | length == 2 and all(.[]; .n_base >= 1 and .n_new >= 1)" c.json ||
			{ echo "no two rows of $m"; head -c 2000 c.json; return 1; }
	done &&
	jq -e "[.[] | select(.metric == \"rt.audio.perf_index\")][0].better == \"higher\"" c.json
'
else
	test_skip 'rt-periodic on local' "PostgreSQL server programs not installed (make deps)"
fi

test_done
