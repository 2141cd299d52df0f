#!/bin/sh
# t3001: the spine end to end with a real PostgreSQL and a real sshd on
# loopback: hosts (local and ssh, topology from the agent), submit ->
# serve -> results for the smoke plan on both, job phases recorded, and
# a host whose key does not match known_hosts refused.
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
printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/fix.patch"

test_expect_success 'host add local reads the topology from the agent' '
	schedfarm host add here --kind local >out 2>err &&
	grep_or_fail "host here added (local)" out &&
	schedfarm host show here --json >h.json &&
	jq -e ".kind == \"local\" and .cpus >= 1 and .sockets >= 1 and .memory_mb > 0 and .state == \"idle\" and .health == \"unknown\"" h.json &&
	jq -e ".agent_info.cpus.online >= 1" h.json
'

test_expect_success 'host add ssh copies the agent and reads its info' '
	mkdir -p "$SSHD_HOME/.schedfarm" &&
	echo "an older agent" >"$SSHD_HOME/.schedfarm/schedfarm-agent" &&
	chown -R "$SSHD_USER" "$SSHD_HOME/.schedfarm" &&
	schedfarm host add box --kind ssh --address 127.0.0.1 --port "$SSHD_PORT" \
		--user "$SSHD_USER" --key "$SSHD_KEY" --known-hosts "$SSHD_KNOWN_HOSTS" \
		--tag loop >out 2>err &&
	grep_or_fail "copied the agent to box" err &&
	cmp "$AGENT_BIN" "$SSHD_HOME/.schedfarm/schedfarm-agent" &&
	schedfarm host set box --refresh 2>err2 >/dev/null &&
	grep_or_fail "agent on box is current" err2 &&
	schedfarm host list --json >l.json &&
	jq -e "length == 2 and (.[] | select(.name == \"box\") | .cpus >= 1 and .tags == [\"loop\"] and .key_file == \"$SSHD_KEY\")" l.json
'

test_expect_success 'the key is stored by path only, never its contents' '
	schedfarm db psql -- -At -c "SELECT count(*) FROM hosts WHERE key_file LIKE \$\$%PRIVATE%\$\$ OR agent_info::text LIKE \$\$%PRIVATE KEY%\$\$" >n &&
	test "$(cat n)" = 0
'

test_expect_success 'a host whose key does not match known_hosts is refused' '
	ssh-keygen -q -t ed25519 -N "" -f other_key &&
	printf "[127.0.0.1]:%s %s\n" "$SSHD_PORT" "$(cut -d" " -f1,2 other_key.pub)" >bad_known &&
	! schedfarm host add evil --kind ssh --address 127.0.0.1 --port "$SSHD_PORT" \
		--user "$SSHD_USER" --key "$SSHD_KEY" --known-hosts "$SCRATCH/bad_known" 2>err &&
	grep_or_fail "host key mismatch" err &&
	grep_or_fail "refused" err &&
	! schedfarm host show evil 2>/dev/null
'

test_expect_success 'a host missing from known_hosts is refused too' '
	: >empty_known &&
	! schedfarm host add evil2 --kind ssh --address 127.0.0.1 --port "$SSHD_PORT" \
		--user "$SSHD_USER" --key "$SSHD_KEY" --known-hosts "$SCRATCH/empty_known" 2>err &&
	grep_or_fail "unknown host key" err
'

test_expect_success 'a mismatch found at run time fails the job as infra' '
	schedfarm host add moved --kind ssh --address 127.0.0.1 --port "$SSHD_PORT" \
		--user "$SSHD_USER" --key "$SSHD_KEY" --known-hosts "$SCRATCH/bad_known" --no-contact &&
	schedfarm run "$TOP/plans/smoke.yaml" --host moved --kernel k-moved >out 2>err;
	test $? = 1 &&
	schedfarm queue --state failed --json >f.json &&
	jq -e "length == 1 and .[0].host == \"moved\" and .[0].error_phase == \"infra\" and (.[0].error | test(\"host key mismatch\"))" f.json &&
	schedfarm host show moved --json | jq -e ".state == \"idle\" and .health == \"unknown\""
'

test_expect_success 'unreachable twice in a row: the host goes bad and gets no jobs' '
	schedfarm run "$TOP/plans/smoke.yaml" --host moved --kernel k-moved >out 2>err;
	test $? = 1 &&
	schedfarm host show moved --json >m.json &&
	jq -e ".health == \"bad\" and (.events | length) == 1 and (.events[0].reason | test(\"unreachable twice\"))" m.json &&
	N=$(schedfarm queue --state all --json | jq length) &&
	! schedfarm run "$TOP/plans/smoke.yaml" --host moved --kernel k-moved >out 2>err &&
	grep_or_fail "host '\''moved'\'' is bad: no job is given to it" err &&
	test "$(schedfarm queue --state all --json | jq length)" = "$N" &&
	schedfarm host set moved --health retired >/dev/null
'

test_expect_success 'without --key, ssh-agent authenticates' '
	command -v ssh-agent >/dev/null || { echo "no ssh-agent"; return 1; }
	ssh-agent -a "$SCRATCH/agent.sock" >agent.env &&
	pid=$(sed -n "s/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p" agent.env) &&
	test_atexit "kill $pid" &&
	SSH_AUTH_SOCK=$SCRATCH/agent.sock ssh-add -q "$SSHD_KEY" &&
	SSH_AUTH_SOCK=$SCRATCH/agent.sock HOME=$SCRATCH schedfarm host add viaagent --kind ssh \
		--address 127.0.0.1 --port "$SSHD_PORT" --user "$SSHD_USER" \
		--known-hosts "$SSHD_KNOWN_HOSTS" >out 2>err &&
	grep_or_fail "host viaagent added" out &&
	schedfarm host show viaagent --json | jq -e ".key_file == null and .cpus >= 1" &&
	! HOME=$SCRATCH SSH_AUTH_SOCK= schedfarm host set viaagent --refresh 2>err &&
	grep_or_fail "authentication to" err
'

test_expect_success 'host remove: an idle host without runs goes, others are kept' '
	schedfarm host remove viaagent >out && grep_or_fail "removed" out &&
	! schedfarm host show viaagent 2>/dev/null
'

test_expect_success 'hosts that boot are added with their boot fields and topology' '
	echo secret >bmc.pw &&
	schedfarm host add bmc9 --kind ipmi --address 127.0.0.1 --port 2222 \
		--bmc-address 127.0.0.1 --bmc-port 6230 --bmc-user admin \
		--bmc-password-file bmc.pw --boot-config "{\"tftp_dir\": \"/srv/tftp\"}" \
		--sockets 2 --cores 4 --threads 2 --numa-nodes 2 --cpus 16 --memory-mb 32768 >out 2>err &&
	schedfarm host show bmc9 --json >b.json &&
	jq -e ".kind == \"ipmi\" and .bmc_port == 6230 and .bmc_password_file == \"$SCRATCH/bmc.pw\" and .boot_config.tftp_dir == \"/srv/tftp\" and .sockets == 2 and .cpus == 16 and .memory_mb == 32768" b.json &&
	! grep -r secret b.json &&
	schedfarm host set bmc9 --libvirt-uri test:///default --cpus 8 >/dev/null &&
	schedfarm host show bmc9 --json | jq -e ".cpus == 8 and .sockets == 2 and .libvirt_uri == \"test:///default\"" &&
	! schedfarm host add bad9 --kind ipmi --boot-config "[1]" 2>err && grep_or_fail "must be a JSON object" err &&
	schedfarm host remove bmc9 >/dev/null
'

test_expect_success 'a file that is not a patch is refused' '
	echo "hello" >notapatch &&
	! schedfarm submit notapatch --base v6.1 --plan "$TOP/plans/smoke.yaml" 2>err &&
	grep_or_fail "is not a patch" err
'

test_expect_success 'run drains the queue in the foreground and exits' '
	schedfarm submit fix.patch --base v6.1 --kernel k-drain --plan "$TOP/plans/smoke.yaml" --host here >/dev/null &&
	schedfarm submit fix.patch --base v6.1 --kernel k-drain --plan "$TOP/plans/smoke.yaml" --host box >/dev/null &&
	schedfarm run >out 2>err &&
	test "$(grep -c ": done$" out)" = 2 &&
	grep_or_fail "run 2/2" out &&
	schedfarm queue --json | jq -e "length == 0" &&
	schedfarm run >out2 && grep_or_fail "the queue is empty" out2
'

test_expect_success 'progress on a terminal is one line rewritten in place' '
	command -v script >/dev/null || { echo "no script(1)"; return 1; }
	SHELL=/bin/sh script -qec "$SCHEDFARM_BIN run $TOP/plans/smoke.yaml --host here --kernel k-tty" tty.out >/dev/null &&
	grep -q "$(printf "\r")STP#[0-9]* run 1/2 " tty.out &&
	grep -q "$(printf "\033\[K")" tty.out &&
	grep_or_fail "run 2/2 pipe-pingpong" tty.out &&
	grep_or_fail "elapsed, ~" tty.out
'

# --wake 3600: only NOTIFY can wake it within these tests' time limits.
serve_start serve.log --jobs 2 --wake 3600
SERVE_PID=$SERVE

test_expect_success 'serve -n checks the configuration' '
	schedfarm serve -n >out &&
	test "$(cat out)" = "configuration OK"
'

test_expect_success 'serve says it is ready' '
	wait_for "grep -q \"serve ready\" serve.log" 30 || { cat serve.log; false; }
'

test_expect_success 'submit on the local and the ssh host; serve runs both' '
	schedfarm submit fix.patch --base v6.1 --kernel v6.1-fix --plan "$TOP/plans/smoke.yaml" --host here --json >s1.json &&
	schedfarm submit fix.patch --base v6.1 --kernel v6.1-fix --plan "$TOP/plans/smoke.yaml" --host box --json >s2.json &&
	J1=$(jq .job s1.json) && J2=$(jq .job s2.json) &&
	test "$(jq .patch s1.json)" != "$(jq .patch s2.json)" &&
	echo "$J1 $J2" >jobs &&
	wait_for "schedfarm job show $J1 --json | jq -e \".state == \\\"done\\\"\" && schedfarm job show $J2 --json | jq -e \".state == \\\"done\\\"\"" 120 || {
		schedfarm queue --state all; schedfarm job show $J1; schedfarm job show $J2; cat serve.log; false; }
'

test_expect_success 'results are in the database, for both hosts, with every key' '
	read J1 J2 <jobs &&
	for j in $J1 $J2; do
		schedfarm results $j --json >r$j.json &&
		jq -e "length > 0" r$j.json &&
		jq -e "all(.[]; has(\"job\") and has(\"run\") and has(\"host\") and has(\"kernel\") and has(\"workload\") and (.params | type == \"object\") and has(\"iteration\") and has(\"warmup\") and has(\"metric\") and (.value | type == \"number\") and has(\"unit\") and (.better | test(\"higher|lower|none\")))" r$j.json &&
		jq -e "([.[].workload] | unique) == [\"memchunk\", \"pipe-pingpong\"]" r$j.json &&
		jq -e "([.[] | select(.warmup) | .iteration] | unique) == [0]" r$j.json &&
		jq -e "all(.[]; .kernel == \"v6.1-fix\")" r$j.json || return 1
	done &&
	jq -e "all(.[]; .host == \"here\")" r$J1.json &&
	jq -e "all(.[]; .host == \"box\")" r$J2.json
'

test_expect_success 'results --kernel and --run select the same rows' '
	read J1 J2 <jobs &&
	schedfarm results --kernel v6.1-fix --json >k.json &&
	test "$(jq length k.json)" = "$(( $(jq length r$J1.json) + $(jq length r$J2.json) ))" &&
	RUN=$(jq ".[0].run" r$J2.json) &&
	schedfarm results --run $RUN --json | jq -e "length > 0 and all(.[]; .run == $RUN)" &&
	schedfarm results $J2 >t.txt && grep_or_fail "pipe-pingpong" t.txt &&
	! schedfarm host remove box 2>err && grep_or_fail "retire it instead" err
'

test_expect_success 'phases are recorded with times: build and boot skipped' '
	read J1 J2 <jobs &&
	schedfarm job show $J2 --json >j.json &&
	jq -e "[.phases[] | .phase + \":\" + .status] == [\"build:skipped\", \"boot:skipped\", \"run:ok\", \"collect:ok\", \"ingest:ok\"]" j.json &&
	jq -e "all(.phases[]; .finished_at != null and .started_at != null)" j.json &&
	jq -e ".attempts == 1 and .host == \"box\" and (.runs | length) == 2 and all(.runs[]; .status == \"done\")" j.json &&
	schedfarm job show $J2 >j.txt && grep_or_fail "phase ingest   ok" j.txt
'

test_expect_success 'hosts are idle again and the remote run files are gone' '
	schedfarm host list --json | jq -e "all(.[]; .state == \"idle\" and .lease_owner == null)" &&
	read J1 J2 <jobs &&
	for r in $(schedfarm job show $J2 --json | jq ".runs[].run"); do
		if ls "$SSHD_HOME/.schedfarm" | grep "^run-$r-"; then return 1; fi
	done
'

test_expect_success 'counters and agent info were stored with the runs' '
	schedfarm db psql -- -At -c "SELECT count(*) FROM counters" >c && test "$(cat c)" -gt 0 &&
	schedfarm db psql -- -At -c "SELECT count(*) FROM runs WHERE agent_info IS NULL AND status = \$\$done\$\$" >c && test "$(cat c)" = 0
'

test_expect_success 'the daemon is still running after the failed job' '
	kill -0 $SERVE_PID
'

test_expect_success 'rerun JOB on another host queues and runs it there' '
	read J1 J2 <jobs &&
	schedfarm rerun $J1 --host box --json >rr.json &&
	J3=$(jq .job rr.json) &&
	wait_for "schedfarm job show $J3 --json | jq -e \".state == \\\"done\\\"\"" 120 &&
	schedfarm results $J3 --json | jq -e "length > 0 and all(.[]; .host == \"box\")"
'

test_expect_success 'job cancel on a queued job' '
	schedfarm host set here --health maintenance >/dev/null &&
	schedfarm submit fix.patch --base v6.1 --kernel v6.1-c --plan "$TOP/plans/smoke.yaml" --host here --json >c.json &&
	J=$(jq .job c.json) &&
	schedfarm job cancel $J >out && grep_or_fail "cancelled" out &&
	schedfarm job show $J --json | jq -e ".state == \"cancelled\"" &&
	schedfarm host set here --health good >/dev/null
'

test_expect_success 'serve stops cleanly on SIGTERM' '
	kill -TERM $SERVE_PID &&
	wait_for "grep -q \"serve stopped\" serve.log" 30
'

test_done
