#!/bin/sh
# t9001 (make check-faults): kill -9 at every phase.  A libvirt/qemu (TCG)
# host and the job path in full: a patched kernel built from Debian's
# linux-source, booted, the plan's runs, collect, ingest.  The controller
# running the job is SIGKILLed with its job process (its whole process
# group) during build, boot, run, collect and ingest, FAULT_KILLS (3)
# times each, at a random offset into the phase (seeded: FAULT_SEED), and
# a new controller is started each time.  The build is killed three times
# on one job (each attempt starts the build again), the other phases on
# jobs of their own, once each.
#
# For every job at the end: it is done (or failed, with the phase and the
# reason), each of its planned runs is stored exactly once -- by whichever
# attempt finished it: a run that ended before the kill is kept and the
# next attempt runs only the others (jobexec.c find_done_before) -- each
# result once and
# exactly as the agent's results file had it (runs.raw_lines holds the
# file, or the whole stream), no guest is left running (the dead
# controller's is taken down once its lease expired), no lease is left.
# Prints the table phase x {kills, lost, doubled, leaked, time to resume}.
# The first full build takes about 15 minutes on 2 quiet cores (each kill
# in the build restarts it); FAULT_PHASES picks phases (e.g. "boot run
# collect ingest" to leave the build out).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

PHASES=${FAULT_PHASES:-build boot run collect ingest}
KILLS=${FAULT_KILLS:-3}
SEED=${FAULT_SEED:-14}
LEASE=20
SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
case " $PHASES " in *" build "*)
	[ -n "$SRC" ] || skip_all "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
	for p in flex bison bc make gcc; do
		command -v $p >/dev/null 2>&1 || skip_all "$p not installed (make deps)"
	done ;;
esac
boot_prereqs
libvirt_up || skip_all "libvirtd would not start"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v setsid >/dev/null || skip_all "setsid not installed (util-linux)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kernels
mkdir -p "$SCHEDFARM_HOME" "$SCHEDFARM_KERNEL_CACHE"
psql_q() {
	"$(pg_bindir)/psql" "$PG_CONNINFO" -XAt -c "$1"
}
VMLINUZ=$(debian_vmlinuz)
REL=${VMLINUZ#/boot/vmlinuz-}
G=$SCRATCH/guest
mkdir -p "$G"
PORT=$(free_port)
# Seeded offsets: an awk generator over the seed.
rand_ms() { # rand_ms N MAX_MS: the N-th offset of the seed, in [0, MAX_MS)
	awk -v s="$SEED" -v n="$1" -v m="$2" 'BEGIN { srand(s * 1000 + n); print int(rand() * m) }'
}

# Twenty runs of a few seconds: the run phase lasts long enough to be hit
# anywhere, and collecting and storing twenty runs' samples takes a moment.
cat >"$SCRATCH/plan.yaml" <<'EOF'
name: t9001
workload: memchunk
params:
  long_threads: 1
  sleep_every: 200
  sleep_us: 2000
  duration: 1s
  chunk_slots: [16, 32, 64, 128, 256]
variants:
  - {short_threads: 1}
  - {short_threads: 2}
  - {short_threads: 3}
  - {short_threads: 4}
iterations: 1
warmup: 0
host:
  kind: [libvirt]
timeouts:
  boot: 10m
  run: 5m
EOF

test_expect_success 'a guest image, Debian kernel as the host'"'"'s known-good, a libvirt host' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" >out &&
	vm_host_add vm "$PORT" --cpus 2 --memory-mb 768 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\", \"agent_timeout_ms\": 300000, \"ssh_timeout_ms\": 120000}" &&
	schedfarm host check vm --kernel debian >out 2>err &&
	grep_or_fail "passed" out &&
	printf "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n" >p.patch &&
	psql_q "SELECT id FROM farm_identity" >farm
'
DOM=farm-$(cat "$SCRATCH/farm" 2>/dev/null)

# The kernel the build phase makes: the base (linux-source, the farm's
# config) with a patch of this run's own (a comment, so that it builds
# and boots like the base), so that no earlier build is a cache hit.
if [ -n "$SRC" ]; then
	tok=$(date +%s)-$$
	cat >"$SCRATCH/0001-fault-test.patch" <<EOP
From: schedfarm test <test@example.org>
Subject: [PATCH] sched: note a fault test run $tok

---
 kernel/sched/core.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/kernel/sched/core.c b/kernel/sched/core.c
--- a/kernel/sched/core.c
+++ b/kernel/sched/core.c
@@ -1,3 +1,4 @@
+// schedfarm fault test $tok
 // SPDX-License-Identifier: GPL-2.0-only
 /*
  *  kernel/sched/core.c
EOP
fi

: >"$SCRATCH/pids"
test_atexit 'for p in $(cat "$SCRATCH/pids"); do kill -KILL -$p; done'
# A controller in a process group of its own; its pid in CTL and in the
# file ctl (each test runs in a subshell: the next one reads the file).
start_ctl() {
	setsid "$SCHEDFARM_BIN" serve --jobs 1 --lease $LEASE --wake 1 \
		>>"$SCRATCH/serve.log" 2>&1 &
	CTL=$!
	echo $CTL >>"$SCRATCH/pids"
	echo $CTL >"$SCRATCH/ctl"
	wait_for "test \$(grep -c \"serve ready\" '$SCRATCH/serve.log') -ge $(cat "$SCRATCH/nctl" 2>/dev/null || echo 1)" 60
	echo $(( $(cat "$SCRATCH/nctl" 2>/dev/null || echo 1) + 1 )) >"$SCRATCH/nctl"
}
state_of() {
	psql_q "SELECT state FROM jobs WHERE id = $1"
}
# Rough phase lengths (ms) for the offsets: a build runs for minutes (an
# offset inside its first two), the rest as measured on the first job,
# collect and ingest with the STRETCH_MS the database adds to them (below).
phase_ms() {
	case $1 in
	build) echo 120000 ;;
	boot) echo "${BOOT_MS:-8000}" ;;
	run) echo "${RUN_MS:-20000}" ;;
	collect) echo $((${COLLECT_MS:-0} + STRETCH_MS)) ;;
	ingest) echo $((${INGEST_MS:-0} + STRETCH_MS)) ;;
	esac
}
state_name() {
	case $1 in
	build) echo building ;; boot) echo booting ;; run) echo running ;;
	collect) echo collecting ;; ingest) echo ingesting ;;
	esac
}

# kill_in JOB PHASE N: wait for a new attempt of JOB (one not killed yet)
# to enter PHASE, wait the N-th seeded offset into it, and SIGKILL the
# controller (its group) if the job is still in it.  Appends "phase
# kill_epoch_ms job attempt" to kills, or "phase missed".
kill_in() {
	st=$(state_name "$2")
	done_att=$(awk -v j="$1" '$3 == j { a = $4 } END { print a + 0 }' "$SCRATCH/kills")
	wait_for "test \"\$(psql_q \"SELECT state || \\\$\\\$ \\\$\\\$ || (attempts > $done_att) FROM jobs WHERE id = $1\")\" = \"$st true\"" 3600 ||
		{ echo "job $1 never reached $st in a new attempt"; return 1; }
	att=$(psql_q "SELECT attempts FROM jobs WHERE id = $1")
	off=$(rand_ms "$3" "$(phase_ms "$2")")
	sleep "$(awk -v m="$off" "BEGIN { print m / 1000 }")"
	if [ "$(state_of "$1")" = "$st" ]; then
		CTL=$(cat "$SCRATCH/ctl")
		kill -KILL -$CTL
		echo "$2 $(date +%s%3N) $1 $att" >>"$SCRATCH/kills"
		say "killed the controller in $2 of job $1 (attempt $att) ${off} ms into it"
		start_ctl
	else
		echo "$2 missed" >>"$SCRATCH/kills"
		say "$2 of job $1 was over before ${off} ms: not counted"
	fi
}

test_expect_success 'a calibration job measures the phases (no kill)' '
	start_ctl &&
	schedfarm submit p.patch --base b --kernel debian --plan plan.yaml --json >c.json &&
	J=$(jq .job c.json) &&
	wait_for "test \"\$(state_of $J)\" = done" 3600 &&
	psql_q "SELECT phase, (extract(epoch FROM finished_at - started_at) * 1000)::int FROM job_phases WHERE job_id = $J" >cal &&
	cat cal
'
BOOT_MS=$(sed -n "s/^boot|//p" "$SCRATCH/cal" 2>/dev/null | head -n 1)
RUN_MS=$(sed -n "s/^run|//p" "$SCRATCH/cal" 2>/dev/null | head -n 1)
COLLECT_MS=$(sed -n "s/^collect|//p" "$SCRATCH/cal" 2>/dev/null | head -n 1)
INGEST_MS=$(sed -n "s/^ingest|//p" "$SCRATCH/cal" 2>/dev/null | head -n 1)

# Collect and ingest take a few milliseconds here (each run is stored when
# it ends, and its stream was whole, so there is nothing to fetch), too
# short for a kill from outside to land in.  A slow database stretches
# them: a trigger holds the insert of their phase row for STRETCH_MS, with
# the job already in the phase (its state is committed first).  So the
# kills in these two phases land at their start, not spread over work
# they do not have on this path.
STRETCH_MS=2000
test_expect_success "collect and ingest stretched by a slow database ($STRETCH_MS ms)" '
	psql_q "CREATE FUNCTION t9001_slow() RETURNS trigger LANGUAGE plpgsql AS \$f\$ BEGIN PERFORM pg_sleep($STRETCH_MS / 1000.0); RETURN NEW; END \$f\$" &&
	psql_q "CREATE TRIGGER t9001_slow BEFORE INSERT ON job_phases FOR EACH ROW WHEN (NEW.phase IN (\$\$collect\$\$, \$\$ingest\$\$)) EXECUTE FUNCTION t9001_slow()"
'
: >"$SCRATCH/kills"
: >"$SCRATCH/jobs"

for phase in $PHASES; do
	if [ "$phase" = build ]; then
		test_expect_success "kill -9 during build, $KILLS times on one job" '
			schedfarm submit 0001-fault-test.patch --base "$SRC" --plan plan.yaml --json >b.json &&
			J=$(jq .job b.json) && echo $J >>jobs &&
			# Each kill costs the job an attempt: give it enough.
			psql_q "UPDATE jobs SET max_attempts = $((KILLS + 2)) WHERE id = $J" >/dev/null &&
			n=0 && tries=0 &&
			while [ $n -lt $KILLS ] && [ $tries -lt $((KILLS * 3)) ]; do
				tries=$((tries + 1))
				kill_in $J build $tries || return 1
				tail -n 1 kills | grep -q missed || n=$((n + 1))
			done &&
			test $n = $KILLS
		'
		continue
	fi
	test_expect_success "kill -9 during $phase, $KILLS times" '
		n=0 && tries=0 &&
		while [ $n -lt $KILLS ] && [ $tries -lt $((KILLS * 4)) ]; do
			tries=$((tries + 1))
			schedfarm submit p.patch --base b --kernel debian --plan plan.yaml --json >k.json &&
			J=$(jq .job k.json) && echo $J >>jobs &&
			kill_in $J $phase $((tries + 100)) || return 1
			tail -n 1 kills | grep -q missed || n=$((n + 1))
			wait_for "test \"\$(state_of $J)\" = done -o \"\$(state_of $J)\" = failed" 3600 || return 1
		done &&
		test $n = $KILLS
	'
done

test_expect_success 'every job ends, done or failed with its phase and reason' '
	for J in $(cat jobs); do
		wait_for "test \"\$(state_of $J)\" = done -o \"\$(state_of $J)\" = failed" 3600 || return 1
	done &&
	psql_q "SELECT count(*) FROM jobs WHERE state = \$\$failed\$\$ AND (error_phase IS NULL OR error IS NULL)" >n &&
	test "$(cat n)" = 0 &&
	psql_q "SELECT id, state, attempts, error_phase, left(error, 80) FROM jobs ORDER BY id"
'

# The table: per phase, kills that landed, runs lost (a done job whose
# stored runs are fewer than its plan's, or whose results differ from its
# results file), doubled (a planned run -- boot, seq -- stored twice, or a
# result twice),
# leaked (a domain or lease of the job left), the time from the kill to
# the next attempt's claim (median, s), and kept: jobs whose runs were
# stored by more than one attempt (the killed one had finished some).
test_expect_success 'nothing lost, doubled or leaked; the table' '
	wait_for "test -z \"\$(virsh -c qemu:///system list --name | grep \"^$DOM-\")\"" 300 &&
	printf "%-8s %5s %5s %7s %6s %10s %5s\n" phase kills lost doubled leaked "resume s" kept >table &&
	bad=0 &&
	for phase in $PHASES; do
		kills=$(grep -c "^$phase [0-9]" kills || true) &&
		lost=0 doubled=0 leaked=0 kept=0 &&
		: >resume &&
		for line in $(grep "^$phase [0-9]" kills | tr " " ","); do
			t=$(echo $line | cut -d, -f2) J=$(echo $line | cut -d, -f3) a=$(echo $line | cut -d, -f4)
			nplan=$(psql_q "SELECT nr_runs FROM jobs WHERE id = $J")
			st=$(state_of $J)
			# planned runs stored (boot, seq) and those stored twice
			ndone=$(psql_q "SELECT count(DISTINCT (boot, seq)) FROM runs WHERE job_id = $J AND status = \$\$done\$\$")
			ntwice=$(psql_q "SELECT count(*) - count(DISTINCT (boot, seq)) FROM runs WHERE job_id = $J AND status = \$\$done\$\$")
			natt=$(psql_q "SELECT count(DISTINCT attempt) FROM runs WHERE job_id = $J AND status = \$\$done\$\$")
			diff=$(psql_q "WITH want AS (
				SELECT r.id, l->>\$\$metric\$\$ m, (l->>\$\$iteration\$\$)::int i
				FROM runs r, regexp_split_to_table(r.raw_lines, chr(10)) line,
				     LATERAL (SELECT line::jsonb l) j
				WHERE r.job_id = $J AND r.status = \$\$done\$\$ AND line <> \$\$\$\$ AND l->>\$\$type\$\$ = \$\$result\$\$),
			    got AS (SELECT x.run_id, x.metric, x.iteration FROM results x JOIN runs r ON r.id = x.run_id WHERE r.job_id = $J)
			    SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM got) a),
				   (SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM want) b)")
			missing=${diff%|*} extra=${diff#*|}
			{ [ "$st" = done ] && [ "$ndone" != "$nplan" ]; } && lost=$((lost + 1))
			[ "$missing" != 0 ] && lost=$((lost + 1))
			{ [ "$ntwice" != 0 ] || [ "$extra" != 0 ]; } && doubled=$((doubled + 1))
			[ "$natt" -gt 1 ] && kept=$((kept + 1))
			if [ "$lost$doubled" != 00 ]; then
				echo "job $J ($st, $nplan planned): $ndone stored, $ntwice twice, results missing $missing, extra $extra"
				psql_q "SELECT attempt, boot, seq, status, ingested_at IS NOT NULL FROM runs WHERE job_id = $J ORDER BY boot, seq, attempt"
			fi
			l=$(psql_q "SELECT (SELECT count(*) FROM domains WHERE job_id = $J AND destroyed_at IS NULL) + (SELECT count(*) FROM jobs WHERE id = $J AND lease_owner IS NOT NULL) + (SELECT count(*) FROM hosts WHERE lease_job_id = $J)")
			[ "$l" != 0 ] && leaked=$((leaked + 1))
			next=$(psql_q "SELECT (extract(epoch FROM min(started_at)) * 1000)::bigint FROM job_phases WHERE job_id = $J AND attempt > $a")
			[ -z "$next" ] || echo $(( (next - t) / 1000 )) >>resume
		done
		med=$(sort -n resume | awk "{ v[NR] = \$1 } END { print NR ? v[int((NR + 1) / 2)] : \"-\" }")
		printf "%-8s %5s %5s %7s %6s %10s %5s\n" $phase $kills $lost $doubled $leaked "$med" $kept >>table
		bad=$((bad + lost + doubled + leaked))
	done &&
	sed "s/^/#: /" table && { cp table "$SCRATCH/../t9001-table.txt" 2>/dev/null || true; } &&
	test $bad = 0 &&
	test "$(psql_q "SELECT count(*) FROM domains WHERE destroyed_at IS NULL")" = 0 &&
	test "$(psql_q "SELECT count(*) FROM hosts WHERE lease_owner IS NOT NULL")" = 0 &&
	test "$(psql_q "SELECT count(*) - count(DISTINCT (run_id, metric, iteration)) FROM results")" = 0
'

test_done
