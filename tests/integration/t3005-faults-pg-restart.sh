#!/bin/sh
# t3005: PostgreSQL goes away under running jobs.  Restarted (`pg_ctl
# restart -m immediate`, every connection killed) in the middle of a run:
# the job's process gets a new connection and goes on, the job ends done
# with every result once.  Restarted while a job stores its runs (its
# ingest, one transaction for all of them): the transaction dies with its
# connection, the job keeps the agent's lines, retries with backoff once
# the server is back, and stores them then -- once.  Down for 20 s while a
# job finishes its last run and reaches ingest: the job waits for the
# server, then stores.  All along a watcher reads the results table: no
# run is ever seen with part of its results.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
PGCTL="$(pg_bindir)/pg_ctl"
psql_q() {
	"$(pg_bindir)/psql" "$PG_CONNINFO" -XAt -c "$1"
}

printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"
# A run of about 9 s that sleeps most of the time.
cat >"$SCRATCH/sleepy.yaml" <<'EOPLAN'
name: sleepy
workloads:
  - workload: memchunk
    params:
      short_threads: 1
      long_threads: 0
      sleep_every: 1
      sleep_us: 50000
      duration: 3s
iterations: 3
warmup: 0
EOPLAN
# Many short runs with samples and counters: its ingest takes a while.
{
	echo "name: many"
	echo "workloads:"
	echo "  - workload: pipe-pingpong"
	echo "    params:"
	echo "      counters: context-switches"
	printf "      round_trips: ["
	i=1000
	while [ $i -lt 1059 ]; do printf "%s, " $i; i=$((i + 1)); done
	echo "1059]"
	echo "iterations: 3"
	echo "warmup: 1"
} >"$SCRATCH/many.yaml"

test_expect_success 'a local host and a controller' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm plan check many.yaml >/dev/null
'

serve_start serve.log --jobs 1 --wake 1

# The watcher: every 0.2 s, each run's status and count of results.  A run
# seen with results while not done, or with fewer than it ends with, was
# seen half-stored.
(
	while :; do
		"$(pg_bindir)/psql" "$PG_CONNINFO" -XAt -c \
			"SELECT r.id, r.status, count(x.id) FROM runs r JOIN results x ON x.run_id = r.id GROUP BY r.id, r.status" \
			2>/dev/null
		sleep 0.2
	done
) >"$SCRATCH/watch.log" &
WATCH=$!
test_atexit "kill $WATCH"

done_runs() {
	psql_q "SELECT count(*) FROM runs WHERE job_id = $1 AND status = 'done'"
}

restart_pg() {
	_as_pg "$PGCTL" -D "$PG_SOCKDIR/data" -l "$PG_SOCKDIR/log" -m immediate -w -t 60 restart >/dev/null
}

test_expect_success 'restart -m immediate in the middle of a run: the job ends done' '
	wait_for "grep -q \"serve ready\" serve.log" 30 &&
	schedfarm submit p.patch --plan sleepy.yaml --base b --kernel k --host here --json >s1.json &&
	J=$(jq .job s1.json) &&
	wait_for "psql_q \"SELECT status FROM runs WHERE job_id = $J\" | grep -qx running" 30 &&
	sleep 2 && restart_pg && say "restarted during the run of job $J" &&
	wait_for "psql_q \"SELECT state FROM jobs WHERE id = $J\" | grep -qx done" 120 || {
		psql_q "SELECT state, error FROM jobs WHERE id = $J"; tail -20 serve.log; false; } &&
	test "$(psql_q "SELECT attempts FROM jobs WHERE id = $J")" = 1
'

# every_result_once JOB: every run of JOB is done, and the results stored
# for it are the result lines of its raw lines, each once.
every_result_once() {
	psql_q "SELECT count(*) FROM runs WHERE job_id = $1 AND status <> 'done'" >notdone &&
	test "$(cat notdone)" = 0 &&
	psql_q "WITH want AS (
		SELECT r.id AS run_id, l->>'metric' AS metric, (l->>'iteration')::int AS iteration
		FROM runs r, regexp_split_to_table(r.raw_lines, E'\\n') AS line,
		     LATERAL (SELECT line::jsonb AS l) j
		WHERE r.job_id = $1 AND line <> '' AND l->>'type' = 'result'),
	    got AS (SELECT run_id, metric, iteration FROM results
		WHERE run_id IN (SELECT id FROM runs WHERE job_id = $1))
	    SELECT (SELECT count(*) FROM want), (SELECT count(*) FROM got),
		(SELECT count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM got) a) +
		(SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM want) b)" >cmp &&
	cat cmp &&
	IFS="|" read -r want got diff <cmp &&
	test "$want" -gt 0 && test "$want" = "$got" && test "$diff" = 0 &&
	psql_q "SELECT count(*) - count(DISTINCT (run_id, metric, iteration)) FROM results" >dups &&
	test "$(cat dups)" = 0
}

test_expect_success 'every result of that job stored once' '
	every_result_once $(jq .job s1.json)
'

test_expect_success 'restart -m immediate while runs are stored as they finish: each stored once' '
	schedfarm submit p.patch --plan many.yaml --base b --kernel k --host here --json >s2.json &&
	J=$(jq .job s2.json) &&
	wait_for "test \$(done_runs $J) -ge 5" 300 &&
	restart_pg && say "restarted while job $J stored its runs one by one" &&
	wait_for "psql_q \"SELECT state FROM jobs WHERE id = $J\" | grep -qx done" 300 || {
		psql_q "SELECT state, error FROM jobs WHERE id = $J"; tail -20 serve.log; false; } &&
	test "$(psql_q "SELECT attempts FROM jobs WHERE id = $J")" = 1 &&
	test "$(psql_q "SELECT count(*) FROM runs WHERE job_id = $J")" = 60 &&
	every_result_once $J
'

test_expect_success 'down for 20 s while a job reaches ingest: it waits, then stores' '
	schedfarm submit p.patch --plan sleepy.yaml --base b --kernel k --host here --json >s3.json &&
	J=$(jq .job s3.json) &&
	wait_for "psql_q \"SELECT status FROM runs WHERE job_id = $J\" | grep -qx running" 30 &&
	sleep 6 &&
	_as_pg "$PGCTL" -D "$PG_SOCKDIR/data" -m immediate -w stop >/dev/null &&
	sleep 20 &&
	_as_pg "$PGCTL" -D "$PG_SOCKDIR/data" -l "$PG_SOCKDIR/log" -w -t 60 start >/dev/null &&
	wait_for "psql_q \"SELECT state FROM jobs WHERE id = $J\" | grep -qx done" 120 || {
		psql_q "SELECT state, error FROM jobs WHERE id = $J"; tail -20 serve.log; false; } &&
	psql_q "SELECT log FROM jobs WHERE id = $J" >log3 &&
	grep_or_fail "storing the runs: the database is back after" log3 &&
	test "$(psql_q "SELECT attempts FROM jobs WHERE id = $J")" = 1 &&
	every_result_once $J
'

test_expect_success 'no run was ever seen with part of its results' '
	kill $WATCH; sleep 0.3;
	psql_q "SELECT r.id, count(x.id) FROM runs r JOIN results x ON x.run_id = r.id GROUP BY r.id" >final &&
	awk -F"|" "NR == FNR { n[\$1] = \$2; next } \$2 != \"done\" || \$3 != n[\$1] { bad++; print } END { exit bad > 0 }" \
		final watch.log &&
	test "$(wc -l <watch.log)" -gt 10
'

test_expect_success 'the controller is still there, and stops cleanly' '
	kill -0 $SERVE && kill -TERM $SERVE &&
	wait_for "grep -q \"serve stopped\" serve.log" 30
'

test_done
