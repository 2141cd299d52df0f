#!/bin/sh
# t7007: a hung guest -- a kernel that boots but never starts the agent --
# on real libvirt/qemu (TCG) guests, two hosts with Debian's kernel as
# their known-good one:
#   - the job's kernel hangs on a good host, and again when it is made
#     again (hang_retries, default 1; a hang that does not come back:
#     t7017): the job fails in `boot` with
#     the reason within the boot limit; the host's known-good kernel is
#     booted at once, boots, and so the kernel is blamed and the host stays
#     good (not quarantined);
#   - a host that hangs whatever it boots (its boot image never starts the
#     agent): the job's boot fails, the known-good kernel fails too, the
#     host is quarantined (bad, with an event saying why) and the job goes
#     back to the queue, runs on the other matching host and ends done.
# (BMC gone, the same rule through IPMI: t7008.)
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

boot_test_setup
P1=$(free_port)
P2=$(free_port)
printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"

# The boot limit: 4 minutes (plus the power limit); the guest's agent is
# given up on after 40 s by the host's boot_config.
cat >"$SCRATCH/short.yaml" <<'EOF'
name: t7007-short
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
  boot: 4m
  power: 1m
  run: 2m
EOF
boot_config() {
	printf '{"initrd": "%s", "agent_timeout_ms": 40000, "ssh_timeout_ms": 60000}' "$1"
}
health() {
	sql "SELECT health FROM hosts WHERE name = \$\$$1\$\$"
}

test_expect_success 'a guest image, a silent initrd, Debian kernel and a hanging label of it, two hosts checked' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	silent_initrd "$SCRATCH/silent.cpio.gz" &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" --release "$REL" >out &&
	schedfarm kernel add debian-job --image "$VMLINUZ" --vmlinux "$VMLINUX" --release "$REL" >out &&
	schedfarm kernel add hangs --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" --initrd "$SCRATCH/silent.cpio.gz" >out &&
	for n in 1 2; do
		eval "port=\$P$n" &&
		vm_host_add vm$n "$port" --cpus 2 --memory-mb 768 \
			--boot-config "$(boot_config "$G/guest.cpio.gz")" >/dev/null &&
		schedfarm host check vm$n --kernel debian >out 2>err &&
		grep_or_fail "passed" out || return 1
	done &&
	test "$(health vm1) $(health vm2)" = "good good"
'

serve_start serve.log --jobs 1 --wake 1

test_expect_success 'a kernel that hangs: the job fails in boot within its limit, the check boots, the host stays good' '
	wait_for "grep -q \"serve ready\" serve.log" 30 &&
	schedfarm submit p.patch --base b --kernel hangs --plan short.yaml --host vm2 --json >j1.json &&
	J=$(jq .job j1.json) &&
	wait_for "test \"\$(sql \"SELECT state FROM jobs WHERE id = $J\")\" = failed" 900 || {
		sql "SELECT state, error FROM jobs WHERE id = $J"; tail -n 30 serve.log; false; } &&
	test "$(sql "SELECT error_phase FROM jobs WHERE id = $J")" = boot &&
	sql "SELECT error FROM jobs WHERE id = $J" >e1 && cat e1 &&
	grep_or_fail "agent: no agent beacon in time" e1 &&
	secs=$(sql "SELECT extract(epoch FROM finished_at - started_at)::int FROM job_phases WHERE job_id = $J AND phase = \$\$boot\$\$") &&
	say "the boot phase failed after $secs s (limit 4m + 1m)" &&
	test "$secs" -le 300 &&
	sql "SELECT k.name || \$\$ \$\$ || b.outcome || \$\$ \$\$ || b.blame FROM boots b JOIN kernels k ON k.id = b.kernel_id WHERE b.job_id = $J ORDER BY b.id" >boots1 &&
	cat boots1 &&
	printf "hangs timeout kernel\nhangs timeout kernel\ndebian ready none\n" >want1 &&
	diff -u want1 boots1 &&
	test "$(health vm2)" = good &&
	sql "SELECT log FROM jobs WHERE id = $J" >log1 &&
	grep_or_fail "the known-good kernel booted: the failure was the kernel" log1
'

test_expect_success 'a host that hangs whatever it boots: quarantined after its check, the job runs on the other host' '
	schedfarm host set vm1 --boot-config "$(boot_config "$SCRATCH/silent.cpio.gz")" >/dev/null &&
	schedfarm submit p.patch --base b --kernel debian-job --plan short.yaml --json >j2.json &&
	J=$(jq .job j2.json) &&
	wait_for "test \"\$(sql \"SELECT state FROM jobs WHERE id = $J\")\" = done" 1200 || {
		sql "SELECT state, attempts, error FROM jobs WHERE id = $J"; tail -n 40 serve.log; false; } &&
	test "$(health vm1)" = bad &&
	test "$(health vm2)" = good &&
	test "$(sql "SELECT attempts FROM jobs WHERE id = $J")" = 2 &&
	test "$(sql "SELECT h.name FROM runs r JOIN hosts h ON h.id = r.host_id WHERE r.job_id = $J AND r.status = \$\$done\$\$")" = vm2 &&
	test "$(sql "SELECT excluded_hosts = ARRAY[(SELECT id FROM hosts WHERE name = \$\$vm1\$\$)] FROM jobs WHERE id = $J")" = t &&
	sql "SELECT reason FROM host_events WHERE host_id = (SELECT id FROM hosts WHERE name = \$\$vm1\$\$) AND new_health = \$\$bad\$\$" >ev &&
	cat ev &&
	grep_or_fail "quarantined, the known-good kernel failed too" ev &&
	sql "SELECT k.name || \$\$ \$\$ || h.name || \$\$ \$\$ || b.blame FROM boots b JOIN kernels k ON k.id = b.kernel_id JOIN hosts h ON h.id = b.host_id WHERE b.job_id = $J ORDER BY b.id" >boots2 &&
	cat boots2 &&
	printf "debian-job vm1 host\ndebian-job vm1 host\ndebian vm1 host\ndebian-job vm2 none\n" >want2 &&
	diff -u want2 boots2 &&
	sql "SELECT log FROM jobs WHERE id = $J" >log2 &&
	grep_or_fail "back to the queue for another host" log2
'

test_expect_success 'no farm domain left running' '
	DOM=farm-$(sql "SELECT id FROM farm_identity") &&
	test -z "$(virsh -c qemu:///system list --name | grep "^$DOM-")" &&
	test "$(sql "SELECT count(*) FROM domains WHERE destroyed_at IS NULL")" = 0
'

test_done
