#!/bin/sh
# t7102 (make check-kernel): a real series of five patches on Debian's
# linux-source, submitted once, answered and bisected without another
# command.  Four patches are harmless (comments in kernel/sched/fair.c,
# kernel/fork.c, kernel/sched/core.c, init/main.c); patch 3 is
# kernels/patches/0001 (cgroup v2 cpu.weight capped at 100), which the
# fairness plan measures as a fall of Jain's index.  The base is built
# once in the incremental tree of its source and config (`kernel build
# --incremental`: the one full build); a `serve` then builds the series in
# that tree, runs the base and the patch in ABBA order on a 2-socket
# libvirt guest, answers "regression", mails it, and starts the bisection
# by itself.  While a step builds, the serve is killed with SIGKILL (its
# job and make with it); a new serve continues from the stored steps.  The
# bisection must name patch 3 in at most ceil(log2 5)+1 = 4 steps, each
# step's build taking at most a fifth of the full build (the times are
# printed), and the bisection's mail must name the culprit.
#
# Everything is built in a cache of this run's own (the unpacked tarball
# is borrowed from $SCHEDFARM_KERNEL_CACHE, default
# /var/tmp/schedfarm-kernel-cache, when t7101 left one there), so the
# times are real every run.  About 30-60 minutes on 2 cores (one full
# build), hours on a loaded machine.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"
. "$TOP/tests/lib/smtp.sh"

SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$SRC" ] || skip_all "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
for p in flex bison bc make gcc jq; do
	command -v $p >/dev/null 2>&1 || skip_all "$p not installed (make deps)"
done
boot_prereqs
smtp_prereqs
libvirt_up || skip_all "libvirtd would not start"

export SCHEDFARM_HOME=$SCRATCH/home
SHARED=${SCHEDFARM_KERNEL_CACHE:-/var/tmp/schedfarm-kernel-cache}
OWN=$SCRATCH/kcache
mkdir -p "$SCHEDFARM_HOME" "$SHARED" "$OWN"
embedded_stop_at_exit "$SCHEDFARM_HOME"
G=$SCRATCH/guest
mkdir -p "$G"
PORT=$(free_port)
M=$SCRATCH/smtp
smtp_up "$M" >smtp.out 2>&1 || { cat smtp.out; exit 1; }
smtp_config "$SCRATCH/farm.conf" "$SCRATCH" "[bisect]
auto = yes
max_boots = 11"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf
SERIES=$TOP/tests/data/bisect
cat >"$SCRATCH/fair.yaml" <<'EOF'
name: t7102-fair-300-100
description: 4 busy loops in /a at weight 300, 4 in /b at 100.
workload: fairness-loop
params:
  groups: /a:4,/b:4
  duration: 4s
  sample_interval: 1s
cgroups:
  - {path: /a, weight: 300}
  - {path: /b, weight: 100}
iterations: 1
warmup: 0
boots: 3
metrics:
  jain_index: {direction: higher, tau: 1%, decides: true}
timeouts:
  run: 5m
EOF

# The serve in its own process group, so SIGKILL reaches its job and make.
serve_start() {
	setsid env SCHEDFARM_KERNEL_CACHE="$OWN" "$SCHEDFARM_BIN" serve --jobs 1 \
		--lease 30 --wake 2 >>"$SCRATCH/$1" 2>&1 &
	echo $! >"$SCRATCH/$1.pid"
	test_atexit "kill -9 -$(cat "$SCRATCH/$1.pid")"
}

# Jobs of bisection steps in their build phase now.
step_jobs_building() {
	schedfarm db psql -- -qAt -c "SELECT count(*) FROM jobs WHERE
		bisect_step_id IS NOT NULL AND state = 'building'"
}

test_expect_success 'the base kernel: the full build, in the incremental tree' '
	if [ -d "$SHARED/bases" ]; then cp -al "$SHARED/bases" "$OWN/bases"; fi &&
	start=$(date +%s) &&
	SCHEDFARM_KERNEL_CACHE=$OWN schedfarm kernel build --name base \
		--base "$SRC" --incremental >out 2>err &&
	say "base: $(head -n 1 out) after $(($(date +%s) - start)) s" &&
	test -d "$OWN"/trees/*/out &&
	grep_or_fail "built base" out
'

test_expect_success 'a guest image and a 2-socket libvirt host' '
	guest_image "$G" &&
	vm_host_add vm "$PORT" --sockets 2 --cores 2 --threads 1 \
		--numa-nodes 2 --memory-mb 1024 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\", \"agent_timeout_ms\": 300000, \"ssh_timeout_ms\": 120000}" >/dev/null
'

test_expect_success 'the series of five is submitted once' '
	schedfarm submit "$SERIES"/000*.patch --base base --plan fair.yaml \
		--host vm >sub && cat sub &&
	grep_or_fail "PLM#1: 5 patches on base" sub &&
	grep_or_fail "then the base base: 3 boots" sub
'

serve_start serve1.log
T0=$(date +%s)

test_expect_success 'the answer: a regression of jain_index, mailed, and a bisection started' '
	wait_for "schedfarm patch show 1 --json | jq -e \".answer.state != \\\"pending\\\"\"" 5400 2 ||
		{ tail -n 40 serve1.log; false; } &&
	say "answered after $(($(date +%s) - T0)) s" &&
	schedfarm patch show 1 --json >p1 && schedfarm patch show 1 &&
	jq -e ".answer.verdict == \"regression\"" p1 &&
	jq -e ".answer.metrics[0].metric == \"jain_index\" and .answer.metrics[0].verdict == \"regression\"" p1 &&
	jq -e "[.jobs[].side] == [\"patch\",\"base\",\"patch\",\"base\"]" p1 &&
	jq -e ".bisections | length == 1" p1 &&
	wait_for "test \"\$(smtp_count $M)\" -ge 1" 60 &&
	smtp_unfold "$M/mail/001.eml" >m1 &&
	grep -q "^Subject: \\[schedfarm\\] PLM#1 .*jain_index .*regression on vm" m1 &&
	grep_or_fail "Bisection #1 started" "$M/mail/001.eml"
'

test_expect_success 'SIGKILL of serve while a bisection step builds; a new serve goes on' '
	wait_for "test \"\$(step_jobs_building)\" -ge 1" 1800 2 ||
		{ tail -n 40 serve1.log; false; } &&
	schedfarm bisect show 1 >before && cat before &&
	pid=$(cat serve1.log.pid) && kill -9 -"$pid" &&
	say "serve $pid and its job killed with SIGKILL mid-step" &&
	wait_for "! kill -0 $pid" 30 &&
	schedfarm bisect show 1 --json >b1 &&
	jq -e ".state == \"running\" and (.steps | length) >= 1" b1
'

serve_start serve2.log

test_expect_success 'the bisection names patch 3 in at most 4 steps' '
	wait_for "schedfarm bisect show 1 --json | jq -e \".state != \\\"running\\\"\"" 5400 2 ||
		{ tail -n 60 serve2.log; false; } &&
	say "bisected after $(($(date +%s) - T0)) s in all" &&
	schedfarm bisect show 1 | tee show &&
	schedfarm bisect show 1 --json >b1 &&
	jq -e ".state == \"done\" and .culprit == 3" b1 &&
	jq -r ".culprit_label" b1 | grep -q "cap cgroup v2 cpu.weight" &&
	n=$(jq "[.steps[] | select(.step > 0)] | length" b1) &&
	say "steps: $n (at most 4)" && test "$n" -le 4 &&
	grep_or_fail "the first bad patch" show &&
	grep_or_fail "expired leases" serve2.log
'

test_expect_success 'each step'\''s build took at most a fifth of the full build' '
	full=$(schedfarm db psql -- -qAt -c "SELECT round(build_seconds) FROM kernels WHERE name = \$\$base\$\$") &&
	series=$(schedfarm db psql -- -qAt -c "SELECT round(build_seconds) FROM kernels WHERE name = \$\$base+PLM1\$\$") &&
	say "full build (the base, the tree'\''s first): $full s; the series of five: $series s" &&
	jq -r ".steps[] | select(.step > 0) | \"\\(.step) \\(.kernel) \\(.build_seconds)\"" b1 >times &&
	while read -r step kernel secs; do
		say "step $step: $kernel built in $secs s (limit $((full / 5)) s)"
		# A step with no build time (null: not built here) fails too.
		awk -v s="$secs" -v f="$full" "BEGIN { exit !(s ~ /^[0-9.]+\$/ && s + 0 > 0 && s + 0 <= f / 5) }" || return 1
	done <times
'

test_expect_success 'the bisection mail names the culprit' '
	wait_for "test \"\$(smtp_count $M)\" -ge 2" 120 &&
	cat "$M/mail/002.eml" &&
	smtp_unfold "$M/mail/002.eml" >m2 &&
	grep -q "^Subject: \\[schedfarm\\] PLM#1 .*bisect #1: patch 3/5 .*cap cgroup v2 cpu.weight" m2 &&
	grep_or_fail "The culprit: 3/5" "$M/mail/002.eml" &&
	test -s "$SCRATCH/www/bisect-1.html"
'

test_done
