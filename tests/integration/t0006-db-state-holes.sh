#!/bin/sh
# t0006: the embedded cluster's folder and the database password, where a
# review found holes.  A `pg` link planted in the state folder is refused
# (chown/chmod never reach its target), so is a pg folder of another
# user; a state folder path that pg_ctl's shell would read ($, `, ", \)
# is refused before anything runs; `db psql` hands a conninfo's password
# to psql by PGPASSWORD, never on its command line.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v "$(pg_bindir)/psql" >/dev/null 2>&1 || command -v psql >/dev/null 2>&1 ||
	skip_all "psql not installed (make deps)"

test_expect_success 'a pg link planted in the state folder is refused, its target untouched' '
	mkdir -m 700 h1 && mkdir -m 755 victim && echo keep >victim/file &&
	ln -s "$SCRATCH/victim" h1/pg &&
	before=$(stat -c "%u:%g %a" victim) &&
	! SCHEDFARM_HOME=$SCRATCH/h1 schedfarm db start >out 2>err &&
	grep_or_fail "h1/pg is a symbolic link, not the embedded cluster" err &&
	test "$(stat -c "%u:%g %a" victim)" = "$before" &&
	test -h h1/pg && test ! -e victim/data
'

if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
	test_expect_success 'a pg folder of another user is not taken over' '
		mkdir -m 700 h2 && mkdir -m 755 h2/pg && chown nobody h2/pg &&
		! SCHEDFARM_HOME=$SCRATCH/h2 schedfarm db start >out 2>err &&
		grep_or_fail "h2/pg belongs to uid $(id -u nobody), neither the farm" err &&
		test "$(stat -c "%U %a" h2/pg)" = "nobody 755"
	'
else
	test_skip "a pg folder of another user is not taken over" "needs root and a nobody user"
fi

test_expect_success 'a state folder path the shell would read is refused, nothing run' '
	H=$SCRATCH/h3\$\(touch\ $SCRATCH/pwned\) &&
	! SCHEDFARM_HOME=$H schedfarm db start >out 2>err &&
	grep_or_fail "the state folder'\''s path holds '\''\$'\'', which PostgreSQL'\''s pg_ctl would hand to a shell" err &&
	test ! -e "$SCRATCH/pwned" &&
	H=$SCRATCH/h4\`id\` &&
	! SCHEDFARM_HOME=$H schedfarm db status >out 2>err &&
	grep_or_fail "holds '\''\`'\''" err
'

# A server where one role logs in with a password (scram), over the
# unix socket; every other role as before (trust).
pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
"$(pg_bindir)/psql" -X -q -h "$PG_SOCKDIR" -U postgres -d postgres \
	-c "CREATE ROLE pw LOGIN PASSWORD 's3cr3t-Pw'" \
	-c "CREATE DATABASE pwdb OWNER pw" || exit 1
{ echo "local all pw scram-sha-256"; cat "$PG_SOCKDIR/data/pg_hba.conf"; } >"$SCRATCH/hba" &&
	cat "$SCRATCH/hba" >"$PG_SOCKDIR/data/pg_hba.conf" &&
	_as_pg "$(pg_bindir)/pg_ctl" -D "$PG_SOCKDIR/data" reload >/dev/null || exit 1
wait_for "! '$(pg_bindir)/psql' -X -h '$PG_SOCKDIR' -U pw -d postgres -c 'select 1' </dev/null" 10 ||
	{ echo "the password rule did not take"; exit 1; }
CI="host=$PG_SOCKDIR dbname=pwdb user=pw password=s3cr3t-Pw"

test_expect_success 'db psql: the password works, and is not in psql'\''s argv' '
	SCHEDFARM_DB=$CI "$SCHEDFARM_BIN" db psql -- -X -At -c "SELECT pg_sleep(3), current_user" >out 2>err &
	P=$! &&
	wait_for "tr \"\\0\" \"\\n\" </proc/$P/cmdline | head -n 1 | grep -q psql\$" 10 &&
	tr "\0" " " </proc/$P/cmdline >argv &&
	grep -q "user=" argv &&
	! grep -n "s3cr3t" argv &&
	wait $P &&
	grep_or_fail "|pw" out
'

test_expect_success 'a wrong password is refused by the server, as it should be' '
	! schedfarm --db "host=$PG_SOCKDIR dbname=pwdb user=pw password=wrong" db psql -- -X -c "select 1" >out 2>err &&
	grep_or_fail "password authentication failed for user \"pw\"" err
'

test_done
