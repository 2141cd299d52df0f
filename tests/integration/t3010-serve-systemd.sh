#!/bin/sh
# t3010: `schedfarm serve` as a systemd service.  The unit `make install`
# writes passes `systemd-analyze verify` and rates at most 4.5 in
# `systemd-analyze security --offline=yes`; serve started with the unit's
# own ExecStart (argv as written there, NOTIFY_SOCKET naming a socket this
# test listens on, stderr a stream JOURNAL_STREAM names) says READY=1 once
# it listens, logs with syslog priority prefixes, and on SIGTERM says
# STOPPING=1, sends its running job back to the queue and exits 0 well
# within the unit's stop timeout.  A job process that cannot stop (here:
# SIGSTOPped) is killed at --stop-timeout and its job requeued too.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"
command -v systemd-analyze >/dev/null ||
	skip_all "systemd-analyze not installed (package systemd: make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME="$SCRATCH/home"

# A plan whose one run lasts long enough to be caught running.
cat >"$SCRATCH/long.yaml" <<'EOF'
name: long
workloads:
  - workload: memchunk
    params:
      short_threads: 1
      long_threads: 1
      duration: 60s
iterations: 1
warmup: 0
boots: 1
timeouts:
  run: 5m
EOF

# The unit as `make install` writes it, naming a bin folder of this test
# whose schedfarm is the build under test.
mkdir -p "$SCRATCH/bin" "$SCRATCH/man/man1"
ln -s "$SCHEDFARM_BIN" "$SCRATCH/bin/schedfarm"
cp "$TOP/doc/schedfarm.1" "$SCRATCH/man/man1/"

test_expect_success 'make writes the unit with BINDIR filled in' '
	make -s -C "$TOP" B="$SCRATCH/b" BINDIR="$SCRATCH/bin" unit >make.out 2>&1 &&
	UNIT=$SCRATCH/b/schedfarm.service &&
	grep_or_fail "ExecStart=$SCRATCH/bin/schedfarm serve" "$UNIT" &&
	grep_or_fail "Type=notify" "$UNIT" &&
	grep_or_fail "Restart=on-failure" "$UNIT" &&
	grep_or_fail "ProtectSystem=strict" "$UNIT" &&
	grep_or_fail "PrivateTmp=yes" "$UNIT" &&
	grep_or_fail "StateDirectory=schedfarm" "$UNIT" &&
	! grep -n "@[A-Z]*@" "$UNIT"
'

test_expect_success 'the unit passes systemd-analyze verify, without a word' '
	MANPATH=$SCRATCH/man systemd-analyze verify "$SCRATCH/b/schedfarm.service" >verify.out 2>&1 ||
		{ cat verify.out; false; }
	test ! -s verify.out || { cat verify.out; false; }
'

# The unit's confinement, as systemd rates it from the file alone
# (--offline, systemd 250 on: no service manager needed); the unit's
# comment says what is left and why.
if systemd-analyze --help 2>&1 | grep -q -- "--offline"; then
	test_expect_success 'systemd-analyze security rates the unit at most 4.5' '
		systemd-analyze security --offline=yes "$SCRATCH/b/schedfarm.service" >security.out 2>&1 &&
		score=$(sed -n "s/.*Overall exposure level for schedfarm.service: \([0-9.]*\) .*/\1/p" security.out) &&
		test -n "$score" &&
		say "systemd-analyze security --offline=yes: $score" &&
		awk -v s="$score" "BEGIN { exit !(s <= 4.5) }" ||
			{ cat security.out; false; }
	'
else
	test_skip "systemd-analyze security rates the unit at most 4.5" \
		"this systemd-analyze has no --offline (systemd before 250): it cannot rate a unit file"
fi

if [ -x "$TOP/controller/schedfarm" ] && [ -x "$TOP/agent/schedfarm-agent" ]; then
	test_expect_success 'make install puts the unit in PREFIX/lib/systemd/system' '
		make -s -C "$TOP" PREFIX=/usr/local DESTDIR="$SCRATCH/inst" \
			install >inst.out 2>&1 || { cat inst.out; false; }
		grep -q "^ExecStart=/usr/local/bin/schedfarm serve" \
			"$SCRATCH/inst/usr/local/lib/systemd/system/schedfarm.service" &&
		test -x "$SCRATCH/inst/usr/local/bin/schedfarm" &&
		test -x "$SCRATCH/inst/usr/local/bin/schedfarm-agent"
	'
else
	test_skip "make install puts the unit in PREFIX/lib/systemd/system" \
		"no controller/schedfarm here to install (make)"
fi

# The notify socket the service manager would listen on: every datagram
# goes to notify.log, one message per line block.
python3 - "$SCRATCH/notify.sock" "$SCRATCH/notify.log" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(300)
with open(sys.argv[2], "a") as log:
    try:
        while True:
            msg = s.recv(4096).decode()
            log.write(msg + "\n--\n")
            log.flush()
    except socket.timeout:
        pass
EOF
LISTENER=$!
test_atexit "kill $LISTENER"
wait_for "test -S '$SCRATCH/notify.sock'" 10 || { echo "no notify socket"; exit 1; }

# start_serve NAME ARGV...: run ARGV in the background with stderr to
# NAME.log; its pid goes to NAME.pid and, once it ends, its exit status
# to NAME.rc (the tests run in subshells, which cannot wait for it).
start_serve() {
	_n=$1
	shift
	(
		sh -c 'echo $$ >"$0"; exec "$@"' "$SCRATCH/$_n.pid" "$@" \
			2>>"$SCRATCH/$_n.log" >/dev/null
		echo $? >"$SCRATCH/$_n.rc"
	) &
	wait_for "test -s '$SCRATCH/$_n.pid'" 10 || return 1
	test_atexit "kill -KILL $(cat "$SCRATCH/$_n.pid")"
}

# ExecStart as the unit has it, word for word.
EXEC=$(sed -n 's/^ExecStart=//p' "$SCRATCH/b/schedfarm.service")
: >"$SCRATCH/serve.log"
JS=$(stat -c '%d:%i' "$SCRATCH/serve.log")
# shellcheck disable=SC2086
NOTIFY_SOCKET=$SCRATCH/notify.sock JOURNAL_STREAM=$JS start_serve serve $EXEC ||
	{ echo "serve did not start"; exit 1; }
SERVE=$(cat "$SCRATCH/serve.pid")

test_expect_success 'serve says READY=1 on the notify socket once it listens' '
	wait_for "grep -q READY=1 notify.log" 60 || { cat serve.log notify.log; false; } &&
	grep_or_fail "serve ready" serve.log &&
	grep -q "^STATUS=ready: owner .*, up to 4 jobs" notify.log
'

test_expect_success 'its log lines carry syslog priorities, no timestamps' '
	grep -q "^<6>schedfarm: serve ready: owner" serve.log &&
	! grep -v "^<[0-7]>" serve.log
'

printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"

test_expect_success 'serve claims a queued job and runs it' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm submit p.patch --base v6.1 --kernel k --plan long.yaml --host here --json >j.json &&
	J=$(jq .job j.json) && echo $J >jobid &&
	wait_for "schedfarm job show $J --json | jq -e \".runs[0].status == \\\"running\\\"\"" 60 ||
		{ schedfarm job show $J; cat serve.log; false; }
'

# The job process is a fork of serve (its /proc environ is serve's as
# started); the local agent it runs gets the allow-list environment of
# an untrusted child (lab/runner.c): neither NOTIFY_SOCKET nor the
# database's conninfo.
test_expect_success 'what the job runs inherits neither NOTIFY_SOCKET nor SCHEDFARM_DB' '
	child=$(pgrep -P $SERVE | head -n 1) && test -n "$child" &&
	wait_for "test -n \"\$(pgrep -P $child)\"" 30 &&
	for p in $(pgrep -P $child); do
		tr "\0" "\n" </proc/$p/environ >env.$p || exit 1
		grep -q "^PATH=" env.$p || exit 1
		! grep -n "^SCHEDFARM_DB=" env.$p || exit 1
		! grep -n "^NOTIFY_SOCKET=" env.$p || exit 1
	done
'

test_expect_success 'SIGTERM: STOPPING=1, the job requeued, exit 0 in time' '
	J=$(cat jobid) &&
	start=$(date +%s) &&
	kill -TERM $SERVE &&
	wait_for "test -s serve.rc" 90 &&
	took=$(( $(date +%s) - start )) &&
	test "$(cat serve.rc)" = 0 &&
	test $took -lt 60 &&
	grep -q "^STOPPING=1" notify.log &&
	grep -q "^STATUS=stopping: 1 job(s) going back to the queue (at most 60 s)" notify.log &&
	grep_or_fail "serve stopped" serve.log &&
	! grep -n "(null)" serve.log &&
	grep -q "^<4>schedfarm: warning: job $J: interrupted: the controller stopped after 0 of 1 runs; back in the queue" serve.log &&
	schedfarm job show $J --json >q.json &&
	jq -e ".state == \"queued\" and .lease_owner == null and (.error | startswith(\"interrupted: the controller stopped after 0 of 1 runs; back in the queue\"))" q.json &&
	schedfarm host show here --json | jq -e ".state == \"idle\"" ||
		{ cat serve.log q.json; false; }
'

# A job process that cannot stop: serve with a short stop timeout.
: >"$SCRATCH/serve2.log"
start_serve serve2 "$SCHEDFARM_BIN" serve --stop-timeout 2 ||
	{ echo "serve did not start"; exit 1; }
SERVE2=$(cat "$SCRATCH/serve2.pid")

test_expect_success 'a job process that does not stop is killed at --stop-timeout and requeued' '
	J=$(cat jobid) &&
	wait_for "schedfarm job show $J --json | jq -e \".state == \\\"running\\\"\"" 60 ||
		{ schedfarm job show $J; cat serve2.log; false; } &&
	child=$(pgrep -P $SERVE2 | head -n 1) && test -n "$child" &&
	kill -STOP $child &&
	kill -TERM $SERVE2 &&
	wait_for "test -s serve2.rc" 30 &&
	test "$(cat serve2.rc)" = 0 &&
	grep_or_fail "still running after 2 s: killing them" serve2.log &&
	grep_or_fail "did not stop in time: killed; requeued" serve2.log &&
	schedfarm job show $J --json >k.json &&
	jq -e ".state == \"queued\" and .lease_owner == null" k.json &&
	schedfarm host show here --json | jq -e ".state == \"idle\"" ||
		{ cat serve2.log k.json; false; }
'

test_done
