#!/bin/sh
# t3006: the database fails over.  A PostgreSQL primary and a streaming
# standby made from it with pg_basebackup (synchronous: a commit the farm
# saw is on both), both started here.  Two `serve` processes get one
# multi-host conninfo with target_session_attrs=read-write.  While their
# jobs run, the primary is stopped (immediate) and the standby promoted:
# the controllers and their jobs reconnect to the new primary on their
# own, and at the end every job is done, each claimed by one controller
# (no job lost or doubled), and every result is stored once.  The farm's
# scale-out is PostgreSQL's own replication.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v "$(pg_bindir)/pg_basebackup" >/dev/null 2>&1 ||
	skip_all "pg_basebackup not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

BIN=$(pg_bindir)
pg_test_start primary >pg.out 2>&1 || { cat pg.out; exit 1; }
P=$PG_SOCKDIR
S=$SCRATCH/standby
# Commits wait for the standby: what a controller saw committed survives
# the failover.
cat >>"$P/data/postgresql.conf" <<EOCONF
synchronous_standby_names = '*'
wal_level = replica
EOCONF
_as_pg "$BIN/pg_ctl" -D "$P/data" -l "$P/log" -w restart >/dev/null || { cat "$P/log"; exit 1; }
mkdir -p "$S"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$S"
_as_pg "$BIN/pg_basebackup" -h "$P" -p 5432 -U postgres -D "$S/data" -R -X stream \
	>bb.out 2>&1 || { cat bb.out; exit 1; }
cat >>"$S/data/postgresql.conf" <<EOCONF
unix_socket_directories = '$S'
synchronous_standby_names = ''
EOCONF
_as_pg "$BIN/pg_ctl" -D "$S/data" -l "$S/log" -w -t 60 start >/dev/null ||
	{ cat "$S/log"; exit 1; }
test_atexit "_as_pg '$BIN/pg_ctl' -D '$S/data' -m immediate -w stop"

export SCHEDFARM_DB="host=$P,$S port=5432,5432 dbname=postgres user=postgres target_session_attrs=read-write connect_timeout=5"
psql_q() {
	"$BIN/psql" "$SCHEDFARM_DB" -XAt -c "$1"
}
printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"
# About 6 s a job, sleeping.
cat >"$SCRATCH/sleepy.yaml" <<'EOPLAN'
name: sleepy
workloads:
  - workload: memchunk
    params:
      short_threads: 1
      long_threads: 0
      sleep_every: 1
      sleep_us: 50000
      duration: 2s
iterations: 3
warmup: 0
EOPLAN

test_expect_success 'the standby streams from the primary, synchronously' '
	wait_for "\"$BIN/psql\" \"host=$P port=5432 dbname=postgres user=postgres\" -XAt -c \"SELECT sync_state FROM pg_stat_replication\" | grep -qx sync" 30 &&
	"$BIN/psql" "host=$S port=5432 dbname=postgres user=postgres" -XAt -c "SELECT pg_is_in_recovery()" | grep -qx t
'

test_expect_success 'four local hosts and 24 jobs, through the multi-host conninfo' '
	for h in h1 h2 h3 h4; do
		schedfarm host add $h --kind local >/dev/null 2>&1 || return 1
	done &&
	for i in $(seq 1 24); do
		schedfarm submit p.patch --base b --kernel k --plan sleepy.yaml >/dev/null || return 1
	done &&
	test "$(psql_q "SELECT count(*) FROM jobs WHERE state = \$\$queued\$\$")" = 24
'

serve_start serve1.log --jobs 2 --wake 1
S1=$SERVE
serve_start serve2.log --jobs 2 --wake 1
S2=$SERVE

test_expect_success 'fail over while jobs run: primary stopped, standby promoted' '
	wait_for "grep -q \"serve ready\" serve1.log && grep -q \"serve ready\" serve2.log" 30 &&
	wait_for "test \"\$(psql_q \"SELECT count(*) FROM jobs WHERE state = \\\$\\\$done\\\$\\\$\")\" -ge 4" 120 &&
	wait_for "test \"\$(psql_q \"SELECT count(*) FROM runs WHERE status = \\\$\\\$running\\\$\\\$\")\" -ge 2" 60 &&
	done_before=$(psql_q "SELECT count(*) FROM jobs WHERE state = \$\$done\$\$") &&
	_as_pg "$BIN/pg_ctl" -D "$P/data" -m immediate -w stop >/dev/null &&
	t0=$(date +%s) &&
	sleep 2 &&
	_as_pg "$BIN/pg_ctl" -D "$S/data" -w promote >/dev/null &&
	say "primary stopped with $done_before jobs done; standby promoted $(( $(date +%s) - t0 )) s later" &&
	"$BIN/psql" "host=$S port=5432 dbname=postgres user=postgres" -XAt -c "SELECT pg_is_in_recovery()" | grep -qx f
'

test_expect_success 'every job ends done on the new primary' '
	wait_for "test \"\$(psql_q \"SELECT count(*) FROM jobs WHERE state = \\\$\\\$done\\\$\\\$\")\" = 24" 300 || {
		psql_q "SELECT id, state, attempts, error FROM jobs WHERE state <> \$\$done\$\$";
		tail -n 30 serve1.log serve2.log; false; } &&
	kill -0 $S1 && kill -0 $S2
'

test_expect_success 'both controllers found the new primary by themselves' '
	grep_or_fail "reconnected to the database" serve1.log &&
	grep_or_fail "reconnected to the database" serve2.log &&
	test "$(psql_q "SELECT count(*) FROM jobs WHERE finished_at > now() - interval \$\$10 minutes\$\$ AND state = \$\$done\$\$")" = 24
'

test_expect_success 'no job lost or doubled, every result stored once' '
	psql_q "SELECT count(*) FROM jobs WHERE state <> \$\$done\$\$ OR finished_by IS NULL" >n && test "$(cat n)" = 0 &&
	psql_q "SELECT count(*), count(DISTINCT job_id) FROM runs WHERE status = \$\$done\$\$" >n &&
	test "$(cat n)" = "24|24" &&
	psql_q "SELECT count(*) FROM runs WHERE status = \$\$done\$\$ AND NOT EXISTS (SELECT 1 FROM results x WHERE x.run_id = runs.id)" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT count(*) - count(DISTINCT (run_id, metric, iteration)) FROM results" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT count(*) FROM (SELECT job_id FROM runs WHERE ingested_at IS NOT NULL GROUP BY job_id HAVING count(*) > 1) d" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT sum(attempts) FROM jobs" >att && say "attempts over 24 jobs: $(cat att)"
'

test_expect_success 'hosts are idle and unleased; the controllers stop cleanly' '
	wait_for "test \"\$(psql_q \"SELECT count(*) FROM hosts WHERE state <> \\\$\\\$idle\\\$\\\$\")\" = 0" 30 &&
	kill -TERM $S1 $S2 &&
	wait_for "grep -q \"serve stopped\" serve1.log && grep -q \"serve stopped\" serve2.log" 30
'

test_done
