#!/bin/sh
# t5004: adaptive repetitions (`until: decided`, issues 5 and 13) through
# the queue with a real PostgreSQL, a local host and the real agent.  A
# patch whose plan says `until: decided` is measured in blocks, the
# patch's kernel and its base on the same host in ABBA order (P B | B P |
# P B), compared at the looks of its design (the first at >= 6 boots per
# side, Pocock's per-look level for 0.01 overall) on the sequence's own
# jobs only, until the deciding metric has a verdict, the cap, or the
# last look; `job show` says why it stopped, adaptive_steps records each
# block.  On one machine both "kernels" are the same one (two --kernel
# labels): an A/A comparison.  Also: a plan without `until` runs once; a
# failed or cancelled job queues nothing, and a rerun of the failed job
# resumes the sequence; a rerun of a done job joins its block and adds no
# look; a later patch measures its own base.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

H=$SCRATCH/home
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/fix.patch"

# Goes to the cap, whatever the numbers: blocks of 1, 4, 4 boots per
# side (1, 5, 9), and another block would make 13 > 9.  The design has
# one look, at 9 per side (the first block with at least 6), so the jobs
# do not depend on the verdict: with a noise band of 0% "no-change" (the
# 90% CI inside +-0%) cannot happen with a metric that varies at all; the
# metric has no direction, so it is inconclusive or, rarely in an A/A
# comparison (p < 0.01), changed.
cat >"$SCRATCH/noisy.yaml" <<'EOPLAN'
name: aa-noisy
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 2000
      counters: context-switches
iterations: 1
warmup: 1
boots: 1
until: decided
max_boots: 9
metrics:
  round_trip_us: {direction: none, tau: 0%, decides: true}
timeouts: {run: 1m, collect: 30s}
EOPLAN

# Stops early as no-change: two tasks pinned to one CPU bounce a byte
# (a round trip costs the same few microseconds each time, a few percent
# apart), against a noise band of 50%: the no-change interval of an A/A
# change lies well inside +-50% at 7 boots per side (blocks 3, 7, 11, 15:
# looks at 7, 11 and 15), so look 1 decides.  (A boot disturbed by other
# load widens the CI; then a later look decides -- the test allows any
# look, but the verdict must be no-change: an A/A change beyond 50% is
# out of reach.)
cat >"$SCRATCH/quiet.yaml" <<'EOPLAN'
name: aa-quiet
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 2000
      pin_cpu: 0
      counters: context-switches
iterations: 2
warmup: 1
boots: 3
until: decided
max_boots: 15
metrics:
  round_trip_us: {tau: 50%, decides: true}
timeouts: {run: 1m, collect: 30s}
EOPLAN

# The same workload without `until`: runs once.
cat >"$SCRATCH/fixed.yaml" <<'EOPLAN'
name: aa-fixed
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 2000
      counters: context-switches
iterations: 1
warmup: 1
boots: 2
timeouts: {run: 1m, collect: 30s}
EOPLAN

# jobs_of PLM: "block kernel state" per job of the patch, by start time.
jobs_of() {
	q "SELECT j.block || ' ' || k.name || ' ' || j.state FROM jobs j JOIN kernels k ON k.id = j.kernel_id WHERE j.patch_id = $1 ORDER BY j.started_at, j.id"
}

test_expect_success 'a local host' '
	schedfarm host add here --kind local >out 2>err &&
	grep_or_fail "host here added (local)" out
'

test_expect_success 'an A/A patch with a noisy deciding metric runs blocks until the cap' '
	schedfarm submit fix.patch --base aa-base --kernel aa-patch \
		--plan noisy.yaml --host here --json >s.json &&
	P=$(jq .patch s.json) && echo "$P" >noisy.plm &&
	schedfarm run >run.out 2>&1 &&
	jobs_of "$P" >jobs &&
	printf "%s\n" "0 aa-patch done" "0 aa-base done" "1 aa-base done" \
		"1 aa-patch done" "2 aa-patch done" "2 aa-base done" >want &&
	diff want jobs
'

test_expect_success 'every job ran on the one host, each block queued by the job before' '
	P=$(cat noisy.plm) &&
	test "$(q "SELECT count(DISTINCT host_id)::text || count(*) FILTER (WHERE host_constraint = \$\$here\$\$) FROM jobs WHERE patch_id = $P")" = 16 &&
	test "$(q "SELECT count(*) FROM jobs a JOIN jobs b ON b.patch_id = a.patch_id AND b.id <> a.id WHERE a.patch_id = $P AND b.started_at > a.started_at AND b.started_at < a.finished_at")" = 0
'

test_expect_success 'the cap holds: 9 boots per kernel, each numbered once' '
	P=$(cat noisy.plm) &&
	q "SELECT k.name, count(*), count(DISTINCT r.boot), min(r.boot), max(r.boot) FROM runs r JOIN jobs j ON j.id = r.job_id JOIN kernels k ON k.id = r.kernel_id WHERE j.patch_id = $P AND r.status = \$\$done\$\$ GROUP BY k.name ORDER BY k.name" >boots &&
	printf "%s\n" "aa-base|9|9|0|8" "aa-patch|9|9|0|8" >want &&
	diff want boots &&
	test "$(q "SELECT max(nr_runs) FROM jobs WHERE patch_id = $P")" -le 9
'

test_expect_success 'job show says why the sequence stopped, on the job that ended it' '
	P=$(cat noisy.plm) &&
	LAST=$(q "SELECT id FROM jobs WHERE patch_id = $P ORDER BY started_at DESC LIMIT 1") &&
	schedfarm job show "$LAST" --json >last.json &&
	jq -e ".block == 2 and .state == \"done\"" last.json &&
	jq -r .stop_reason last.json >why &&
	grep -E "^(stopped at the cap \(9 boots per side\) after the last look \(1 of 1\) with 1 undecided: round_trip_us inconclusive on here|decided at look 1 of 1: all 1 deciding metric decided \(p < 0.01 per look\); round_trip_us changed \([-+][0-9.]+%\) on here)$" why &&
	schedfarm job show "$LAST" >last.txt &&
	grep_or_fail "  block 2" last.txt &&
	grep_or_fail "  stop reason: " last.txt &&
	test "$(q "SELECT count(*) FROM jobs WHERE patch_id = $P AND stop_reason IS NOT NULL")" = 1 &&
	jq -r .log last.json >log &&
	grep_or_fail "until decided: block 2 of PLM#$P, boots 5..8 of aa-base" log
'

test_expect_success 'one look, at 9 per side; the blocks before it only queue the next' '
	P=$(cat noisy.plm) &&
	q "SELECT n_base || \$\$ \$\$ || n_new || \$\$ \$\$ || look || \$\$/\$\$ || looks || \$\$ \$\$ || alpha FROM comparisons WHERE patch_id = $P AND metric = \$\$round_trip_us\$\$ ORDER BY id" >looks &&
	echo "9 9 1/1 0.01" >want &&
	diff want looks &&
	q "SELECT verdict FROM comparisons WHERE patch_id = $P AND metric = \$\$round_trip_us\$\$" >v &&
	grep -E "^(inconclusive|changed)$" v &&
	q "SELECT block || \$\$ \$\$ || coalesce(look, 0) || \$\$ \$\$ || boots || \$\$ \$\$ || outcome FROM adaptive_steps WHERE patch_id = $P ORDER BY block" >steps &&
	printf "%s\n" "0 0 1 continue" "1 0 5 continue" "2 1 9 stop" >want &&
	diff want steps &&
	B0=$(q "SELECT max(id) FROM jobs WHERE patch_id = $P AND block = 0") &&
	schedfarm job show "$B0" --json | jq -r .log >log0 &&
	grep_or_fail "block 0: 1 boots per side, the first look is at 9 (look 1 of 1, p < 0.01 per look)" log0
'

test_expect_success 'an A/A patch whose deciding metric is quiet against a wide band stops early, no-change' '
	schedfarm submit fix.patch --base aa-base --kernel aa-patch2 \
		--plan quiet.yaml --host here --json >s2.json &&
	P=$(jq .patch s2.json) && echo "$P" >quiet.plm &&
	schedfarm run >run2.out 2>&1 &&
	LAST=$(q "SELECT id FROM jobs WHERE patch_id = $P ORDER BY started_at DESC LIMIT 1") &&
	schedfarm job show "$LAST" --json >q.json &&
	jq -r .stop_reason q.json >why2 &&
	grep -E "^decided at look [1-3] of 3: all 1 deciding metric decided .*; round_trip_us no-change \([-+][0-9.]+%\) on here$" why2 &&
	LOOK=$(sed -n "s/^decided at look \([1-3]\).*/\1/p" why2) &&
	test "$(q "SELECT count(*) FROM jobs WHERE patch_id = $P AND state = \$\$done\$\$")" = $((2 * (LOOK + 1))) &&
	q "SELECT DISTINCT looks || \$\$ \$\$ || round(alpha::numeric, 4) || \$\$ \$\$ || round(nc_level::numeric, 3) FROM comparisons WHERE patch_id = $P" >lv &&
	grep -E "^3 0\.00[34][0-9] 0\.9[45][0-9]$" lv &&
	test "$(q "SELECT verdict FROM latest_comparisons WHERE patch_id = $P AND metric = \$\$round_trip_us\$\$")" = no-change &&
	say "quiet plan decided at look $LOOK"
'

test_expect_success 'a plan without until: decided runs exactly once, no reason recorded' '
	schedfarm submit fix.patch --base aa-base --kernel aa-patch3 \
		--plan fixed.yaml --host here --json >s3.json &&
	P=$(jq .patch s3.json) &&
	schedfarm run >run3.out 2>&1 &&
	test "$(q "SELECT count(*) || state || block || coalesce(stop_reason, \$\$-\$\$) FROM jobs WHERE patch_id = $P GROUP BY state, block, stop_reason")" = "1done0-" &&
	test "$(q "SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.patch_id = $P")" = 2 &&
	schedfarm job show "$(jq .job s3.json)" --json | jq -e ".block == 0 and .stop_reason == null"
'

# An agent that fails every run: the first block fails, nothing follows.
cat >"$SCRATCH/failing-agent" <<EOSH
#!/bin/sh
if [ "\$1" = run ]; then echo "refusing to run" >&2; exit 3; fi
exec "$AGENT_BIN" "\$@"
EOSH
chmod 755 "$SCRATCH/failing-agent"

test_expect_success 'a failed block queues no more blocks and says so' '
	schedfarm submit fix.patch --base aa-base --kernel aa-patch4 \
		--plan noisy.yaml --host here --json >s4.json &&
	P=$(jq .patch s4.json) &&
	! SCHEDFARM_AGENT=$SCRATCH/failing-agent schedfarm run >run4.out 2>&1 &&
	test "$(q "SELECT count(*) || state FROM jobs WHERE patch_id = $P GROUP BY state")" = 1failed &&
	test "$(q "SELECT count(*) FROM jobs WHERE state = \$\$queued\$\$")" = 0 &&
	schedfarm job show "$(jq .job s4.json)" --json >f.json &&
	jq -r .stop_reason f.json >why4 &&
	grep_or_fail "stopped: this block failed" why4
'

# An agent that cancels the job whose number is in $SCRATCH/cancel-me as
# it starts a run: the job is cancelled while it runs.  The local agent
# inherits none of the controller's settings (lab/runner.c): the state
# folder is written into the script.
cat >"$SCRATCH/cancelling-agent" <<EOSH
#!/bin/sh
if [ "\$1" = run ] && [ -f "$SCRATCH/cancel-me" ]; then
	SCHEDFARM_HOME="$H" "$SCHEDFARM_BIN" job cancel "\$(cat "$SCRATCH/cancel-me")" >/dev/null
fi
exec "$AGENT_BIN" "\$@"
EOSH
chmod 755 "$SCRATCH/cancelling-agent"

test_expect_success 'a job cancelled while it runs queues nothing either' '
	schedfarm submit fix.patch --base aa-base --kernel aa-patch5 \
		--plan noisy.yaml --host here --json >s5.json &&
	J=$(jq .job s5.json) && P=$(jq .patch s5.json) &&
	echo "$J" >cancel-me &&
	SCHEDFARM_AGENT=$SCRATCH/cancelling-agent schedfarm run >run5.out 2>&1;
	rm -f cancel-me &&
	test "$(q "SELECT count(*) || state FROM jobs WHERE patch_id = $P GROUP BY state")" = 1cancelled &&
	test "$(q "SELECT count(*) FROM jobs WHERE state = \$\$queued\$\$")" = 0 &&
	schedfarm job show "$J" --json | jq -e ".stop_reason == \"cancelled by the user\""
'

test_expect_success 'a later patch measures its own base: looks read only its sequence' '
	schedfarm submit fix.patch --base aa-base --kernel aa-patch6 \
		--plan noisy.yaml --host here --json >s6.json &&
	P=$(jq .patch s6.json) && echo "$P" >p6.plm &&
	schedfarm run >run6.out 2>&1 &&
	jobs_of "$P" >jobs6 &&
	printf "%s\n" "0 aa-patch6 done" "0 aa-base done" "1 aa-base done" \
		"1 aa-patch6 done" "2 aa-patch6 done" "2 aa-base done" >want &&
	diff want jobs6 &&
	# aa-base has been measured here with this plan by other sequences
	# before; the look saw the 9 boots of this sequence only.
	test "$(q "SELECT n_base || \$\$ \$\$ || n_new FROM comparisons WHERE patch_id = $P AND metric = \$\$round_trip_us\$\$")" = "9 9" &&
	test "$(q "SELECT sum(j.nr_runs) FROM jobs j JOIN kernels k ON k.id = j.kernel_id WHERE j.patch_id = $P AND k.name = \$\$aa-base\$\$")" = 9
'

test_expect_success 'a rerun of a done job joins its block: no new look, no new block' '
	P=$(cat p6.plm) &&
	J=$(q "SELECT id FROM jobs WHERE patch_id = $P AND block = 1 AND kernel_id = (SELECT id FROM kernels WHERE name = \$\$aa-base\$\$)") &&
	looks=$(q "SELECT count(*) FROM comparisons WHERE patch_id = $P") &&
	schedfarm rerun "$J" --host here --json >r.json &&
	R=$(jq .job r.json) &&
	schedfarm run >run7.out 2>&1 &&
	schedfarm job show "$R" --json >r7.json &&
	jq -e ".block == 1 and .state == \"done\"" r7.json &&
	test "$(q "SELECT rerun_of FROM jobs WHERE id = $R")" = "$J" &&
	jq -r .log r7.json >log7 &&
	grep_or_fail "block 1 ended before: this job'\''s boots join the sequence'\''s later looks; no new look" log7 &&
	test "$(q "SELECT count(*) FROM comparisons WHERE patch_id = $P")" = "$looks" &&
	test "$(q "SELECT count(*) FROM adaptive_steps WHERE patch_id = $P")" = 3 &&
	test "$(q "SELECT count(*) FROM jobs WHERE state = \$\$queued\$\$")" = 0
'

test_expect_success 'a rerun of a sequence job on another host is refused' '
	P=$(cat p6.plm) &&
	schedfarm host add there --kind local >/dev/null &&
	J=$(q "SELECT min(id) FROM jobs WHERE patch_id = $P") &&
	! schedfarm rerun "$J" --host there 2>err &&
	grep_or_fail "STP#$J is block 0 of the \`until: decided\` sequence of PLM#$P on here: a rerun joins that sequence, so it runs on here" err &&
	schedfarm host remove there >/dev/null
'

test_expect_success 'a rerun of the failed job resumes its sequence to the end' '
	P=$(jq .patch s4.json) && F=$(jq .job s4.json) &&
	schedfarm rerun "$F" --host here >/dev/null &&
	schedfarm run >run8.out 2>&1 &&
	jobs_of "$P" >jobs4 &&
	printf "%s\n" "0 aa-patch4 failed" "0 aa-patch4 done" "0 aa-base done" \
		"1 aa-base done" "1 aa-patch4 done" "2 aa-patch4 done" "2 aa-base done" >want &&
	diff want jobs4 &&
	test "$(q "SELECT count(*) FROM comparisons WHERE patch_id = $P AND metric = \$\$round_trip_us\$\$")" = 1 &&
	test "$(q "SELECT count(*) FROM jobs WHERE patch_id = $P AND stop_reason IS NOT NULL AND state = \$\$done\$\$")" = 1
'

test_done
