#!/bin/sh
# t7008: the BMC goes away.  An IPMI host for real (OpenIPMI's ipmi_sim
# answering ipmitool -I lanplus, its power-on a qemu machine that
# network-boots; see t7002) checked on Debian's kernel, and a libvirt host
# that matches the same plan.  ipmi_sim is stopped; a job lands on the
# IPMI host: its boot fails in the power phase with the BMC's silence as
# the reason, within the plan's limits; the check on the known-good kernel
# fails the same way, so the host is quarantined (bad, with the event),
# and the job goes back to the queue and ends done on the libvirt host.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"
command -v ipmi_sim >/dev/null 2>&1 || skip_all "ipmi_sim not installed (openipmi)"
command -v ipmitool >/dev/null 2>&1 || skip_all "ipmitool not installed"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
ls /usr/lib/ipxe/qemu/*e1000*.rom >/dev/null 2>&1 ||
	ls /usr/share/qemu/*e1000*.rom >/dev/null 2>&1 ||
	skip_all "no iPXE ROM for qemu's e1000 (ipxe-qemu)"

boot_test_setup
T=$SCRATCH/tftp
mkdir -p "$T"
PORT=$(free_port)
VMPORT=$(free_port)
BMC_PORT=$(udp_port)
SOL_PORT=$(free_port)
CONSOLE=$SCRATCH/bmc1-console.log
printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"

pxe_machine_sh "$T" "$CONSOLE" "$PORT"
ipmi_sim_up "  serial 15 127.0.0.1 $SOL_PORT codec VM
  startcmd \"$SCRATCH/machine.sh\"
  startnow false
  poweroff_wait 2
  kill_wait 5"

# The power limit bounds each BMC operation (three tries of a third).
cat >"$SCRATCH/short.yaml" <<'EOF'
name: t7008-short
workload: fairness-loop
params:
  groups: /a:2
  duration: 1s
  sample_interval: 1s
iterations: 1
warmup: 0
host:
  kind: [ipmi, libvirt]
timeouts:
  power: 15s
  boot: 4m
  run: 2m
EOF

# ipmi_sim refuses `chassis bootdev pxe`: the host row says its BMC does
# not take it (as t7002's does), so the refusal is a warning (issue 16).
test_expect_success 'an IPMI host and a libvirt host, both checked on Debian'"'"'s kernel' '
	wait_for "bmc chassis power status" 20 &&
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" --release "$REL" >/dev/null &&
	schedfarm kernel add debian-job --image "$VMLINUZ" --vmlinux "$VMLINUX" --release "$REL" >/dev/null &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	schedfarm host add bmc1 --kind ipmi --address 127.0.0.1 --port "$PORT" \
		--user root --key "$G/ctl" --known-hosts "$G/known_hosts" \
		--bmc-address 127.0.0.1 --bmc-port "$BMC_PORT" --bmc-user admin \
		--bmc-password-file "$SCRATCH/bmc.pw" --bmc-bootdev unsupported \
		--boot-config "{\"tftp_dir\": \"$T\", \"console_log\": \"$CONSOLE\", \"initrd\": \"$G/guest.cpio.gz\"}" >/dev/null &&
	vm_host_add vm "$VMPORT" --cpus 2 --memory-mb 768 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\"}" >/dev/null &&
	{ schedfarm host check bmc1 --kernel debian >out 2>err || { cat out err; false; }; } &&
	grep_or_fail "passed" out &&
	{ schedfarm host check vm --kernel debian >out 2>err || { cat out err; false; }; } &&
	grep_or_fail "passed" out
'

test_expect_success 'ipmi_sim is stopped: the BMC is gone' '
	kill $SIM_PID &&
	wait_for "! kill -0 $SIM_PID" 10 &&
	! bmc -N 1 -R 1 chassis power status
'

serve_start serve.log --jobs 1 --wake 1

test_expect_success 'the job fails in boot on the IPMI host, the host is quarantined, the job ends done on the other' '
	wait_for "grep -q \"serve ready\" serve.log" 30 &&
	schedfarm submit p.patch --base b --kernel debian-job --plan short.yaml --json >j.json &&
	J=$(jq .job j.json) &&
	wait_for "test \"\$(sql \"SELECT state FROM jobs WHERE id = $J\")\" = done" 1200 || {
		sql "SELECT state, attempts, error FROM jobs WHERE id = $J"; tail -n 40 serve.log; false; } &&
	test "$(sql "SELECT attempts FROM jobs WHERE id = $J")" = 2 &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc1\$\$")" = bad &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$vm\$\$")" = good &&
	sql "SELECT k.name || \$\$ \$\$ || h.name || \$\$ \$\$ || b.outcome || \$\$ \$\$ || b.blame FROM boots b JOIN kernels k ON k.id = b.kernel_id JOIN hosts h ON h.id = b.host_id WHERE b.job_id = $J ORDER BY b.id" >boots &&
	cat boots &&
	printf "debian-job bmc1 infra-failed host\ndebian bmc1 infra-failed host\ndebian-job vm ready none\n" >want &&
	diff -u want boots &&
	sql "SELECT reason FROM boots WHERE job_id = $J ORDER BY id LIMIT 1" >why && cat why &&
	grep_or_fail "power:" why && grep_or_fail "did not answer" why &&
	secs=$(sql "SELECT extract(epoch FROM finished_at - started_at)::int FROM job_phases WHERE job_id = $J AND phase = \$\$boot\$\$ AND attempt = 1") &&
	say "the boot on the IPMI host failed after $secs s (limits: power 15s, boot 4m)" &&
	test "$secs" -le 255 &&
	sql "SELECT reason FROM host_events WHERE host_id = (SELECT id FROM hosts WHERE name = \$\$bmc1\$\$) AND new_health = \$\$bad\$\$" >ev &&
	cat ev && grep_or_fail "did not answer" ev &&
	sql "SELECT log FROM jobs WHERE id = $J" >log && grep_or_fail "back to the queue for another host" log
'

test_done
