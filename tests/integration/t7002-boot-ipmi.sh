#!/bin/sh
# t7002: IPMI hosts for real: OpenIPMI's ipmi_sim is the BMC (real ipmitool
# -I lanplus against it), its power-on starts a qemu machine that
# network-boots with iPXE from the TFTP folder the farm writes, and the farm
# reaches the booted guest over SSH; power off is confirmed.  A BMC that
# does not answer is retried with backoff and then marks the host bad.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
command -v ipmi_sim >/dev/null 2>&1 || skip_all "ipmi_sim not installed (openipmi)"
command -v ipmitool >/dev/null 2>&1 || skip_all "ipmitool not installed"
ls /usr/lib/ipxe/qemu/*e1000*.rom >/dev/null 2>&1 ||
	ls /usr/share/qemu/*e1000*.rom >/dev/null 2>&1 ||
	skip_all "no iPXE ROM for qemu's e1000 (ipxe-qemu)"

boot_test_setup
T=$SCRATCH/tftp
mkdir -p "$T"
PORT=$(free_port)
BMC_PORT=$(udp_port)
DEAD_PORT=$(udp_port)
VM_PORT=$(free_port)
CONSOLE=$SCRATCH/bmc1-console.log

# The lab side: a machine that boots from the network (iPXE from qemu's
# user network TFTP, the folder the farm writes) with its serial console in
# a file, started and stopped by the BMC.  It has no disk and no -kernel:
# the only way it boots is from the network.
pxe_machine_sh "$T" "$CONSOLE" "$PORT"
ipmi_sim_up "  serial 15 127.0.0.1 $VM_PORT codec VM
  startcmd \"$SCRATCH/machine.sh\"
  startnow false
  poweroff_wait 2
  kill_wait 5"

test_expect_success 'ipmi_sim answers ipmitool (lanplus); power is off' '
	wait_for "bmc chassis power status" 20 &&
	bmc chassis power status >st && grep_or_fail "is off" st
'

test_expect_success 'a Debian kernel and an IPMI host are registered' '
	guest_image "$G" "/lib/modules/$REL" &&
	schedfarm kernel add debian --image "$VMLINUZ" --release "$REL" >/dev/null &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	# This BMC has no chassis control program: it refuses bootdev, and
	# the row says so (the machine boots from the network anyway).
	sql "INSERT INTO hosts (name, kind, address, port, ssh_user, key_file,
		known_hosts, bmc_address, bmc_port, bmc_user, bmc_password_file,
		bmc_bootdev, boot_config)
	     VALUES (\$\$bmc1\$\$, \$\$ipmi\$\$, \$\$127.0.0.1\$\$, $PORT,
		\$\$root\$\$, \$\$$G/ctl\$\$, \$\$$G/known_hosts\$\$,
		\$\$127.0.0.1\$\$, $BMC_PORT, \$\$admin\$\$, \$\$$SCRATCH/bmc.pw\$\$,
		\$\$unsupported\$\$,
		\$\${\"tftp_dir\": \"$T\", \"console_log\": \"$CONSOLE\",
		    \"initrd\": \"$G/guest.cpio.gz\",
		    \"cmdline\": \"$TCG_CMDLINE\"}\$\$)" &&
	sql "INSERT INTO hosts (name, kind, address, port, bmc_address,
		bmc_port, bmc_user, bmc_password_file, health, boot_config)
	     VALUES (\$\$bmc2\$\$, \$\$ipmi\$\$, \$\$127.0.0.1\$\$, 22,
		\$\$127.0.0.1\$\$, $DEAD_PORT, \$\$admin\$\$,
		\$\$$SCRATCH/bmc.pw\$\$, \$\$good\$\$,
		\$\${\"tftp_dir\": \"$T\", \"console_log\": \"$SCRATCH/none.log\"}\$\$)"
'

test_expect_success 'power on through the BMC PXE-boots the kernel; the farm reaches it over SSH' '
	schedfarm kernel boot debian --host bmc1 --run "uname -r; nproc" >out 2>err ||
		{ cat out err; false; }
	cat out err &&
	grep_or_fail "relying on the host'\''s boot order" err &&
	grep_or_fail "ready: $REL on bmc1" out &&
	grep_or_fail "PXE script $T/bmc1.ipxe written" err &&
	grep_or_fail "power on confirmed" err &&
	grep_or_fail "kernel tftp://10.0.2.2/bmc1.kernel" "$T/bmc1.ipxe" &&
	test "$(sed -n 2p out)" = "$REL" && test "$(sed -n 3p out)" = 2 &&
	grep_or_fail "SCHEDFARM-AGENT-READY release=$REL" "$CONSOLE" &&
	test "$(sql "SELECT method || \$\$ \$\$ || outcome FROM boots WHERE host_id = (SELECT id FROM hosts WHERE name = \$\$bmc1\$\$)")" = "ipmi-pxe ready" &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc1\$\$")" = good
'

test_expect_success 'after the boot the BMC reports power off and the machine is gone' '
	bmc chassis power status >st && grep_or_fail "is off" st &&
	wait_for "! kill -0 \$(cat $SCRATCH/machine.pid)" 10
'

test_expect_success 'the BMC password never appears on a command line' '
	! grep -q "$(cat "$SCRATCH/bmc.pw")" out err &&
	! sql "SELECT * FROM boots" | grep -q "$(cat "$SCRATCH/bmc.pw")"
'

test_expect_success 'a BMC that does not answer is retried, then the host is bad' '
	start=$(date +%s) &&
	! schedfarm kernel boot debian --host bmc2 >out 2>err &&
	cat out err &&
	grep_or_fail "did not answer (3 tries)" err &&
	grep_or_fail "boot of debian on bmc2 failed (infra-failed); blamed on the host; host bmc2 is now bad" out &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc2\$\$")" = bad &&
	sql "SELECT old_health || \$\$>\$\$ || new_health || \$\$ \$\$ || reason FROM host_events
	     WHERE host_id = (SELECT id FROM hosts WHERE name = \$\$bmc2\$\$)" >ev &&
	grep_or_fail "good>bad" ev && grep_or_fail "did not answer" ev
'

test_expect_success 'the BMC lock files are in the state folder, in a private folder' '
	test "$(stat -c %a "$SCHEDFARM_HOME/locks")" = 700 &&
	test -f "$SCHEDFARM_HOME/locks/bmc-127.0.0.1-$BMC_PORT.lock" &&
	test -f "$SCHEDFARM_HOME/locks/bmc-127.0.0.1-$DEAD_PORT.lock" &&
	test ! -e "${TMPDIR:-/tmp}/schedfarm-bmc-127.0.0.1-$BMC_PORT.lock"
'

test_expect_success 'IPMI boot time (power-on to agent ready) is recorded' '
	sql "SELECT linux_ms, beacon_ms, ssh_ms, ready_ms FROM boots WHERE outcome = \$\$ready\$\$" >times &&
	say "IPMI boot ms (linux|beacon|ssh|ready): $(cat times)" && test -s times
'

test_done
