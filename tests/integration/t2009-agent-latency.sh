#!/bin/sh
# t2009: wake-up latency under load, from plans/latency-under-load.yaml
# (shortened with --set): cyclictest (rt-tests) in /lat beside a hackbench
# neighbour in /load reports p50, p99, p99.9 and max latency in
# microseconds from its histogram, in order (p50 <= p99 <= p99.9 <= max,
# all > 0: their shape, not their size, which depends on the machine);
# the neighbour ran until cyclictest ended; perf bench sched messaging and
# pipe give hackbench-style numbers.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v cyclictest >/dev/null || skip_all "cyclictest not installed (rt-tests; make deps)"
command -v hackbench >/dev/null || skip_all "hackbench not installed (rt-tests; make deps)"
# cgroups for the probe and its neighbour: mounted, or the agent's own.
need_cgroups

PLAN=$TOP/plans/latency-under-load.yaml
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\" and .warmup == false)][0].value" "$2"
}

test_expect_success 'the plan, shortened with --set, expands to what the agent takes' '
	schedfarm plan expand --json --set iterations=1 --set warmup=0 \
		--set "workloads[1].together[0].params.duration=3s" \
		--set "workloads[1].together[1].params.loops=200" \
		--set "workloads[3].params.loops=50" "$PLAN" >runs.json &&
	test "$(jq length runs.json)" = 4 &&
	jq -e ".[1].workload == \"together\" and .[1].params[\"lat.duration\"] == \"3s\" and .[1].params[\"load.background\"] == true" runs.json &&
	jq -c ".[1].spec + {run_id: 2009001, parent_weight: 10000}" runs.json >lat.json &&
	jq -c ".[3].spec + {run_id: 2009002}" runs.json >pb.json
'

test_expect_success 'cyclictest beside a hackbench neighbour: p50 <= p99 <= p99.9 <= max, in us' '
	"$AGENT_BIN" run lat.json >lat 2>err &&
	tail -n 1 lat | jq -e ".status == \"ok\"" &&
	p50=$(metric lat.latency_p50_us lat) && p99=$(metric lat.latency_p99_us lat) &&
	p999=$(metric lat.latency_p999_us lat) && max=$(metric lat.latency_max_us lat) &&
	say "wake-up latency under hackbench: p50 $p50 us, p99 $p99 us, p99.9 $p999 us, max $max us" &&
	awk -v a="$p50" -v b="$p99" -v c="$p999" -v d="$max" \
		"BEGIN { exit !(a > 0 && a <= b && b <= c && c <= d) }" &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"lat.latency_p99_us\")][0] | .unit == \"us\" and .direction == \"lower\"" lat &&
	test "$(metric lat.samples lat)" -gt 1000 &&
	awk -v n="$(metric cpu_pct.load lat)" "BEGIN { exit !(n > 10) }" &&
	test "$(metric load.passes lat)" != null
'

if command -v perf >/dev/null && perf bench sched pipe -l 10 >/dev/null 2>&1; then
test_expect_success 'perf bench sched messaging and pipe: a second hackbench source' '
	"$AGENT_BIN" run pb.json >pb 2>err &&
	tail -n 1 pb | jq -e ".status == \"ok\"" &&
	awk -v t="$(metric time_s pb)" "BEGIN { exit !(t > 0) }" &&
	printf "{\"run_id\":2009003,\"workload\":\"perf-bench-sched\",\"params\":{\"bench\":\"pipe\",\"loops\":20000}}" >pipe.json &&
	"$AGENT_BIN" run pipe.json >pipe 2>err &&
	awk -v u="$(metric usecs_per_op pipe)" -v o="$(metric ops_per_s pipe)" -v t="$(metric time_s pipe)" \
		"BEGIN { exit !(u > 0 && o > 0 && t > 0 && (u * o / 1e6 - 1) ^ 2 < 0.01) }"
'
else
	test_skip 'perf bench sched messaging and pipe' "perf not installed or not allowed here (linux-perf; make deps)"
fi

test_done
