#!/bin/sh
# t7017: a boot that hangs once is made again, not judged.  A libvirt/qemu
# (TCG) guest whose kernel prints its banner and then never starts the
# agent times out in the boot's agent phase; with the host's hang_retries
# (default 1) the farm boots it once more.  Here the kernel's initrd is the
# silent one for the first boot only (the test puts the guest image in its
# place once qemu has read it): the second boot comes up, the job runs and
# ends done, the hung boot stays in the boots table with its reason and
# console, and the boot phase's log says it was made again.  A hang that comes
# back (the retry hangs too) is judged as before: tests/faults/t7007.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

boot_test_setup
PORT=$(free_port)

cat >"$SCRATCH/short.yaml" <<'EOF'
name: t7017-short
workload: fairness-loop
params:
  groups: /a:2
  duration: 1s
  sample_interval: 1s
iterations: 1
warmup: 0
host:
  kind: [libvirt]
timeouts:
  boot: 5m
  power: 1m
  run: 2m
EOF

test_expect_success 'a guest image, a silent initrd in the place of the kernel initrd, a libvirt host' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	silent_initrd "$SCRATCH/silent.cpio.gz" &&
	cp silent.cpio.gz flaky.cpio.gz &&
	schedfarm kernel add flaky --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" --initrd "$SCRATCH/flaky.cpio.gz" >out &&
	vm_host_add vm "$PORT" --cpus 2 --memory-mb 768 \
		--boot-config "{\"agent_timeout_ms\": 20000}" >/dev/null
'

test_expect_success 'the first boot hangs, the second comes up: the job ends done' '
	{ "$SCHEDFARM_BIN" run short.yaml --host vm --kernel flaky >run.out 2>&1
	  echo $? >run.rc; } &
	wait_for "grep -q \"console: Linux version\" run.out" 300 ||
		{ cat run.out; false; } &&
	cp "$G/guest.cpio.gz" flaky.new && mv flaky.new flaky.cpio.gz &&
	wait_for "test -s run.rc" 600 && cat run.out &&
	test "$(cat run.rc)" = 0 &&
	J=$(sql "SELECT max(id) FROM jobs") &&
	grep_or_fail "agent: no agent beacon in time; booting it again (1 of 1)" run.out &&
	test "$(sql "SELECT state FROM jobs WHERE id = $J")" = done &&
	sql "SELECT outcome || \$\$ \$\$ || blame || \$\$ \$\$ || reason FROM boots WHERE job_id = $J ORDER BY id" >boots &&
	cat boots &&
	printf "timeout kernel agent: no agent beacon in time\nready none ready\n" >want &&
	diff -u want boots &&
	test "$(sql "SELECT count(*) FROM runs WHERE job_id = $J AND status = \$\$done\$\$")" = 1 &&
	sql "SELECT log FROM job_phases WHERE job_id = $J AND phase = \$\$boot\$\$" >log &&
	grep_or_fail "made again, 1 of 1: a hang that does not come back is not judged" log &&
	test "$(sql "SELECT length(console_log) > 0 FROM boots WHERE job_id = $J AND outcome = \$\$timeout\$\$")" = t &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$vm\$\$")" != bad
'

test_expect_success 'no farm domain left running' '
	DOM=farm-$(sql "SELECT id FROM farm_identity") &&
	test -z "$(virsh -c qemu:///system list --name | grep "^$DOM-")" &&
	test "$(sql "SELECT count(*) FROM domains WHERE destroyed_at IS NULL")" = 0
'

test_done
