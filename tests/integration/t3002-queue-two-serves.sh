#!/bin/sh
# t3002: many controllers on one database: two `serve` processes on 50
# queued jobs and 4 hosts claim every job exactly once and never run two
# jobs on one host at a time; a controller killed mid-job leaves a lease
# that expires, and the other controller runs the job again.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"
cat >"$SCRATCH/tiny.yaml" <<'EOPLAN'
name: tiny
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 2000
      counters: context-switches
iterations: 1
warmup: 0
EOPLAN
cat >"$SCRATCH/slow.yaml" <<'EOPLAN'
name: slow
workloads:
  - workload: memchunk
    params:
      short_threads: 1
      long_threads: 1
      duration: 2s
iterations: 6
warmup: 0
EOPLAN

test_expect_success 'four local hosts and 50 queued jobs' '
	for h in h1 h2 h3 h4; do
		schedfarm host add $h --kind local >/dev/null 2>&1 || return 1
	done &&
	for i in $(seq 1 50); do
		schedfarm submit p.patch --base v6.1 --kernel k --plan tiny.yaml >/dev/null || return 1
	done &&
	schedfarm queue --state queued --json | jq -e "length == 50"
'

serve_start serve1.log --jobs 4
S1=$SERVE
serve_start serve2.log --jobs 4
S2=$SERVE

test_expect_success 'both controllers start' '
	wait_for "grep -q \"serve ready\" serve1.log && grep -q \"serve ready\" serve2.log" 30
'

test_expect_success 'all 50 jobs finish' '
	wait_for "schedfarm queue --state done --json | jq -e \"length == 50\"" 240 || {
		schedfarm queue --state all | head -20; tail -n 20 serve1.log serve2.log; false; }
'

test_expect_success 'every job was claimed exactly once' '
	cat serve1.log serve2.log | sed -n "s/.*job \([0-9]*\): claimed with host.*/\1/p" >claims &&
	test "$(wc -l <claims)" = 50 &&
	test "$(sort -u claims | wc -l)" = 50 &&
	schedfarm db psql -- -At -c "SELECT count(*) FROM jobs WHERE attempts <> 1 OR state <> \$\$done\$\$" >n &&
	test "$(cat n)" = 0 &&
	schedfarm db psql -- -At -c "SELECT count(*), count(DISTINCT job_id) FROM job_phases WHERE phase = \$\$run\$\$" >n &&
	test "$(cat n)" = "50|50" &&
	schedfarm db psql -- -At -c "SELECT count(*), count(DISTINCT job_id) FROM runs" >n &&
	test "$(cat n)" = "50|50"
'

test_expect_success 'both controllers took a share' '
	grep -q "claimed with host" serve1.log &&
	grep -q "claimed with host" serve2.log
'

test_expect_success 'no host ever ran two jobs at once' '
	schedfarm db psql -- -At -c "SELECT count(*) FROM runs a JOIN runs b ON a.host_id = b.host_id AND a.id < b.id AND a.started_at < b.finished_at AND b.started_at < a.finished_at" >n &&
	test "$(cat n)" = 0 &&
	schedfarm db psql -- -At -c "SELECT count(DISTINCT host_id) FROM runs" >n &&
	test "$(cat n)" -ge 2
'

test_expect_success 'every result stored once' '
	schedfarm db psql -- -At -c "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM results x WHERE x.run_id = r.id)" >n &&
	test "$(cat n)" = 0
'

test_expect_success 'hosts are all idle and unleased at the end' '
	schedfarm host list --json | jq -e "all(.[]; .state == \"idle\" and .lease_owner == null)"
'

test_expect_success 'both controllers stop on SIGTERM' '
	kill -TERM $S1 && wait_for "grep -q \"serve stopped\" serve1.log" 30 &&
	kill -TERM $S2 && wait_for "grep -q \"serve stopped\" serve2.log" 30
'

serve_start serve3.log --jobs 1 --lease 10 --wake 1
S3=$SERVE

test_expect_success 'a controller dies (SIGKILL) in the middle of a job' '
	wait_for "grep -q \"serve ready\" serve3.log" 30 &&
	schedfarm submit p.patch --base v6.1 --kernel k --plan slow.yaml --host h1 --json >j.json &&
	J=$(jq .job j.json) && echo $J >jobid &&
	wait_for "schedfarm job show $J --json | jq -e \".runs[0].status == \\\"running\\\"\"" 30 &&
	child=$(pgrep -P $S3 | head -n 1) && test -n "$child" &&
	kill -KILL $S3 $child &&
	schedfarm job show $J --json | jq -e ".state == \"running\" and .lease_owner != null"
'

# A lease shorter than the job: only heartbeats keep it.
serve_start serve4.log --jobs 1 --lease 10 --wake 1
S4=$SERVE

test_expect_success 'its lease expires; another controller runs the job again, renewing its lease' '
	J=$(cat jobid) &&
	wait_for "schedfarm job show $J --json | jq -e \".state == \\\"done\\\"\"" 90 || {
		schedfarm job show $J; cat serve4.log; false; } &&
	grep_or_fail "back in the queue" serve4.log &&
	schedfarm job show $J --json >jj.json &&
	jq -e ".attempts == 2 and ([.runs[] | select(.status == \"done\")] | length) == 1 and ([.runs[] | select(.status == \"aborted\")] | length) == 1" jj.json &&
	schedfarm results $J --json | jq -e "([.[].run] | unique | length) == 1 and length > 0"
'

test_expect_success 'SIGTERM puts a running job back in the queue and frees its host' '
	schedfarm submit p.patch --base v6.1 --kernel k --plan slow.yaml --host h2 --json >t.json &&
	J=$(jq .job t.json) &&
	wait_for "schedfarm job show $J --json | jq -e \".runs[0].status == \\\"running\\\"\"" 30 &&
	kill -TERM $S4 &&
	wait_for "grep -q \"serve stopped\" serve4.log" 30 &&
	schedfarm job show $J --json >tj.json &&
	jq -e ".state == \"queued\" and .attempts == 0 and .lease_owner == null and all(.runs[]; .status == \"aborted\")" tj.json &&
	schedfarm host show h2 --json | jq -e ".state == \"idle\""
'

test_done
