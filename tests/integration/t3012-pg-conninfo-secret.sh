#!/bin/sh
# t3012: a plan's pg_conninfo with a password.  sysbench OLTP runs for
# real against a PostgreSQL role that needs that password (scram), so
# the password reaches it -- through PGPASSWORD, never its command line
# (`ps` shows argv to everyone).  Nowhere the farm shows it is it
# published: runs.params, job show, results, plan expand, the run, host
# and plan pages and their CSV/JSON all read "password=***".
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v sysbench >/dev/null || skip_all "sysbench not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME="$SCRATCH/home"
PW=S3cr3t-sb-$$
# The database sysbench uses: its own role, which needs the password.
"$(pg_bindir)/psql" -X -q -h "$PG_SOCKDIR" -U postgres -d postgres \
	-c "CREATE ROLE sb LOGIN PASSWORD '$PW'" -c "CREATE DATABASE sbdb OWNER sb" || exit 1
{ echo "local all sb scram-sha-256"; cat "$PG_SOCKDIR/data/pg_hba.conf"; } >"$SCRATCH/hba" &&
	cat "$SCRATCH/hba" >"$PG_SOCKDIR/data/pg_hba.conf" &&
	_as_pg "$(pg_bindir)/pg_ctl" -D "$PG_SOCKDIR/data" reload >/dev/null || exit 1
wait_for "! '$(pg_bindir)/psql' -X -h '$PG_SOCKDIR' -U sb -d sbdb -c 'select 1' </dev/null" 10 ||
	{ echo "the password rule did not take"; exit 1; }

cat >"$SCRATCH/oltp.yaml" <<EOF2
name: oltp-secret
workload: sysbench
params:
  test: oltp_read_only
  threads: 1
  time: 4s
  tables: 1
  table_size: 200
  pg_conninfo: "host=$PG_SOCKDIR user=sb password=$PW dbname=sbdb"
iterations: 1
warmup: 0
timeouts:
  run: 3m
EOF2

test_expect_success 'plan expand shows the conninfo with its password masked' '
	schedfarm plan expand "$SCRATCH/oltp.yaml" --json >x.json &&
	! grep -n "$PW" x.json &&
	jq -e ".[0].params.pg_conninfo == \"host=$PG_SOCKDIR user=sb password=*** dbname=sbdb\"" x.json
'

test_expect_success 'a conninfo word sysbench cannot take is refused by the plan check' '
	sed "s/dbname=sbdb/sslmode=require/" "$SCRATCH/oltp.yaml" >bad.yaml &&
	! schedfarm plan check bad.yaml >out 2>err &&
	grep_or_fail "\"sslmode\" is not one of host, port, user, password, dbname" err &&
	! grep -n "$PW" err
'

test_expect_success 'the job runs sysbench with the password in its environment only' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm run "$SCRATCH/oltp.yaml" --host here --kernel k1 >run.out 2>&1 &
	R=$! &&
	wait_for "pgrep -f \"^sysbench oltp_read_only.*--pgsql-host=$PG_SOCKDIR.* run\$\" >sb.pid" 90 ||
		{ kill $R; cat run.out; false; }
	for p in $(cat sb.pid); do
		tr "\0" " " </proc/$p/cmdline >>argv.txt; echo >>argv.txt
		tr "\0" "\n" </proc/$p/environ >>env.txt
	done &&
	cat argv.txt &&
	grep -q -- "--pgsql-user=sb" argv.txt &&
	! grep -n -- "$PW" argv.txt &&
	grep -q "^PGPASSWORD=$PW\$" env.txt &&
	wait $R ||
		{ cat run.out; false; }
'

test_expect_success 'it measured: the password worked' '
	schedfarm queue --state all --json >q.json &&
	jq -e "length == 1 and .[0].state == \"done\"" q.json &&
	J=$(jq ".[0].job" q.json) && echo $J >jobid &&
	schedfarm results $J --json >r.json &&
	jq -e "[.[] | select(.metric == \"transactions_per_s\" and .value > 0)] | length >= 1" r.json
'

test_expect_success 'job show, results and runs.params hold no password' '
	J=$(cat jobid) &&
	schedfarm job show $J --json >j.json &&
	schedfarm job show $J >j.txt &&
	! grep -n "$PW" j.json j.txt r.json run.out &&
	grep -q "password=\*\*\*" j.json &&
	schedfarm db psql -- -X -At -c "SELECT params->>'\''pg_conninfo'\'' FROM runs" >p.txt &&
	test "$(cat p.txt)" = "host=$PG_SOCKDIR user=sb password=*** dbname=sbdb"
'

test_expect_success 'no page of the report, nor its CSV/JSON, publishes it' '
	schedfarm report --out "$SCRATCH/rep" >rep.out 2>&1 ||
		{ cat rep.out; false; }
	! grep -rn -- "$PW" "$SCRATCH/rep" &&
	grep -rl "password=\*\*\*" "$SCRATCH/rep" >pages &&
	grep -q "/run-" pages && grep -q "/plan-" pages && grep -q "/host-" pages
'

test_expect_success 'CSV cells a spreadsheet would run as a formula are prefixed' '
	schedfarm host add "=HYPERLINK(1)" --kind local --no-contact >/dev/null &&
	schedfarm host add "@SUM(1)" --kind local --no-contact >/dev/null &&
	schedfarm report --out "$SCRATCH/rep" >rep.out 2>&1 &&
	cat "$SCRATCH/rep"/*.csv >all.csv &&
	grep -q "^'\''=HYPERLINK(1)," all.csv &&
	grep -q "^'\''@SUM(1)," all.csv &&
	! grep -n "^=\|,=\|^@\|,@" all.csv
'

test_done
