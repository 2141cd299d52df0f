#!/bin/sh
# t2011: schbench, the agent's own (issue 32).  Run by the agent alone it
# reports wake-up and request latency p50/p90/p99/p99.9 in microseconds
# (lower better), in order, and requests/s (higher better); its test mode
# (test_sleep_us) checks the percentiles against a known distribution:
# every request sleeps 2000 us, so the request p50 is at least that and
# within 25% above it (timer slack and wake-ups on a loaded machine; the
# histogram is within 1% of the truth), p99 is not below p50, and the
# workers (4, each one request per 2 ms) do at most 2000 requests/s and
# at least 60% of it.  An rps target is met; pipe mode runs; bad params
# are refused before anything runs; a placed workload runs in its
# cgroup.  Then a plan of it runs on the local host under two kernel
# labels through `schedfarm run` (two "boots" each: repetitions on a local
# host): its nine metrics are stored and `schedfarm compare` judges each
# with its direction on two observations a side.
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
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\" and .warmup == false)][0].value" "$2"
}
# ordered FILE KIND: KIND's p50 <= p90 <= p99 <= p99.9, all > 0
ordered() {
	awk -v a="$(metric "$2"_p50_us "$1")" -v b="$(metric "$2"_p90_us "$1")" \
		-v c="$(metric "$2"_p99_us "$1")" -v d="$(metric "$2"_p999_us "$1")" \
		"BEGIN { exit !(a > 0 && a <= b && b <= c && c <= d) }" ||
		{ echo "$2 percentiles out of order:"; grep "$2_p" "$1"; return 1; }
}

METRICS="wakeup_p50_us wakeup_p90_us wakeup_p99_us wakeup_p999_us request_p50_us request_p90_us request_p99_us request_p999_us rps"

test_expect_success 'schbench reports the nine metrics, in order, with units and directions' '
	run "{\"run_id\":2011001,\"workload\":\"schbench\",\"params\":{\"duration\":\"2s\",\"warmup\":\"500ms\",\"message_threads\":2,\"workers\":2,\"work_us\":50}}" sb &&
	for m in $METRICS; do
		test "$(metric $m sb)" != null || { echo "no $m"; return 1; }
	done &&
	ordered sb wakeup && ordered sb request &&
	jq -e -s "[.[] | select(.type == \"result\" and (.metric | test(\"_us$\")))] | length == 8 and all(.unit == \"us\" and .direction == \"lower\")" sb &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"rps\")] | length == 1 and all(.unit == \"1/s\" and .direction == \"higher\" and .value > 0)" sb &&
	say "schbench 2x2, 50 us of work: wake-up p50 $(metric wakeup_p50_us sb) us p99 $(metric wakeup_p99_us sb) us; request p50 $(metric request_p50_us sb) us p99 $(metric request_p99_us sb) us; $(metric rps sb) requests/s"
'

# The work is a busy loop calibrated to work_us at the start: one worker
# alone takes about that long per request (loosely: the machine is shared).
test_expect_success 'work_us is calibrated: one worker with 1000 us of work per request' '
	run "{\"run_id\":2011008,\"workload\":\"schbench\",\"params\":{\"duration\":\"1s\",\"message_threads\":1,\"workers\":1,\"work_us\":1000}}" wk &&
	p50=$(metric request_p50_us wk) && say "1000 us of work: request p50 $p50 us" &&
	awk -v p="$p50" "BEGIN { exit !(p >= 500 && p <= 20000) }"
'

test_expect_success 'test mode: requests of a known 2000 us give p50 in [2000, 2500], p99 >= p50, rps about workers/sleep' '
	run "{\"run_id\":2011002,\"workload\":\"schbench\",\"params\":{\"duration\":\"3s\",\"warmup\":\"500ms\",\"message_threads\":1,\"workers\":4,\"test_sleep_us\":2000}}" ts &&
	p50=$(metric request_p50_us ts) && p99=$(metric request_p99_us ts) &&
	rps=$(metric rps ts) && w50=$(metric wakeup_p50_us ts) &&
	say "4 workers sleeping 2000 us per request: request p50 $p50 us, p99 $p99 us, $rps requests/s (at most 2000), wake-up p50 $w50 us" &&
	awk -v p="$p50" "BEGIN { exit !(p >= 2000 && p <= 2500) }" &&
	awk -v a="$p50" -v b="$p99" "BEGIN { exit !(b >= a) }" &&
	awk -v r="$rps" "BEGIN { exit !(r >= 0.6 * 4 / 0.002 && r <= 1.01 * 4 / 0.002) }" &&
	awk -v w="$w50" -v p="$p50" "BEGIN { exit !(w > 0 && w < p) }" &&
	ordered ts request
'

test_expect_success 'an rps target is met, spread over the message threads' '
	run "{\"run_id\":2011003,\"workload\":\"schbench\",\"params\":{\"duration\":\"2s\",\"message_threads\":2,\"workers\":2,\"work_us\":20,\"rps\":400}}" rp &&
	r=$(metric rps rp) && say "target 400 requests/s: $r" &&
	awk -v r="$r" "BEGIN { exit !(r >= 360 && r <= 440) }"
'

test_expect_success 'pipe mode passes its bytes per request and reports the same metrics' '
	run "{\"run_id\":2011004,\"workload\":\"schbench\",\"params\":{\"duration\":\"1s\",\"message_threads\":1,\"workers\":2,\"work_us\":10,\"pipe\":65536}}" pi &&
	ordered pi wakeup && ordered pi request &&
	awk -v r="$(metric rps pi)" "BEGIN { exit !(r > 0) }"
'

test_expect_success 'a warm-up as long as the duration, and too many workers, are refused' '
	printf "{\"run_id\":2011005,\"workload\":\"schbench\",\"params\":{\"duration\":\"1s\",\"warmup\":\"1s\"}}" |
		"$AGENT_BIN" run - >bad1; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0] | .field == \"params.warmup\"" bad1 &&
	tail -n 1 bad1 | jq -e ".status == \"bad-spec\"" &&
	printf "{\"run_id\":2011006,\"workload\":\"schbench\",\"params\":{\"message_threads\":64,\"workers\":64}}" |
		"$AGENT_BIN" run - >bad2; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0] | .field == \"params.workers\" and (.message | test(\"at most 2048\"))" bad2
'

if [ "$(id -u)" = 0 ] && [ "$("$AGENT_BIN" info | jq -r ".cgroup.used // \"none\"")" != none ]; then
test_expect_success 'schbench placed in a cgroup runs there (its usage is counted)' '
	run "{\"run_id\":2011007,\"workload\":\"schbench\",\"params\":{\"duration\":\"1s\",\"message_threads\":1,\"workers\":2,\"cgroup\":\"/sb\"},\"cgroups\":[{\"path\":\"/sb\",\"weight\":100}]}" cg &&
	u=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/sb\")][0].value" cg) &&
	c=$(jq -r -s "[.[] | select(.type == \"counter\" and .scope == \"children\" and (.name == \"user_s\" or .name == \"system_s\"))] | map(.value) | add" cg) &&
	say "cgroup /sb used $u ns; the worker used $c s" &&
	awk -v u="$u" -v c="$c" "BEGIN { exit !(c > 0.1 && u / 1e9 >= 0.8 * c) }"
'
else
	test_skip 'schbench placed in a cgroup runs there' "needs root and a cgroup cpu controller"
fi

# The farm part needs PostgreSQL's server programs for its embedded database.
if ! command -v "$(pg_bindir)/initdb" >/dev/null 2>&1; then
	test_skip 'schbench through schedfarm run, stored and compared' "PostgreSQL server programs not installed (make deps)"
	test_done
fi

export SCHEDFARM_HOME=$SCRATCH/home
embedded_stop_at_exit "$SCHEDFARM_HOME"
q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

cat >sb.yaml <<'EOF'
name: schbench-short
workload: schbench
params:
  message_threads: 1
  workers: 2
  work_us: 50
  duration: 1500ms
  warmup: 500ms
iterations: 1
warmup: 0
boots: 2
metrics:
  wakeup_p99_us: {decides: true}
  request_p99_us: {decides: true}
  rps: {decides: true}
EOF

test_expect_success 'the plan checks and expands with the params the agent takes' '
	schedfarm plan check sb.yaml &&
	schedfarm plan expand --json sb.yaml >x.json &&
	jq -e ".[0].params.message_threads == 1 and .[0].params.rps == 0 and .[0].params.warmup == \"500ms\" and .[0].params.pipe == 0" x.json
'

test_expect_success 'schbench runs on the local host under two kernel labels, twice each; every metric is stored' '
	schedfarm run sb.yaml --host local --kernel sb-base >r1 2>&1 || { cat r1; false; } &&
	schedfarm run sb.yaml --host local --kernel sb-new >r2 2>&1 || { cat r2; false; } &&
	for m in $METRICS; do
		test "$(q "SELECT count(*) FROM results r JOIN runs u ON u.id = r.run_id WHERE u.workload = \$\$schbench\$\$ AND r.metric = \$\$$m\$\$ AND NOT r.warmup AND r.value > 0")" = 4 ||
			{ echo "metric $m not stored 4 times"; return 1; }
	done &&
	test "$(q "SELECT DISTINCT direction FROM results WHERE metric = \$\$rps\$\$")" = higher &&
	test "$(q "SELECT DISTINCT unit || direction FROM results WHERE metric LIKE \$\$%_us\$\$")" = uslower
'

test_expect_success 'schedfarm compare judges each metric with its direction' '
	schedfarm compare --base sb-base --new sb-new --json --no-store >c.json &&
	for m in $METRICS; do
		jq -e --arg m "$m" "[.[] | select(.workload == \"schbench\" and .metric == \$m)] | length == 1 and (.[0] | .n_base == 2 and .n_new == 2 and (.verdict | length > 0))" c.json ||
			{ echo "no comparison row for $m"; cat c.json; return 1; }
	done &&
	jq -e "[.[] | select(.metric == \"rps\")][0].better == \"higher\"" c.json &&
	jq -e "[.[] | select(.metric == \"request_p99_us\")][0].better == \"lower\"" c.json &&
	schedfarm compare --base sb-base --new sb-new >c.txt &&
	grep_or_fail "wakeup_p99_us" c.txt
'

test_done
