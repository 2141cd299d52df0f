#!/bin/sh
# t0001: the embedded PostgreSQL cluster - created on first use in an empty
# home (even a mode-700 one, as root), migrate twice, psql, stop/start
# keeping data, a refused newer schema, a socket path too long.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"

# What this binary knows: the highest NNN and how many migrations there are.
KNOWN=$(ls "$TOP"/schema/[0-9][0-9][0-9]_*.sql | sed 's|.*/0*\([0-9][0-9]*\)_.*|\1|' | sort -n | tail -n 1)
NMIG=$(ls "$TOP"/schema/[0-9][0-9][0-9]_*.sql | wc -l)
if [ "$NMIG" = 1 ]; then MIGS="1 migration"; else MIGS="$NMIG migrations"; fi

H=$SCRATCH/home
mkdir -m 700 "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

# Something else holds PostgreSQL's usual TCP port: the embedded cluster must
# not care (unix socket in its own folder, no TCP).
if perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(PeerAddr => "127.0.0.1:5432") ? 1 : 0)'; then
	perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:5432", Listen => 5, ReuseAddr => 1) or exit 1; print "$$\n"; STDOUT->flush; sleep 600' >"$SCRATCH/holder.pid" &
	wait_for "test -s '$SCRATCH/holder.pid'" 5
	test_atexit "kill $(cat "$SCRATCH/holder.pid")"
fi

test_expect_success 'db migrate on an empty home creates and starts the cluster' '
	schedfarm db migrate >out 2>err &&
	grep_or_fail "schema at version $KNOWN ($MIGS applied)" out &&
	test -f "$H/pg/data/PG_VERSION" &&
	test -S "$H/pg/.s.PGSQL.5432"
'

test_expect_success 'as root the server runs as postgres and pg/ is its own' '
	if [ "$(id -u)" = 0 ]; then
		test "$(stat -c %U "$H/pg")" = postgres &&
		pid=$(head -n 1 "$H/pg/data/postmaster.pid") &&
		test "$(stat -c %U /proc/$pid)" = postgres
	fi
'

test_expect_success 'migrate a second time changes nothing' '
	schedfarm db psql -- -At -c "SELECT count(*) FROM schema_migrations" >before &&
	schedfarm db migrate >out &&
	grep_or_fail "schema at version $KNOWN (0 migrations applied)" out &&
	schedfarm db psql -- -At -c "SELECT count(*) FROM schema_migrations" >after &&
	cmp before after
'

test_expect_success 'psql lists the tables of the model' '
	schedfarm db psql -- -c "\\dt" >tables &&
	for t in hosts kernels patches plans jobs runs results samples comparisons schema_migrations; do
		grep_or_fail " $t " tables || return 1
	done
'

test_expect_success 'the model has its CHECK constraints' '
	! schedfarm db psql -- -v ON_ERROR_STOP=1 -c \
		"INSERT INTO hosts (name, kind, state) VALUES (\$\$x\$\$, \$\$local\$\$, \$\$flying\$\$)" 2>err &&
	grep_or_fail "violates check constraint" err
'

test_expect_success 'status says embedded and running, in text and JSON' '
	schedfarm db status >st &&
	grep_or_fail "database:       embedded" st &&
	grep_or_fail "server:         running" st &&
	schedfarm db status --json >st.json &&
	jq -e ".running == true and .schema_version == $KNOWN and .source == \"embedded\"" st.json
'

test_expect_success 'stop then start keeps the data' '
	schedfarm db psql -- -v ON_ERROR_STOP=1 -c \
		"INSERT INTO hosts (name, kind) VALUES (\$\$keepme\$\$, \$\$local\$\$)" &&
	schedfarm db stop >out && grep_or_fail "stopped" out &&
	schedfarm db status --json | jq -e ".running == false" &&
	schedfarm db start >out && grep_or_fail "embedded database running" out &&
	schedfarm db psql -- -At -c "SELECT name FROM hosts" >names &&
	grep_or_fail keepme names
'

test_expect_success 'a stopped cluster starts again on first use' '
	schedfarm db stop &&
	schedfarm db psql -- -At -c "SELECT 1" >one &&
	test "$(cat one)" = 1
'

test_expect_success 'serve --jobs is clipped to the connections the database has free' '
	timeout 5 "$SCHEDFARM_BIN" serve --jobs 256 >out 2>err;
	grep_or_fail "running at most" err &&
	max=$(schedfarm db psql -- -At -c "SHOW max_connections") &&
	n=$(sed -n "s/.*up to \([0-9]*\) jobs.*/\1/p" err) &&
	test "$n" -lt "$max"
'

test_expect_success 'a database newer than the binary is refused' '
	schedfarm db psql -- -c "INSERT INTO schema_migrations (version, name) VALUES (999, \$\$999_future.sql\$\$)" &&
	! schedfarm db migrate 2>err &&
	grep_or_fail "schema is at version 999, newer than this schedfarm knows ($KNOWN)" err &&
	! schedfarm db psql -- -c "SELECT 1" 2>err2 &&
	grep_or_fail "newer than this schedfarm knows" err2
'

test_expect_success 'a home too deep for a unix socket is refused clearly' '
	deep=$SCRATCH/$(printf "d%.0s" $(seq 1 90)) &&
	! SCHEDFARM_HOME=$deep schedfarm db status 2>err &&
	grep_or_fail "too deep for a unix socket" err
'

test_expect_success 'two homes run side by side (own folder, own socket)' '
	H2=$SCRATCH/home2 &&
	test_atexit "SCHEDFARM_HOME=$H2 $SCHEDFARM_BIN db stop" &&
	SCHEDFARM_HOME=$H2 schedfarm db migrate >out &&
	grep_or_fail "$MIGS applied" out &&
	SCHEDFARM_HOME=$H2 schedfarm db psql -- -At -c "SELECT count(*) FROM hosts" >n &&
	test "$(cat n)" = 0
'

test_done
