#!/bin/sh
# t3004: `run` as a user meets it, on a local host with a real
# PostgreSQL and the real agent: ^C after two runs keeps both with their
# results, cancels the job of `run PLAN` and leaves no ghost in the queue;
# a job taken from the queue goes back there and resumes; a series is
# never run under a label on a host that cannot boot it; a host that can
# never take a plan is refused before anything is queued; --kernel
# defaults to the running release; plan check and run count alike;
# rerun defaults to the job's host; and in an 80-column terminal (tmux)
# the progress is one line per job, never wider than the terminal.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v setsid >/dev/null || skip_all "setsid not installed (util-linux)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
REL=$(uname -r)

# exit_is N CMD...: run CMD; fail unless it exits N.
exit_is() {
	_want=$1
	shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_want" ] || { echo "exit $_rc, not $_want: $*"; return 1; }
}

sql() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

# Six runs of about a second each: ^C lands while the third runs.
cat >slow.yaml <<'EOF'
name: slow
workload: memchunk
params:
  short_threads: 1
  long_threads: 1
  duration: 1s
  chunk_slots: [256, 257, 258, 259, 260, 261]
iterations: 1
warmup: 0
EOF
printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >fix.patch

# done_runs JOB: how many of its runs are stored (status done)
done_runs() {
	sql "SELECT count(*) FROM runs WHERE job_id = $1 AND status = 'done'"
}

# interrupt_after_two LOG: start `schedfarm ARGS...` in its own process
# group (as a terminal's foreground job is), wait until its job has two
# runs stored, then ^C the whole group as a terminal does.
interrupt_after_two() {
	_log=$1
	shift
	setsid "$SCHEDFARM_BIN" "$@" >"$_log" 2>"$_log.err" &
	_pid=$!
	test_atexit "env kill -KILL -- -$_pid"
	wait_for "grep -q \"claimed\" $_log" 30 || { cat "$_log" "$_log.err"; return 1; }
	_job=$(sed -n "s/^STP#\([0-9]*\): claimed.*/\1/p" "$_log")
	wait_for "test \$(done_runs $_job) -ge 2" 60 || { cat "$_log" "$_log.err"; return 1; }
	env kill -INT -- -"$_pid"
	wait "$_pid"
	echo "$?" >"$_log.rc"
	echo "$_job" >"$_log.job"
}

test_expect_success 'setup: a local host' '
	schedfarm host add here --kind local >out 2>err &&
	grep_or_fail "host here added (local)" out
'

test_expect_success '^C after two runs of run PLAN: both stored, job cancelled, no ghost' '
	interrupt_after_two run1.out run slow.yaml --host here &&
	test "$(cat run1.out.rc)" = 1 &&
	J=$(cat run1.out.job) &&
	grep_or_fail "interrupted: cancelled" run1.out &&
	! grep -n "(null)\|lease was lost" run1.out* &&
	schedfarm job show $J --json >j.json &&
	! jq -r ".log" j.json | grep -n "(null)\|lease was lost" &&
	jq -e ".state == \"cancelled\" and (.stop_reason | test(\"interrupted\"))" j.json &&
	jq -e "[.runs[] | select(.status == \"done\")] | length >= 2" j.json &&
	jq -e "all(.runs[] | select(.status == \"done\"); .results > 0)" j.json &&
	jq -e "all(.runs[]; .status == \"done\" or .status == \"aborted\")" j.json &&
	jq -e "[.runs[] | select(.status == \"aborted\") | .error] | all(test(\"cancelled\"))" j.json &&
	schedfarm results $J --json | jq -e "length >= 2" &&
	schedfarm queue --json | jq -e "length == 0" &&
	schedfarm queue --state queued --json | jq -e "length == 0" &&
	schedfarm host show here --json | jq -e ".state == \"idle\""
'

test_expect_success 'run PLAN on a local host labels the running release, and kernel list says so' '
	grep_or_fail "kernel $REL" run1.out &&
	schedfarm kernel list --json >k.json &&
	jq -e --arg r "$REL" "[.[] | select(.name == \$r)][0] | .labelled and .state == \"external\" and .release == \$r" k.json &&
	schedfarm kernel list >k.txt &&
	grep -E "^ *[0-9]+ +labelled .* $REL( |$)" k.txt &&
	schedfarm kernel show "$REL" >ks.txt &&
	grep_or_fail "nothing was built or booted" ks.txt &&
	schedfarm job show $(cat run1.out.job) >js.txt &&
	grep_wrapped_or_fail "$REL is a label for it, nothing was built or booted" js.txt
'

test_expect_success 'a queued job interrupted goes back to the queue and resumes' '
	schedfarm submit fix.patch --base v6.1 --kernel k-resume --plan slow.yaml --host here --json >s.json &&
	J=$(jq .job s.json) &&
	interrupt_after_two run2.out run &&
	test "$(cat run2.out.rc)" = 1 &&
	grep_or_fail "interrupted: back in the queue" run2.out &&
	schedfarm job show $J --json >q.json &&
	jq -e ".state == \"queued\" and .attempts == 0" q.json &&
	KEPT=$(done_runs $J) &&
	schedfarm run >run3.out 2>&1 &&
	schedfarm job show $J --json >d.json &&
	jq -e ".state == \"done\"" d.json &&
	test "$(done_runs $J)" = 6 &&
	jq -e --arg k "$KEPT" ".log | test(\"resuming: \" + \$k + \" of 6 runs were stored by an earlier attempt\")" d.json &&
	schedfarm results $J --json | jq -e "[.[].params.chunk_slots] | unique == [256, 257, 258, 259, 260, 261]"
'

test_expect_success 'a series for a host that cannot boot it needs --kernel' '
	! schedfarm submit fix.patch --base v6.1 --plan slow.yaml --host here 2>err &&
	grep_or_fail "host '\''here'\'' is a local host: it runs its own kernel" err &&
	grep_or_fail "Give --kernel NAME" err &&
	printf "name: only-local\nworkload: memchunk\nhost:\n  kind: local\n" >local.yaml &&
	! schedfarm submit fix.patch --base v6.1 --plan local.yaml 2>err2 &&
	grep_or_fail "runs only on local hosts" err2 &&
	schedfarm queue --json | jq -e "length == 0"
'

test_expect_success 'a series without --kernel is refused when no host could ever boot it' '
	! schedfarm submit fix.patch --base v6.1 --plan slow.yaml 2>err &&
	grep_or_fail "no host that boots kernels is registered (the 1 here run their own)" err &&
	grep_or_fail "add a libvirt, ipmi or redfish host that meets the plan" err &&
	schedfarm queue --json | jq -e "length == 0"
'

test_expect_success 'a series without --kernel waits for a host that boots, never runs on local' '
	# A BMC host, in maintenance (never contacted here), can take it later.
	sql "INSERT INTO hosts (name, kind, address, bmc_address, health) VALUES (\$\$far\$\$, \$\$ipmi\$\$, \$\$192.0.2.1\$\$, \$\$192.0.2.2\$\$, \$\$maintenance\$\$)" &&
	schedfarm submit fix.patch --base v6.1 --plan slow.yaml --json >b.json &&
	J=$(jq .job b.json) &&
	sql "SELECT array_to_string(req_kinds, \$\$,\$\$) FROM jobs WHERE id = $J" >kinds &&
	test "$(cat kinds)" = "libvirt,ipmi,redfish" &&
	exit_is 1 schedfarm run >out 2>err &&
	grep_or_fail "no matching idle host" err &&
	schedfarm job show $J --json | jq -e ".state == \"queued\" and (.runs | length) == 0" &&
	schedfarm job cancel $J >/dev/null &&
	sql "DELETE FROM hosts WHERE name = \$\$far\$\$"
'

test_expect_success 'run refuses a host that can never take the plan, before queueing' '
	printf "name: big\nworkload: memchunk\nhost:\n  min_cpus: 4096\n" >big.yaml &&
	schedfarm plan check big.yaml >/dev/null &&
	N=$(sql "SELECT count(*) FROM jobs") &&
	! schedfarm run big.yaml --host here 2>err &&
	grep_or_fail "the plan big asks for host.min_cpus 4096" err &&
	test "$(sql "SELECT count(*) FROM jobs")" = "$N" &&
	printf "name: tagged\nworkload: memchunk\nhost:\n  tags: [quad]\n" >tag.yaml &&
	! schedfarm run tag.yaml --host here 2>err &&
	grep_or_fail "lacks the tag '\''quad'\''" err &&
	! schedfarm run slow.yaml --host nosuch 2>err &&
	grep_or_fail "no host named '\''nosuch'\''" err
'

test_expect_success 'plan check and run count runs alike' '
	printf "name: two\nworkload: pipe-pingpong\nparams:\n  round_trips: [100, 200, 300]\niterations: 1\nwarmup: 0\nboots: 2\n" >two.yaml &&
	schedfarm plan check two.yaml >pc &&
	grep_or_fail "two.yaml: ok, 6 runs (3 per boot x 2 boots)" pc &&
	schedfarm run two.yaml --host here --kernel k-two >rc.out 2>&1 &&
	grep_or_fail "plan two (6 runs (3 per boot x 2 boots))" rc.out &&
	grep_or_fail "run 6/6" rc.out
'

test_expect_success 'rerun JOB defaults to the host the job ran on' '
	J=$(jq .job s.json) &&
	schedfarm rerun $J --json >r.json &&
	jq -e --argjson j $J ".rerun_of == \$j and .host == \"here\"" r.json &&
	schedfarm job cancel "$(jq .job r.json)" --json | jq -e ".cancelled == true"
'

test_expect_success 'compare --plan takes the plan file, as rerun does' '
	schedfarm compare --base "$REL" --new k-resume --plan slow.yaml --no-store --json >c.json &&
	jq -e "length > 0 and all(.[]; .workload == \"memchunk\")" c.json &&
	jq -e "[.[].params.chunk_slots] | . == (. | sort)" c.json &&
	! schedfarm compare --base "$REL" --new k-resume --plan big.yaml 2>err &&
	grep_or_fail "no job ran the plan big.yaml" err
'

test_expect_success 'results show the params that tell a sweep apart, and filter by them' '
	J=$(jq .job s.json) &&
	schedfarm results $J --metric records_per_s >t.txt &&
	grep_or_fail "PARAMS" t.txt &&
	grep_or_fail "chunk_slots=258" t.txt &&
	! grep -q "records_per_s.long" t.txt &&
	schedfarm results $J --param chunk_slots=259 --json >p.json &&
	jq -e "length > 0 and all(.[]; .params.chunk_slots == 259)" p.json &&
	schedfarm results $J --workload pipe-pingpong >none.txt &&
	grep_or_fail "(no results)" none.txt
'

test_expect_success 'results print each metric to 5 significant digits of its largest value' '
	J=$(jq .job s.json) &&
	schedfarm results $J --metric records_per_s --json >r.json &&
	max=$(jq "[.[].value | length] | max" r.json) &&
	v=$(jq ".[0].value" r.json) &&
	w=$(jq "all(.[]; .value == (.value | floor))" r.json) &&
	want=$(awk -v m="$max" -v v="$v" -v w="$w" "BEGIN { f = log(m) / log(10); fl = int(f); if (f < fl) fl--; d = 4 - fl; if (d < 0 || w == \"true\") d = 0; if (d > 9) d = 9; printf \"%.*f\", d, v }") &&
	schedfarm results $J --metric records_per_s >t2.txt &&
	grep -q " $want " t2.txt || { echo "want $want (max $max, value $v)"; cat t2.txt; false; }
'

# The terminal test: a private tmux server, an 80x24 window, two `run
# PLAN` jobs whose progress lines are far wider than 80 columns uncut.
if command -v tmux >/dev/null 2>&1; then
	TM="tmux -S $SCRATCH/tmux.sock"
	test_atexit "$TM kill-server"
	test_expect_success 'in an 80-column terminal: one progress line per job, none wider' '
		printf "name: wide-params-to-overflow-an-eighty-column-terminal\nworkload: memchunk\nparams:\n  short_threads: 1\n  long_threads: 1\n  duration: 1s\n  sleep_every: 2801\n  sleep_us: 9001\n  chunk_slots: [300, 301, 302]\niterations: 1\nwarmup: 0\n" >wide.yaml &&
		cat >tty.sh <<-EOF &&
		export SCHEDFARM_DB="$SCHEDFARM_DB" SCHEDFARM_HOME="$SCHEDFARM_HOME"
		export SCHEDFARM_AGENT="$SCHEDFARM_AGENT" ASAN_OPTIONS="$ASAN_OPTIONS"
		"$SCHEDFARM_BIN" run "$SCRATCH/wide.yaml" --host here --kernel k-tty-1
		"$SCHEDFARM_BIN" run "$SCRATCH/wide.yaml" --host here --kernel k-tty-2
		echo ALL-DONE
		sleep 600
		EOF
		$TM new-session -d -x 80 -y 24 "sh $SCRATCH/tty.sh" &&
		wait_for "$TM capture-pane -p | grep -q ALL-DONE" 90 &&
		$TM capture-pane -p >screen &&
		cat screen &&
		test "$(grep -c "^STP#[0-9]* run " screen)" = 2 &&
		grep -q "^STP#[0-9]* run 3/3 memchunk .*\\.\\.\\. | [0-9]*s elapsed, ~[0-9]*s left" screen &&
		test "$(grep -c ": done$" screen)" = 2 &&
		awk "length > 80 { print \"wider than 80: \" \$0; bad = 1 } END { exit bad }" screen
	'
else
	test_skip "80-column terminal" "tmux not installed (make deps)"
fi

test_done
