#!/bin/sh
# t3003: the runner under trouble.  The SSH connection killed in the
# middle of a run (the per-connection sshd processes, by pid): the agent
# keeps going, the controller reconnects, fetches the results file and
# ingests every result once.  A hostile agent (a stand-in that prints an
# oversized line, a wrong type, NaN, another run's id) fails its run
# cleanly with the line quoted, stores nothing of it, and the daemon goes
# on with the next job.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/sshd.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"
sshd_prereq || skip_all "$SSHD_SKIP"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
sshd_start sshd >sshd.out 2>&1 || { cat sshd.out; exit 1; }
SSHD_PID=$(cat "$SSHD_DIR/sshd.jobpid")
cat >"$SCRATCH/long.yaml" <<'EOPLAN'
name: long
workloads:
  - workload: memchunk
    params:
      short_threads: 1
      long_threads: 1
      duration: 2s
iterations: 3
warmup: 1
EOPLAN

test_expect_success 'an ssh host' '
	schedfarm host add box --kind ssh --address 127.0.0.1 --port "$SSHD_PORT" \
		--user "$SSHD_USER" --key "$SSHD_KEY" --known-hosts "$SSHD_KNOWN_HOSTS" >/dev/null 2>&1
'

test_expect_success 'a run that is not interrupted, for reference' '
	schedfarm run long.yaml --host box --kernel ref >ref.out 2>&1 &&
	grep_or_fail "STP#1: done" ref.out &&
	schedfarm results 1 --json | jq "[.[] | .metric + \"/\" + (.iteration | tostring)] | sort" >ref.keys &&
	test "$(jq length ref.keys)" -gt 3
'

"$SCHEDFARM_BIN" run "$SCRATCH/long.yaml" --host box --kernel cut >"$SCRATCH/cut.out" 2>&1 &
RUN_PID=$!
test_atexit "kill $RUN_PID"

test_expect_success 'kill the ssh connection while the agent runs' '
	wait_for "schedfarm job show 2 --json | jq -e \".runs[0].status == \\\"running\\\"\"" 30 &&
	wait_for "test -n \"\$(pgrep -u $SSHD_USER -f \"schedfarm-agent run\")\"" 30 &&
	sleep 1 &&
	privs=$(pgrep -P $SSHD_PID) && test -n "$privs" &&
	users=$(for p in $privs; do pgrep -P $p; done) &&
	kill -KILL $privs $users &&
	pgrep -u $SSHD_USER -f "schedfarm-agent run" >/dev/null
'

test_expect_success 'the job still ends done, having collected the results file' '
	wait_for "! kill -0 $RUN_PID" 120 &&
	grep_or_fail "STP#2: done" cut.out &&
	schedfarm job show 2 --json >j.json &&
	jq -e ".state == \"done\" and .attempts == 1" j.json &&
	jq -r .log j.json >log &&
	grep_or_fail "lost during run" log &&
	jq -e "[.phases[] | select(.phase == \"collect\") | .log | test(\"stream was cut\")] == [true]" j.json
'

test_expect_success 'every result is there, once' '
	schedfarm results 2 --json | jq "[.[] | .metric + \"/\" + (.iteration | tostring)] | sort" >cut.keys &&
	cmp ref.keys cut.keys &&
	schedfarm db psql -- -At -c "SELECT count(*) - count(DISTINCT (run_id, metric, iteration)) FROM results" >d &&
	test "$(cat d)" = 0
'

test_expect_success 're-ingesting the same run changes nothing' '
	RUN=$(jq ".runs[0].run" j.json) &&
	schedfarm db psql -- -At -c "SELECT raw_lines FROM runs WHERE id = $RUN" >lines.jsonl &&
	schedfarm db psql -- -At -c "SELECT count(*) FROM results WHERE run_id = $RUN" >before &&
	schedfarm job ingest $RUN lines.jsonl >out &&
	grep_or_fail "ingested already" out &&
	schedfarm db psql -- -At -c "SELECT count(*) FROM results WHERE run_id = $RUN" >after &&
	cmp before after
'

# A stand-in agent: the real one for everything but `run`, where it says
# hello, one good result, then whatever $SCRATCH/mode asks for, and done.
cat >"$SCRATCH/hostile-agent" <<EOSH
#!/bin/sh
mode=\$(cat "$SCRATCH/mode" 2>/dev/null || echo real)
if [ "\$1" != run ] || [ "\$mode" = real ]; then exec "$AGENT_BIN" "\$@"; fi
id=\$(sed -n 's/.*"run_id":\([0-9]*\).*/\1/p' "\$2")
rf=\$(sed -n 's/.*"results_file":"\([^"]*\)".*/\1/p' "\$2")
say() { printf '%s\n' "\$1"; printf '%s\n' "\$1" >>"\$rf"; }
say '{"type":"hello","run_id":'\$id',"agent_version":"hostile","info":{}}'
say '{"type":"result","run_id":'\$id',"iteration":0,"warmup":true,"metric":"fine","value":1,"unit":"s","direction":"lower"}'
case \$mode in
nan) say '{"type":"result","run_id":'\$id',"iteration":1,"warmup":false,"metric":"m","value":NaN,"unit":"s","direction":"lower"}' ;;
wrongtype) say '{"type":"result","run_id":'\$id',"iteration":1,"warmup":false,"metric":"m","value":"12","unit":"s","direction":"lower"}' ;;
oversized) say '{"type":"result","run_id":'\$id',"iteration":1,"warmup":false,"metric":"'\$(head -c 70000 /dev/zero | tr '\0' x)'","value":1,"unit":"s","direction":"lower"}' ;;
otherrun) say '{"type":"result","run_id":999999,"iteration":1,"warmup":false,"metric":"m","value":1,"unit":"s","direction":"lower"}' ;;
esac
say '{"type":"done","run_id":'\$id',"status":"ok","elapsed_s":0.1,"agent_cpu_s":0}'
EOSH
chmod 755 "$SCRATCH/hostile-agent"
cat >"$SCRATCH/one.yaml" <<'EOPLAN'
name: one
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 1000
      counters: context-switches
iterations: 1
warmup: 1
EOPLAN
echo real >"$SCRATCH/mode"
SCHEDFARM_AGENT=$SCRATCH/hostile-agent "$SCHEDFARM_BIN" serve --jobs 1 >"$SCRATCH/serve.log" 2>&1 &
SERVE_PID=$!
test_atexit "kill $SERVE_PID"

test_expect_success 'a local host and a serve whose agent turns hostile on demand' '
	SCHEDFARM_AGENT=$SCRATCH/hostile-agent schedfarm host add here --kind local >/dev/null 2>&1 &&
	wait_for "grep -q \"serve ready\" serve.log" 30
'

# hostile MODE EXPECT: queue a job, wait for it to fail, check the error.
hostile() {
	echo "$1" >mode &&
	schedfarm rerun one.yaml --host here --kernel hostile --json >h.json &&
	J=$(jq .job h.json) &&
	wait_for "schedfarm job show $J --json | jq -e \".state == \\\"failed\\\"\"" 60 &&
	schedfarm job show $J --json >hj.json &&
	jq -e ".error_phase == \"run\" and .runs[0].status == \"failed\" and .runs[0].results == 0" hj.json &&
	jq -r ".runs[0].error" hj.json >why &&
	grep_or_fail "bad agent line for run" why &&
	grep_or_fail "$2" why &&
	jq -r .error hj.json | grep -q "bad agent line" &&
	kill -0 $SERVE_PID
}

test_expect_success 'NaN fails the run, quoting the line' '
	hostile nan ":NaN," &&
	grep_or_fail "unexpected character" why
'

test_expect_success 'a string where a number belongs fails the run' '
	hostile wrongtype "\"value\": expected a number, got a string \"12\""
'

test_expect_success 'an oversized line fails the run, quoted in part' '
	hostile oversized "over the 65536-byte limit" &&
	grep_or_fail "(7" why &&
	test "$(wc -c <why)" -lt 2000
'

test_expect_success 'a line of another run fails the run' '
	hostile otherrun "not this run"
'

test_expect_success 'nothing of a failed run is stored, and the raw lines are kept' '
	schedfarm db psql -- -At -c "SELECT count(*) FROM results x JOIN runs r ON r.id = x.run_id WHERE r.status <> \$\$done\$\$" >n &&
	test "$(cat n)" = 0 &&
	schedfarm db psql -- -At -c "SELECT count(*) FROM runs WHERE status = \$\$failed\$\$ AND raw_lines LIKE \$\$%hostile%\$\$" >n &&
	test "$(cat n)" = 4
'

test_expect_success 'the same daemon then runs a good job' '
	echo real >mode &&
	schedfarm rerun one.yaml --host here --kernel good --json >g.json &&
	J=$(jq .job g.json) &&
	wait_for "schedfarm job show $J --json | jq -e \".state == \\\"done\\\"\"" 60 &&
	schedfarm results $J --json | jq -e "length > 0"
'

test_expect_success 'cancelling a running job stops it and frees the host' '
	schedfarm rerun long.yaml --host here --kernel cancelme --json >c.json &&
	J=$(jq .job c.json) &&
	wait_for "schedfarm job show $J --json | jq -e \".runs[0].status == \\\"running\\\"\"" 30 &&
	schedfarm job cancel $J >out && grep_or_fail "cancelled" out &&
	wait_for "schedfarm host show here --json | jq -e \".state == \\\"idle\\\"\"" 20 &&
	schedfarm job show $J --json >cj.json &&
	# The run stopped by the cancel is aborted with nothing stored; one
	# that finished before the cancel was seen is kept, as every
	# finished run is.
	jq -e ".state == \"cancelled\" and ((.runs[0].status == \"aborted\" and .runs[0].results == 0) or (.runs[0].status == \"done\" and .runs[0].results > 0))" cj.json &&
	jq -r .log cj.json | grep -q "lease lost" &&
	kill -0 $SERVE_PID
'

cat >"$SCRATCH/boots.yaml" <<'EOPLAN'
name: boots
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 1000
      counters: context-switches
iterations: 1
warmup: 0
boots: 2
EOPLAN

test_expect_success 'boots on a host that does not boot: repetitions, one run phase' '
	schedfarm rerun boots.yaml --host here --kernel b2 --json >b.json &&
	J=$(jq .job b.json) &&
	wait_for "schedfarm job show $J --json | jq -e \".state == \\\"done\\\"\"" 60 &&
	schedfarm job show $J --json >bj.json &&
	jq -e "[.runs[].boot] == [0, 1] and all(.runs[]; .status == \"done\")" bj.json &&
	jq -e "[.phases[].phase] == [\"build\", \"boot\", \"run\", \"collect\", \"ingest\"]" bj.json
'

test_done
