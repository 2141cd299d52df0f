#!/bin/sh
# t3013: a plan's command: on the local host runs without the controller's
# secrets and, under a root controller, as the farm's unprivileged user
# (lab/runner.c starts the agent with the allow-list environment of
# lab/sandbox.c; agent/wl_command.c drops to the user after joining the
# run's cgroups), unless the plan says root: true.  The command dumps its
# environment into a world-writable folder and reports its uid and how
# many secrets it saw as metrics, which the test reads back from
# PostgreSQL.  Three secrets are in the controller's environment.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"
[ "$(id -u)" = 0 ] || skip_all "needs root: the farm's user is switched to"

H=$SCRATCH/home
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"
export SCHEDFARM_SMTP_PASSWORD=sekrit-smtp-t3013
export IPMI_PASSWORD=sekrit-ipmi-t3013
export PGPASSWORD=sekrit-pg-t3013
DROP=$SCRATCH/drop
mkdir -p "$DROP" && chmod 1777 "$DROP"

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

# $1: the plan's name, $2: extra lines of the workload definition.
write_plan() {
	mkdir -p "$1" &&
	cat >"$1/dump.sh" <<-EOF &&
	#!/bin/sh
	env >"$DROP/$1.env"
	echo "uid: \$(id -u)"
	echo "secrets: \$(env | grep -c sekrit)"
	EOF
	chmod 755 "$1" "$1/dump.sh" &&
	cat >"$1/plan.yaml" <<-EOF
	commands:
	  dump:
	    command: ["$SCRATCH/$1/dump.sh"]
	$2
	    parse: {format: keyvalue}
	    metrics:
	      uid: {key: uid, unit: id, direction: none}
	      secrets: {key: secrets, unit: count, direction: lower}
	workload: dump
	iterations: 1
	warmup: 0
	EOF
}

# The values of metric $2 in the last job.
last_value() {
	q "SELECT r.value FROM results r JOIN runs u ON u.id = r.run_id
	   WHERE u.job_id = (SELECT max(id) FROM jobs) AND r.metric = '$1'"
}

test_expect_success 'a local host' '
	schedfarm host add here --kind local >out 2>err &&
	grep_or_fail "host here added (local)" out
'

test_expect_success 'a plan command runs as the farm user and sees no secret' '
	write_plan plain "" &&
	schedfarm run plain/plan.yaml --host here --kernel k1 >run.out 2>&1 ||
		{ cat run.out; false; } &&
	test "$(q "SELECT state FROM jobs WHERE id = (SELECT max(id) FROM jobs)")" = done &&
	uid=$(last_value uid) && echo "the command ran as uid $uid" &&
	test "$uid" = "$(id -u schedfarm)" &&
	test "$(last_value secrets)" = 0 &&
	test -s "$DROP/plain.env" &&
	test "$(stat -c %U "$DROP/plain.env")" = schedfarm &&
	! grep -q sekrit "$DROP/plain.env" &&
	! grep -E "^(SCHEDFARM_(DB|HOME|SMTP)|IPMI|PG)" "$DROP/plain.env"
'

test_expect_success 'root: true keeps root, and still no secret' '
	write_plan asroot "    root: true" &&
	schedfarm run asroot/plan.yaml --host here --kernel k1 >run2.out 2>&1 ||
		{ cat run2.out; false; } &&
	test "$(last_value uid)" = 0 &&
	test "$(last_value secrets)" = 0 &&
	! grep -q sekrit "$DROP/asroot.env"
'

test_expect_success 'root: takes true or false only' '
	write_plan badroot "    root: maybe" &&
	! schedfarm plan check badroot/plan.yaml >out 2>err &&
	grep_or_fail "root" err && grep_or_fail "true or false" err
'

test_done
