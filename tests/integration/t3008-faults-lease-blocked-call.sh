#!/bin/sh
# t3008: a job keeps its lease while one call of its main thread blocks
# for longer than the lease.  Found by t9001 on a machine where libvirt
# re-probed qemu on every domain start (a minute inside one
# virDomainCreateXML call): a 20 s lease expired while the job booted,
# another controller took the job, and the boot was stopped three times.
# Here the blocking call is the database's: a trigger holds the insert of
# the job's collect phase row for 20 s (the job is already in the phase,
# its state committed), against a 10 s lease.  While it is held, the job's
# and the host's leases must still be in the future (the keeper thread
# renews them on a connection of its own), the job must end done in one
# attempt, and its log must say the keeper renewed the lease.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
HOLD_S=20
LEASE_S=10

sql() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

cat >short.yaml <<'EOF'
name: short
workload: memchunk
params:
  short_threads: 1
  long_threads: 1
  duration: 1s
  chunk_slots: [256]
iterations: 1
warmup: 0
EOF

test_expect_success 'setup: a local host; collect held by the database' '
	schedfarm host add here --kind local >out 2>err &&
	grep_or_fail "host here added (local)" out &&
	sql "CREATE FUNCTION t3008_hold() RETURNS trigger LANGUAGE plpgsql AS \$f\$ BEGIN PERFORM pg_sleep($HOLD_S); RETURN NEW; END \$f\$" &&
	sql "CREATE TRIGGER t3008_hold BEFORE INSERT ON job_phases FOR EACH ROW WHEN (NEW.phase = \$\$collect\$\$) EXECUTE FUNCTION t3008_hold()"
'

test_expect_success "the leases stay ahead while collect is held ${HOLD_S} s (lease ${LEASE_S} s)" '
	"$SCHEDFARM_BIN" run short.yaml --host here --lease $LEASE_S >run.out 2>run.err &
	RUN=$! &&
	test_atexit "kill $RUN 2>/dev/null" &&
	wait_for "test \"\$(sql \"SELECT state FROM jobs\")\" = collecting" 60 ||
		{ cat run.out run.err; return 1; }
	# Past the lease since the held insert began.
	sleep $((LEASE_S + 5)) &&
	sql "SELECT state, lease_expires > now(), round(extract(epoch FROM lease_expires - now())) FROM jobs" >lease &&
	sql "SELECT lease_expires > now() FROM hosts WHERE name = \$\$here\$\$" >hlease &&
	say "job: $(cat lease); host lease ahead: $(cat hlease)" &&
	grep -q "^collecting|t|" lease &&
	test "$(cat hlease)" = t &&
	wait $RUN
'

test_expect_success 'the job is done in one attempt; its log names the keeper' '
	sql "SELECT state, attempts FROM jobs" >st &&
	test "$(cat st)" = "done|1" &&
	sql "SELECT count(*) FROM runs WHERE status = \$\$done\$\$" >n &&
	test "$(cat n)" = 1 &&
	J=$(sql "SELECT id FROM jobs") &&
	schedfarm job show $J >show &&
	grep_wrapped_or_fail "the keeper renewed the lease" show &&
	grep "the keeper renewed" show | head -n 1 | sed "s/^/#: /" &&
	! grep -q "lease lost" show
'

test_done
