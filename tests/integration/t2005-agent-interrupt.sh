#!/bin/sh
# t2005: interruption - SIGTERM, SIGINT, SIGHUP or the spec's deadline end
# a run with a done line saying how, kill every child (built-in workers and
# wrapped programs with their own children), and remove the cgroups made.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
CG_OK=
[ "$(id -u)" = 0 ] && [ "$("$AGENT_BIN" info | jq -r ".cgroup.used // \"none\"")" != none ] && CG_OK=1

# gone PID...: each pid has exited (absent or a zombie awaiting init)
gone() {
	for p in "$@"; do
		st=$(sed -n "s/^State:[[:space:]]*\([A-Z]\).*/\1/p" /proc/$p/status 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] || { echo "pid $p still alive ($st)"; return 1; }
	done
}
# children_of PID: its direct children
children_of() {
	cat /proc/"$1"/task/*/children 2>/dev/null
}

for sn in TERM:15 INT:2 HUP:1; do
sig=${sn%:*} num=${sn#*:}
test_expect_success "SIG$sig ends a run: done interrupted, children killed, cgroups removed" '
	id=20050$num &&
	cg=; [ -n "$CG_OK" ] && cg=",\"cgroups\":[{\"path\":\"/a\"},{\"path\":\"/b\"}]";
	printf "{\"run_id\":$id,\"workload\":\"fairness-loop\",\"params\":{\"groups\":\"/a:2,/b:1\",\"duration\":\"60s\"}$cg}" >spec.json &&
	{ "$AGENT_BIN" run spec.json >out 2>err & } &&
	pid=$! &&
	wait_for "test \$(children_of $pid | wc -w) = 3" 10 &&
	kids=$(echo $(children_of $pid)) &&
	kill -$sig $pid &&
	{ wait $pid; rc=$?; } ;
	test "$rc" = 1 &&
	tail -n 1 out | jq -e ".type == \"done\" and .status == \"interrupted\" and .signal == $num" &&
	gone $kids &&
	test -z "$(ls -d /sys/fs/cgroup/*/schedfarm-$id-* /sys/fs/cgroup/schedfarm-$id-* 2>/dev/null)"
'
done

if command -v sysbench >/dev/null; then
test_expect_success 'the deadline ends a wrapped program: done timeout' '
	printf "{\"run_id\":2005010,\"workload\":\"sysbench\",\"deadline_s\":1,\"iterations\":3,\"params\":{\"test\":\"cpu\",\"time\":\"30s\",\"threads\":2}}" >spec2.json &&
	{ "$AGENT_BIN" run spec2.json >out2 2>err2 & } &&
	pid=$! &&
	wait_for "test -n \"\$(children_of $pid)\"" 10 &&
	kids=$(echo $(children_of $pid)) &&
	{ wait $pid; rc=$?; } ;
	test "$rc" = 1 &&
	tail -n 1 out2 | jq -e ".status == \"timeout\" and .elapsed_s < 5 and (has(\"signal\") | not)" &&
	gone $kids &&
	test "$(jq -s "[.[] | select(.type == \"result\")] | length" out2)" = 0
'

test_expect_success 'SIGTERM kills a wrapped program and what it forked' '
	printf "{\"run_id\":2005011,\"workload\":\"hackbench\",\"params\":{\"groups\":4,\"loops\":10000000}}" >spec3.json &&
	{ "$AGENT_BIN" run spec3.json >out3 2>err3 & } &&
	pid=$! &&
	wait_for "test \$(ps -o pid= --ppid \$(children_of $pid | head -n 1) 2>/dev/null | wc -l) -gt 10" 10 &&
	hb=$(echo $(children_of $pid)) &&
	grand=$(echo $(ps -o pid= --ppid $hb)) &&
	kill -TERM $pid &&
	{ wait $pid; rc=$?; } ;
	test "$rc" = 1 &&
	tail -n 1 out3 | jq -e ".status == \"interrupted\"" &&
	wait_for "gone $hb $grand" 5
'
else
	test_skip 'the deadline ends a wrapped program' "sysbench not installed"
fi

test_expect_success 'the deadline ends a built-in workload: done timeout' '
	printf "{\"run_id\":2005012,\"workload\":\"memchunk\",\"deadline_s\":1,\"params\":{\"duration\":\"30s\",\"short_threads\":1,\"long_threads\":1}}" >spec4.json &&
	"$AGENT_BIN" run spec4.json >out4; test $? = 1 &&
	tail -n 1 out4 | jq -e ".status == \"timeout\" and .elapsed_s < 5"
'

test_done
