#!/bin/sh
# t8007: `submit --fresh-base` on a libvirt/qemu (TCG) guest: the base has
# boots of the plan stored on the host (a `run PLAN --kernel BASE` job),
# yet the submission boots it the plan's full boots itself, in ABBA order
# with the patch's (P | B B | P for `boots: 2`), and its answer compares
# its own base runs only (n_base 2, not 4) and names no reused run
# (issue 29; the counts without a guest are tests/unit/test-answers.c).
#
# The kernels are Debian's prebuilt one registered twice, as in t8001.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

command -v jq >/dev/null || skip_all "jq not installed (make deps)"
boot_prereqs
libvirt_up || skip_all "libvirtd would not start"

boot_test_setup
PORT=$(free_port)

cat >"$SCRATCH/fair.yaml" <<'EOF'
name: t8007-fair
workload: fairness-loop
params:
  groups: /a:2,/b:2
  duration: 2s
  sample_interval: 1s
cgroups:
  - {path: /a, weight: 300}
  - {path: /b, weight: 100}
iterations: 1
warmup: 0
boots: 2
host:
  kind: [libvirt]
metrics:
  jain_index: {direction: higher, tau: 5%, decides: true}
timeouts:
  run: 2m
EOF
cat >"$SCRATCH/fix.patch" <<'EOF'
From: Dev Eloper <dev@example.org>
Subject: [PATCH] sched/fair: a change on a fresh base

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-a
+b
EOF

test_expect_success 'a guest image, Debian kernel as base and "patched", a libvirt host' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	for k in debian debian-fix; do
		schedfarm kernel add $k --image "$VMLINUZ" --vmlinux "$VMLINUX" \
			--release "$REL" >/dev/null || return 1
	done &&
	vm_host_add vm "$PORT" --sockets 2 --cores 2 --threads 1 \
		--numa-nodes 2 --memory-mb 1024 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\"}" >/dev/null
'

test_expect_success 'the base has the plan'"'"'s boots stored on vm (STP#1)' '
	schedfarm run fair.yaml --host vm --kernel debian >run0 2>&1 ||
		{ cat run0; false; } &&
	schedfarm job show 1 --json | jq -e ".state == \"done\""
'

test_expect_success 'submit --fresh-base: the base gets all its boots, none stored counted' '
	schedfarm submit fix.patch --base debian --kernel debian-fix --host vm \
		--plan fair.yaml --fresh-base >sub && cat sub &&
	grep_or_fail "then the base debian: 2 boots, fresh (none stored counted), in ABBA order" sub &&
	schedfarm patch show 1 --json >p &&
	jq -e ".fresh_base == true and (.jobs | length) == 1 and .jobs[0].boots == 1" p
'

test_expect_success 'one run: P | B B | P, compared with its own base runs only' '
	schedfarm run >run1 2>&1; rc=$?; cat run1 &&
	test $rc = 0 &&
	grep_or_fail "PLM#1: queued STP#3, the base kernel debian, 2 boots on vm" run1 &&
	grep_or_fail "PLM#1 answered:" run1 &&
	! grep -q "base runs reused" run1 &&
	schedfarm patch show 1 --json >p &&
	jq -c "[.jobs[] | [.side, .boots, .state]]" p >order && cat order &&
	test "$(cat order)" = "[[\"patch\",1,\"done\"],[\"base\",2,\"done\"],[\"patch\",1,\"done\"]]" &&
	jq -e ".answer.state == \"answered\" and .answer.base_reused == null" p &&
	jq -e ".answer.metrics[0].metric == \"jain_index\" and .answer.metrics[0].n_base == 2 and .answer.metrics[0].n_new == 2" p &&
	schedfarm patch show 1 >text && cat text &&
	grep_or_fail "  base      fresh: its own boots only (--fresh-base)" text
'

test_done
