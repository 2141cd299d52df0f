#!/bin/sh
# t0002: where the database is - --db over SCHEDFARM_DB over PG* variables
# over the embedded default - against real throwaway servers.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v setpriv >/dev/null 2>&1 || [ "$(id -u)" != 0 ] ||
	skip_all "setpriv (util-linux) is needed to run postgres as root"

pg_test_start pgA || exit 1
A=$PG_SOCKDIR
pg_test_start pgB || exit 1
B=$PG_SOCKDIR
export SCHEDFARM_HOME=$SCRATCH/home
embedded_stop_at_exit "$SCHEDFARM_HOME"

test_expect_success '--db wins over SCHEDFARM_DB and PGHOST' '
	SCHEDFARM_DB="host=$B dbname=postgres user=postgres" PGHOST=$B \
		schedfarm --db "host=$A dbname=postgres user=postgres" db status --json >s &&
	jq -e ".source == \"--db\"" s &&
	jq -r .conninfo s | grep -q "host=$A"
'

test_expect_success 'SCHEDFARM_DB wins over PGHOST' '
	SCHEDFARM_DB="host=$B dbname=postgres user=postgres" PGHOST=$A \
		schedfarm db status --json >s &&
	jq -e ".source == \"SCHEDFARM_DB\"" s &&
	jq -r .conninfo s | grep -q "host=$B"
'

test_expect_success 'PG* variables are used when set' '
	PGHOST=$A PGUSER=postgres PGDATABASE=postgres schedfarm db status --json >s &&
	jq -e ".source == \"libpq environment\" and .running == true" s
'

test_expect_success 'migrate writes to the database it resolved, and only there' '
	schedfarm --db "host=$A dbname=postgres user=postgres" db migrate >out &&
	grep_or_fail "schema at version" out &&
	psql -h "$A" -U postgres -d postgres -At -c "SELECT count(*) FROM schema_migrations" >a &&
	test "$(cat a)" = "$(ls "$TOP"/schema/[0-9][0-9][0-9]_*.sql | wc -l)" &&
	! psql -h "$B" -U postgres -d postgres -At -c "SELECT 1 FROM schema_migrations" 2>/dev/null &&
	test ! -e "$SCHEDFARM_HOME/pg"
'

test_expect_success 'an external database is not stopped by db stop' '
	! schedfarm --db "host=$A dbname=postgres user=postgres" db stop 2>err &&
	grep_or_fail "does not stop it" err
'

test_expect_success 'with nothing set, the embedded cluster is used' '
	schedfarm db status --json >s &&
	jq -e ".source == \"embedded\"" s
'

test_expect_success 'an unreachable --db fails with the reason' '
	! schedfarm --db "host=$SCRATCH/nowhere dbname=x user=x" db migrate 2>err &&
	grep_or_fail "cannot connect to the database (--db)" err
'

test_done
