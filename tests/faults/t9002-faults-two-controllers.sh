#!/bin/sh
# t9002 (make check-faults): two controllers, 10 000 jobs, one of them
# killed every 30 s.  Two `serve` processes on one database work through
# FAULT_JOBS (10 000) short jobs over FAULT_HOSTS (20) local hosts; every
# FAULT_KILL_S (30) seconds one of them, in turn, is SIGKILLed with its job
# processes (its whole process group) and started again.  The jobs it held
# come back once their lease (10 s) expires.  In SQL at the end: every job
# done, each with exactly one run done and stored -- by its last attempt,
# or by an earlier one that was killed after the run finished (a finished
# run is kept, and the next attempt does not run it again) -- the runs a
# kill cut short aborted and never stored, no result doubled, no two
# attempts of a job overlapping in time, every host idle and unleased.
# Prints the throughput and how many jobs the kills sent back.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v setsid >/dev/null || skip_all "setsid not installed (util-linux)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

NJOBS=${FAULT_JOBS:-10000}
NHOSTS=${FAULT_HOSTS:-20}
KILL_S=${FAULT_KILL_S:-30}
JOBS_PER=$(( (NHOSTS + 1) / 2 ))

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
mkdir -p "$SCHEDFARM_HOME"
psql_q() {
	"$(pg_bindir)/psql" "$PG_CONNINFO" -XAt -c "$1"
}
printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"
cat >"$SCRATCH/short.yaml" <<'EOPLAN'
name: short
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 500
      counters: context-switches
iterations: 2
warmup: 0
EOPLAN

test_expect_success "$NHOSTS local hosts and $NJOBS queued jobs" '
	i=1 &&
	while [ $i -le $NHOSTS ]; do
		schedfarm host add h$i --kind local >/dev/null 2>&1 || return 1
		i=$((i + 1))
	done &&
	schedfarm submit p.patch --base b --kernel k --plan short.yaml --json >first.json &&
	first=$(sed -n "s/.*\"job\":\([0-9]*\).*/\1/p" first.json) &&
	# The other jobs as copies of the first, in one statement: submitting
	# them one by one would take longer than running them.
	psql_q "INSERT INTO jobs (patch_id, kernel_id, plan_id, name, req_kinds,
			req_min_sockets, req_min_cpus, req_min_memory_mb, req_tags, nr_runs)
		SELECT patch_id, kernel_id, plan_id, name, req_kinds, req_min_sockets,
			req_min_cpus, req_min_memory_mb, req_tags, nr_runs
		FROM jobs, generate_series(2, $NJOBS) WHERE id = $first" >/dev/null &&
	test "$(psql_q "SELECT count(*) FROM jobs WHERE state = \$\$queued\$\$")" = $NJOBS
'

# start N: serve N in a process group of its own; its pid in PID_N.
start() {
	setsid "$SCHEDFARM_BIN" serve --jobs $JOBS_PER --lease 10 --wake 1 \
		>>"$SCRATCH/serve$1.log" 2>&1 &
	eval "PID_$1=\$!"
	echo $! >>"$SCRATCH/pids"
}
: >"$SCRATCH/pids"
test_atexit 'for p in $(cat "$SCRATCH/pids"); do kill -KILL -$p; done'

test_expect_success 'two controllers drain the queue while one of them is killed every '"$KILL_S"' s' '
	start 1 && start 2 &&
	t0=$(date +%s) && kills=0 && victim=1 &&
	while [ "$(psql_q "SELECT count(*) FROM jobs WHERE state NOT IN (\$\$done\$\$, \$\$failed\$\$, \$\$cancelled\$\$)")" != 0 ]; do
		sleep "$KILL_S"
		left=$(psql_q "SELECT count(*) FROM jobs WHERE state NOT IN (\$\$done\$\$, \$\$failed\$\$, \$\$cancelled\$\$)")
		[ "$left" = 0 ] && break
		eval "p=\$PID_$victim"
		kill -KILL -$p 2>/dev/null
		kills=$((kills + 1))
		say "$(( $(date +%s) - t0 )) s: killed controller $victim (pid $p); $left jobs left"
		start $victim
		victim=$((3 - victim))
		[ $(( $(date +%s) - t0 )) -lt 14400 ] || { echo "not done in 4 h"; return 1; }
	done &&
	t1=$(date +%s) &&
	echo "$((t1 - t0)) $kills" >elapsed
'

# show WHAT SQL: the rows a failed check found, at most 10 (the check
# itself is the test's; this is what a failure prints).
show() {
	echo "$1:"
	psql_q "$2 LIMIT 10"
	psql_q "SELECT r.job_id, r.attempt, r.status, r.error, r.ingested_at IS NOT NULL FROM runs r WHERE r.job_id IN (SELECT id FROM ($2) s) ORDER BY r.job_id, r.attempt LIMIT 30"
}

test_expect_success 'every job done, its run stored once (by whichever attempt finished it)' '
	notdone="SELECT id, state, attempts, error_phase, error FROM jobs WHERE state <> \$\$done\$\$" &&
	twice="SELECT j.id, j.state, j.attempts FROM jobs j WHERE (SELECT count(*) FROM runs r WHERE r.job_id = j.id AND r.status = \$\$done\$\$) <> 1
		OR EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id AND r.status = \$\$done\$\$ AND r.attempt > j.attempts)
		OR EXISTS (SELECT 1 FROM runs r JOIN runs d ON d.job_id = r.job_id AND d.status = \$\$done\$\$
			WHERE r.job_id = j.id AND r.attempt > d.attempt)" &&
	partial="SELECT job_id AS id, attempt, status FROM runs WHERE status <> \$\$done\$\$ AND (ingested_at IS NOT NULL OR EXISTS (SELECT 1 FROM results x WHERE x.run_id = runs.id))" &&
	{ test "$(psql_q "SELECT count(*) FROM ($notdone) s")" = 0 || { show "jobs not done" "$notdone"; false; }; } &&
	{ test "$(psql_q "SELECT count(*) FROM ($twice) s")" = 0 || { show "jobs without exactly one done run, or run again after it" "$twice"; false; }; } &&
	kept=$(psql_q "SELECT count(*) FROM jobs j JOIN runs r ON r.job_id = j.id AND r.status = \$\$done\$\$ WHERE r.attempt < j.attempts") &&
	say "$kept jobs kept the run an earlier, killed attempt had finished (not run again)" &&
	{ test "$(psql_q "SELECT count(*) FROM ($partial) s")" = 0 || { show "runs not done but stored" "$partial"; false; }; }
'

test_expect_success 'no result doubled or missing' '
	psql_q "SELECT count(*) - count(DISTINCT (run_id, metric, iteration)) FROM results" >n && test "$(cat n)" = 0 &&
	psql_q "SELECT count(*) FROM runs r WHERE r.status = \$\$done\$\$ AND NOT EXISTS (SELECT 1 FROM results x WHERE x.run_id = r.id)" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT count(DISTINCT c) FROM (SELECT count(*) c FROM results x JOIN runs r ON r.id = x.run_id WHERE r.status = \$\$done\$\$ GROUP BY r.id) s" >n &&
	test "$(cat n)" = 1
'

test_expect_success 'no two attempts of a job ever ran at once; hosts idle and unleased' '
	psql_q "SELECT count(*) FROM runs a JOIN runs b ON a.job_id = b.job_id AND a.attempt < b.attempt
		WHERE b.started_at < coalesce(a.finished_at, now())" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT count(*) FROM runs a JOIN runs b ON a.host_id = b.host_id AND a.id < b.id
		AND a.started_at < b.finished_at AND b.started_at < a.finished_at
		AND a.status = \$\$done\$\$ AND b.status = \$\$done\$\$" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT count(*) FROM hosts WHERE state <> \$\$idle\$\$ OR lease_owner IS NOT NULL" >n &&
	test "$(cat n)" = 0
'

test_expect_success 'the figures' '
	read -r secs kills <elapsed &&
	again=$(psql_q "SELECT count(*) FROM jobs WHERE attempts > 1") &&
	claims=$(psql_q "SELECT sum(attempts) FROM jobs") &&
	say "$NJOBS jobs over $NHOSTS local hosts, two controllers, one killed every $KILL_S s ($kills kills)" &&
	say "done in $secs s: $(awk -v n=$NJOBS -v s=$secs "BEGIN { printf \"%.1f\", n / s }") jobs/s" &&
	say "$again jobs ran again after a kill ($claims claims for $NJOBS jobs); every job finished once" &&
	test "$kills" -ge 1
'

test_done
