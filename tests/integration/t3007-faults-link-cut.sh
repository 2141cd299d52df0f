#!/bin/sh
# t3007: a silent network drop under a running agent.  The SSH host lives
# in a network namespace of its own; its link is set down in the middle
# of a run.  Down for 30 s and then up: the stall detector (no line and no
# keepalive answer for timeouts.stall, 20 s by default) gives the
# connection up, the runner gets back in once the link is up, finds the
# agent still at work, waits for it and fetches its results file: the run
# completes with every result once.  Down for good: the run fails with
# "connection lost" well before its deadline (an hour), within the stall
# limit and the reconnect window after it (goal: 60 s after the cut; the
# time is printed), the job ends failed in phase run with that reason,
# and the host is released.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/sshd.sh"
. "$TOP/tests/lib/netns.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"
sshd_prereq || skip_all "$SSHD_SKIP"
netns_prereq || skip_all "$NETNS_SKIP"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
netns_make cut >ns.out 2>&1 || { cat ns.out; exit 1; }
netns_sshd_start cut >sshd.out 2>&1 || { cat sshd.out; exit 1; }

# About 45 s of a workload that sleeps most of the time (one thread that
# writes a record and sleeps 100 ms), its results at the end of each
# 15 s iteration: a run long enough to outlive a 30 s cut.  The run's
# own limit stays at its default (an hour).
cat >"$SCRATCH/long.yaml" <<'EOPLAN'
name: cut
workloads:
  - workload: memchunk
    params:
      short_threads: 1
      long_threads: 0
      sleep_every: 1
      sleep_us: 100000
      duration: 15s
iterations: 3
warmup: 0
EOPLAN

test_expect_success 'an ssh host in a network namespace of its own' '
	schedfarm host add far --kind ssh --address "$NS_ADDR" --user "$SSHD_USER" \
		--key "$SSHD_KEY" --known-hosts "$SSHD_KNOWN_HOSTS" >/dev/null 2>&1 &&
	schedfarm host list --json | jq -e "length == 1"
'

# run_cut LABEL: start `schedfarm run` on the plan in the background; its
# pid in RUN_PID, output in LABEL.out; wait until the agent runs there.
run_cut() {
	"$SCHEDFARM_BIN" run "$SCRATCH/long.yaml" --host far --kernel "$1" \
		>"$SCRATCH/$1.out" 2>&1 &
	RUN_PID=$!
	test_atexit "kill $RUN_PID"
	wait_for "test -n \"\$(ip netns exec $NS pgrep -u $SSHD_USER -f \"schedfarm-agent run\")\"" 60
}

test_expect_success 'link down for 30 s mid-run, then up: the run completes' '
	run_cut bounce &&
	sleep 5 &&
	netns_link down && t_cut=$(date +%s) &&
	sleep 30 &&
	netns_link up &&
	say "link down for $(( $(date +%s) - t_cut )) s" &&
	wait_for "! kill -0 $RUN_PID" 180 &&
	cat bounce.out &&
	grep_or_fail "STP#1: done" bounce.out &&
	schedfarm job show 1 --json >j1.json &&
	jq -e ".state == \"done\" and .attempts == 1" j1.json &&
	jq -r .log j1.json >log1 &&
	grep_or_fail "no line and no keepalive answer for" log1 &&
	grep_or_fail "reconnecting to collect the results file" log1 &&
	jq -e "[.phases[] | select(.phase == \"collect\") | .log | test(\"stream was cut\")] == [true]" j1.json
'

test_expect_success 'every result of the cut run is stored, once' '
	RUN=$(jq ".runs[0].run" j1.json) &&
	schedfarm db psql -- -At -c "SELECT raw_lines FROM runs WHERE id = $RUN" >lines.jsonl &&
	jq -c "select(.type == \"result\") | [.metric, .iteration]" lines.jsonl | sort >want &&
	test -s want &&
	test "$(grep -c "" want)" -ge 3 &&
	schedfarm db psql -- -At -c "SELECT json_build_array(metric, iteration) FROM results WHERE run_id = $RUN" |
		jq -c . | sort >got &&
	cmp want got &&
	test "$(sort -u got | wc -l)" = "$(wc -l <got)" &&
	grep -q "\"done\"" lines.jsonl
'

test_expect_success 'link down for good: the run fails with "connection lost", long before its deadline' '
	run_cut gone &&
	sleep 5 &&
	netns_link down && t_cut=$(date +%s) &&
	wait_for "! kill -0 $RUN_PID" 300 &&
	t_fail=$(date +%s) &&
	took=$((t_fail - t_cut)) &&
	say "connection lost reported $took s after the cut (stall limit 20 s, goal <= 60 s)" &&
	cat gone.out &&
	schedfarm job show 2 --json >j2.json &&
	jq -e ".state == \"failed\" and .error_phase == \"run\"" j2.json &&
	jq -r .error j2.json >err2 && cat err2 &&
	grep_or_fail "connection lost to far" err2 &&
	grep_or_fail "no line and no keepalive answer for" err2 &&
	test "$took" -le 60 &&
	schedfarm host show far --json | jq -e ".state == \"idle\" and .lease_owner == null"
'

test_expect_success 'the agent of the lost run ends on its own once the link is back' '
	netns_link up &&
	wait_for "test -z \"\$(ip netns exec $NS pgrep -u $SSHD_USER -f \"schedfarm-agent run\")\"" 120
'

test_done
