#!/bin/sh
# t7005: the host health rules (store/hosts.c) through both ways a host is
# observed, on a real libvirt/qemu (TCG) guest: the queue (`schedfarm run`,
# the job's boot phase) and the boot verb (`schedfarm kernel boot`).
#   - a patched kernel that never answers (it boots and says it is ready,
#     but nothing answers SSH) is blamed, after it was booted once more
#     (hang_retries); the host stays good;
#   - the host's known-good kernel failing twice in a row makes it bad,
#     with the event saying so.
# The rules case by case, without a database: tests/unit/test-hosts.c.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"

boot_test_setup
PORT=$(free_port)

cat >"$SCRATCH/short.yaml" <<'EOF'
name: t7005-short
description: One short fairness loop in the guest.
workload: fairness-loop
params:
  groups: /a:2
  duration: 1s
  sample_interval: 1s
iterations: 1
warmup: 0
boots: 1
host:
  kind: [libvirt]
timeouts:
  run: 2m
EOF

# The host's boot_config with initrd $1 and a short SSH phase, so that a
# kernel that never answers is given up on in seconds (the phases before
# keep their defaults: a loaded machine boots slowly).
boot_config() {
	printf '{"initrd": "%s", "ssh_timeout_ms": 20000}' "$1"
}

# The blames of job $1's boots: a hung boot is made once more before it
# is judged (hang_retries), and both take the verdict.
blames() {
	sql "SELECT string_agg(blame, \$\$ \$\$ ORDER BY id) FROM boots WHERE job_id = $1"
}

health() {
	sql "SELECT health || \$\$ \$\$ || aborted_in_row FROM hosts WHERE name = \$\$vm\$\$"
}

test_expect_success 'a guest image, a silent initrd, Debian kernel under two names, a libvirt host' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	silent_initrd "$SCRATCH/silent.cpio.gz" "/bin/busybox echo \"SCHEDFARM-AGENT-READY release=\$(/bin/busybox uname -r) sockets=1 cpus=1\" >/dev/console; exec /bin/busybox sleep 100000" &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" >out &&
	schedfarm kernel add patched-silent --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" --initrd "$SCRATCH/silent.cpio.gz" >out &&
	vm_host_add vm "$PORT" --cpus 2 --memory-mb 768 \
		--boot-config "$(boot_config "$G/guest.cpio.gz")" &&
	test "$(health)" = "unknown 0"
'

test_expect_success 'queue: a job on the working kernel makes the unknown host good' '
	schedfarm run short.yaml --host vm --kernel debian >out 2>err &&
	test "$(health)" = "good 0" &&
	sql "SELECT old_health || \$\$>\$\$ || new_health FROM host_events" >ev &&
	test "$(cat ev)" = "unknown>good"
'

test_expect_success 'queue: a patched kernel that never answers is blamed; the host stays good' '
	! schedfarm run short.yaml --host vm --kernel patched-silent >out 2>err &&
	j=$(sql "SELECT max(id) FROM jobs") &&
	test "$(sql "SELECT state || \$\$ \$\$ || error_phase FROM jobs WHERE id = $j")" = "failed boot" &&
	sql "SELECT error FROM jobs WHERE id = $j" >error &&
	grep_or_fail "ssh: no SSH answer in time" error &&
	test "$(blames $j)" = "kernel kernel" &&
	test "$(health)" = "good 0" &&
	test "$(sql "SELECT count(*) FROM host_events")" = 1
'

test_expect_success 'boot: the same kernel through kernel boot: blamed, the host stays good' '
	! schedfarm kernel boot patched-silent --host vm >out 2>err &&
	grep_or_fail "blamed on the kernel; host vm is now good" out &&
	test "$(health)" = "good 0"
'

test_expect_success 'host check makes debian the known-good kernel' '
	schedfarm host check vm --kernel debian >out 2>err &&
	grep_or_fail "check vm: passed" out &&
	test "$(sql "SELECT k.name FROM hosts h JOIN kernels k ON k.id = h.known_good_kernel_id")" = debian
'

test_expect_success 'queue: the known-good kernel failing twice in a row makes the host bad' '
	schedfarm host set vm --boot-config "$(boot_config "$SCRATCH/silent.cpio.gz")" >out &&
	! schedfarm run short.yaml --host vm --kernel debian >out1 2>err1 &&
	j=$(sql "SELECT max(id) FROM jobs") &&
	test "$(blames $j)" = "host host" &&
	test "$(health)" = "good 1" &&
	! schedfarm run short.yaml --host vm --kernel debian >out2 2>err2 &&
	test "$(health)" = "bad 2" &&
	sql "SELECT old_health || \$\$>\$\$ || new_health || \$\$ \$\$ || reason FROM host_events ORDER BY id DESC LIMIT 1" >ev &&
	grep_or_fail "good>bad" ev && grep_or_fail "known-good kernel; 2 aborted in a row" ev &&
	! schedfarm run short.yaml --host vm --kernel debian >out3 2>err3 &&
	test "$(sql "SELECT count(*) FROM boots")" = "$(sql "SELECT count(*) FROM boots WHERE finished_at IS NOT NULL")"
'

test_expect_success 'boot: the known-good kernel failing twice in a row makes the host bad' '
	schedfarm host set vm --health good >out &&
	test "$(health)" = "good 0" &&
	! schedfarm kernel boot debian --host vm --append "rdinit=/bin/false" >out1 2>err1 &&
	grep_or_fail "blamed on the host; host vm is now good" out1 &&
	! schedfarm kernel boot debian --host vm --append "rdinit=/bin/false" >out2 2>err2 &&
	grep_or_fail "blamed on the host; host vm is now bad" out2 &&
	test "$(health)" = "bad 2"
'

test_expect_success 'every health change left exactly one event' '
	sql "SELECT old_health || \$\$>\$\$ || new_health FROM host_events WHERE old_health IS DISTINCT FROM new_health ORDER BY id" >changes &&
	printf "unknown>good\ngood>bad\nbad>good\ngood>bad\n" >want &&
	diff -u want changes
'

test_done
