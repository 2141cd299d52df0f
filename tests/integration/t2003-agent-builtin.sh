#!/bin/sh
# t2003: the built-in workloads each run for real, briefly, and report what
# the issue asks of them: memchunk records/s (short and long), pipe-pingpong
# time per round trip, switches and perf counters (unsupported ones said
# so, never 0), chat messages/s on loopback, numa-bw per-job figures; and a
# workload placed in a cgroup runs there.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

run() {
	printf "%s" "$1" | "$AGENT_BIN" run - >"$2" 2>"$2.err" ||
		{ cat "$2" "$2.err"; return 1; }
	tail -n 1 "$2" | jq -e ".type == \"done\" and .status == \"ok\"" >/dev/null ||
		{ cat "$2"; return 1; }
}
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\")][0].value" "$2"
}
positive() {
	awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }' || { echo "not positive: $1"; return 1; }
}

test_expect_success 'memchunk: records/s from short and long threads' '
	run "{\"run_id\":1,\"workload\":\"memchunk\",\"params\":{\"duration\":\"1s\",\"short_threads\":2,\"long_threads\":1}}" mc &&
	positive "$(metric records_per_s mc)" &&
	positive "$(metric records_per_s.short mc)" &&
	positive "$(metric records_per_s.long mc)" &&
	# short threads sleep 9 ms every 2800 records: well below a long one
	awk -v s="$(metric records_per_s.short mc)" -v l="$(metric records_per_s.long mc)" "BEGIN { exit !(s / 2 < l) }"
'

test_expect_success 'memchunk with a 0 sleep makes short threads as fast as long' '
	run "{\"run_id\":1,\"workload\":\"memchunk\",\"params\":{\"duration\":\"1s\",\"short_threads\":1,\"long_threads\":0,\"sleep_us\":0}}" mc0 &&
	positive "$(metric records_per_s.short mc0)" &&
	test "$(metric records_per_s.long mc0)" = 0
'

test_expect_success 'pipe-pingpong: round trips, two switches each, counters' '
	run "{\"run_id\":2,\"workload\":\"pipe-pingpong\",\"params\":{\"round_trips\":20000,\"pin_cpu\":0}}" pp &&
	positive "$(metric round_trip_us pp)" &&
	awk -v c="$(metric context_switches_per_round_trip pp)" "BEGIN { exit !(c >= 1.9 && c <= 2.5) }" &&
	awk -v c="$(metric perf.context-switches pp)" "BEGIN { exit !(c >= 38000) }" &&
	for c in instructions cycles branches branch-misses cache-misses; do
		if "$AGENT_BIN" info | jq -e ".perf[\"$c\"] == \"supported\"" >/dev/null; then
			positive "$(metric perf.$c pp)" || return 1
		else
			test "$(metric perf.$c pp)" = null &&
			jq -e -s "[.[] | select(.type == \"counter\" and .source == \"perf\" and .name == \"$c\")][0] | .available == false and (.note | length > 0)" pp || return 1
		fi
	done
'

test_expect_success 'pipe-pingpong refuses a CPU the machine lacks' '
	printf "{\"run_id\":2,\"workload\":\"pipe-pingpong\",\"params\":{\"round_trips\":10,\"pin_cpu\":4000}}" |
		"$AGENT_BIN" run - >ppbad; test $? = 1 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"pin_cpu 4000\")" ppbad &&
	tail -n 1 ppbad | jq -e ".status == \"failed\""
'

test_expect_success 'chat: every message reaches every member of its room' '
	run "{\"run_id\":3,\"workload\":\"chat\",\"params\":{\"rooms\":3,\"users\":4,\"messages\":25,\"message_size\":64}}" ch &&
	test "$(metric messages ch)" = $((3 * 4 * 25 * 4)) &&
	positive "$(metric messages_per_s ch)"
'

test_expect_success 'numa-bw: per job user time and node, totals' '
	run "{\"run_id\":4,\"workload\":\"numa-bw\",\"params\":{\"jobs\":2,\"mem_mb\":32,\"passes\":20}}" nb &&
	positive "$(metric elapsed_s nb)" &&
	positive "$(metric total_user_s nb)" &&
	test "$(metric job0.node nb)" != null && test "$(metric job1.node nb)" != null &&
	positive "$(metric job1.elapsed_s nb)" &&
	awk -v a="$(metric avg_user_s nb)" -v t="$(metric total_user_s nb)" "BEGIN { exit !(a * 2 == t) }"
'

test_expect_success 'warm-up iterations come first and are marked' '
	run "{\"run_id\":5,\"workload\":\"chat\",\"iterations\":2,\"warmup\":1,\"params\":{\"rooms\":1,\"users\":2,\"messages\":5}}" wu &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"messages\")] | map([.iteration, .warmup]) == [[0,true],[1,false],[2,false]]" wu
'

if cgroups_usable; then
test_expect_success 'a workload placed in a cgroup runs there (its usage is counted)' '
	run "{\"run_id\":2003006,\"workload\":\"memchunk\",\"params\":{\"duration\":\"1s\",\"short_threads\":0,\"long_threads\":1,\"cgroup\":\"/foo\"},\"cgroups\":[{\"path\":\"/foo\",\"weight\":50}]}" cg &&
	u=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/foo\")][0].value" cg) &&
	c=$(jq -r -s "[.[] | select(.type == \"counter\" and .scope == \"children\" and (.name == \"user_s\" or .name == \"system_s\"))] | map(.value) | add" cg) &&
	say "cgroup /foo used $u ns; the worker used $c s" &&
	awk -v u="$u" -v c="$c" "BEGIN { exit !(c > 0.1 && u / 1e9 >= 0.8 * c) }"
'
else
	test_skip 'a workload placed in a cgroup runs there' "$CG_WHY"
fi

test_done
