#!/bin/sh
# t7016: the real-lab boot path of IPMI hosts, on OpenIPMI's ipmi_sim with a
# qemu machine behind it.  The BMC has a chassis_control program, as real
# BMCs have firmware: it powers the machine and takes `chassis bootdev pxe`
# (the machine then boots from the network); the machine's serial port is
# the BMC's Serial-over-LAN console (qemu waits for the BMC to attach, so
# nothing from power-on is lost).  Checked:
#  - bootdev pxe: accepted by this BMC; a refusal fails the boot where the
#    host row says the BMC supports it, and is a warning where it says not;
#  - a new host is checked before its first job (host event), and a host
#    whose check fails never gets the job, which goes to another host;
#  - the console is captured through SOL from power-on to power-off, and a
#    panic during the run (the agent's crash workload, sysrq-c) is found
#    there and blamed on the kernel, the job failing in `run`;
#  - a host up on its known-good kernel switches kernels by kexec over SSH
#    (the agent then reports the new uname -r); power-on->agent and
#    kexec->agent are printed; a kexec that fails, or a host that is on
#    but does not answer over SSH, falls back to a power cycle and the job
#    still runs;
#  - a host row of a UEFI machine (bmc-bootdev pxe-efi) sends bootdev pxe
#    with options=efiboot;
#  - a plan that expects the panic ends done with the panic recorded.
# The two kernels are Debian's (/boot) and Debian's cloud flavour of the
# same release (downloaded by `make deps`, unpacked here): different
# releases, both with CONFIG_KEXEC and virtio-net.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
command -v ipmi_sim >/dev/null 2>&1 || skip_all "ipmi_sim not installed (openipmi)"
command -v ipmitool >/dev/null 2>&1 || skip_all "ipmitool not installed"
[ -x /sbin/kexec ] || skip_all "kexec-tools not installed (make deps)"
[ -e /usr/lib/ipxe/qemu/efi-virtio.rom ] || [ -e /usr/share/qemu/efi-virtio.rom ] ||
	skip_all "no iPXE ROM for qemu's virtio-net (ipxe-qemu)"
K2=$(second_kernel) || skip_all "no second Debian kernel (make deps downloads the cloud flavour)"

export SCHEDFARM_HOME=$SCRATCH/home
mkdir -p "$SCHEDFARM_HOME"
embedded_stop_at_exit "$SCHEDFARM_HOME"
VMLINUZ=$(debian_vmlinuz)
REL=${VMLINUZ#/boot/vmlinuz-}
REL2=$(ls "$K2/lib/modules")
G=$SCRATCH/guest
T=$SCRATCH/tftp
mkdir -p "$G" "$T"
PORT=$(free_port)
SOL_PORT=$(free_port)
BMC_PORT=$(udp_port)
DEAD_PORT=$(udp_port)

# The machine: boots only from the network (no disk), its serial port a
# telnet server the BMC attaches to; it reads the boot device the BMC was
# given (one boot only, as IPMI says) into machine.log.
cat >"$SCRATCH/machine.sh" <<EOM
#!/bin/sh
bd=\$(cat "$SCRATCH/bootdev" 2>/dev/null); rm -f "$SCRATCH/bootdev"
echo "power on: bootdev \${bd:-default}" >>"$SCRATCH/machine.log"
echo \$\$ >"$SCRATCH/machine.pid"
exec qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -vga none \
	-monitor none -boot n \
	-chardev socket,id=ser0,host=127.0.0.1,port=$SOL_PORT,server=on,wait=on,telnet=on \
	-serial chardev:ser0 \
	-netdev user,id=n0,restrict=on,tftp=$T,bootfile=bmc1.ipxe,hostfwd=tcp:127.0.0.1:$PORT-:22 \
	-device virtio-net-pci,netdev=n0 -device virtio-rng-pci
EOM
# The BMC's chassis control (ipmi_sim's chassis_control program): power
# is the machine's process, boot is the device of its next power-on.  A
# file "refuse-bootdev" makes it refuse bootdev, as many BMCs do.
cat >"$SCRATCH/chassis.sh" <<EOC
#!/bin/sh
d="$SCRATCH"
echo "\$*" >>"\$d/chassis.log"
alive() { [ -s "\$d/machine.pid" ] && kill -0 "\$(cat "\$d/machine.pid")" 2>/dev/null; }
shift
op=\$1; shift
case \$op in
get) for p in "\$@"; do case \$p in
	boot) echo "boot:\$(cat "\$d/bootdev" 2>/dev/null || echo default)" ;;
	power) if alive; then echo power:1; else echo power:0; fi ;;
	*) echo "Invalid parameter: \$p"; exit 1 ;;
	esac; done ;;
set) while [ \$# -ge 2 ]; do case \$1 in
	boot) if [ -e "\$d/refuse-bootdev" ]; then echo "not supported"; exit 1; fi
	      echo "\$2" >"\$d/bootdev" ;;
	power) if [ "\$2" = 1 ]; then
			alive || setsid "\$d/machine.sh" </dev/null >>"\$d/machine.err" 2>&1 &
		elif alive; then
			kill "\$(cat "\$d/machine.pid")"
		fi ;;
	reset) ;;
	*) echo "unsupported \$1"; exit 1 ;;
	esac; shift 2; done ;;
*) exit 1 ;;
esac
EOC
chmod +x "$SCRATCH/machine.sh" "$SCRATCH/chassis.sh"
ipmi_sim_up "  chassis_control \"$SCRATCH/chassis.sh 0x20\"
  sol \"telnet:127.0.0.1:$SOL_PORT\" 115200"
hostid() { sql "SELECT id FROM hosts WHERE name = \$\$$1\$\$"; }
# The test's own look inside the guest (OpenSSH's client: the farm never
# uses one, the test may).
ssh_guest() {
	ssh -o UserKnownHostsFile="$G/known_hosts" -o StrictHostKeyChecking=yes \
		-o BatchMode=yes -o ConnectTimeout=60 -i "$G/ctl" -p "$PORT" \
		root@127.0.0.1 "$@"
}

# Generous phase limits: two cores shared with the rest of the suite.
CFG="{\"tftp_dir\": \"$T\", \"initrd\": \"$G/guest.cpio.gz\",
      \"cmdline\": \"$TCG_CMDLINE\",
      \"kernel_timeout_ms\": 300000, \"agent_timeout_ms\": 300000,
      \"ssh_timeout_ms\": 180000}"
add_ipmi_host() { # NAME BMC_PORT [extra host add options]
	_n=$1 _p=$2
	shift 2
	schedfarm host add "$_n" --kind ipmi --address 127.0.0.1 --port "$PORT" \
		--user root --key "$G/ctl" --known-hosts "$G/known_hosts" \
		--bmc-address 127.0.0.1 --bmc-port "$_p" --bmc-user admin \
		--bmc-password-file "$SCRATCH/bmc.pw" --boot-config "$CFG" \
		--no-contact "$@" >/dev/null
}

cat >"$SCRATCH/pp.yaml" <<'EOP'
name: t7016-pp
workload: pipe-pingpong
params:
  round_trips: 2000
iterations: 1
warmup: 0
host:
  kind: [ipmi]
EOP
cat >"$SCRATCH/crash.yaml" <<'EOP'
name: t7016-crash
workload: crash
params:
  delay_ms: 2000
iterations: 1
warmup: 0
host:
  kind: [ipmi]
EOP
sed -e 's/^name: t7016-crash/name: t7016-crash-expected/' "$SCRATCH/crash.yaml" >"$SCRATCH/crash-expected.yaml"
echo "expect: panic" >>"$SCRATCH/crash-expected.yaml"

test_expect_success 'ipmi_sim answers; this BMC takes chassis bootdev pxe' '
	wait_for "bmc chassis power status" 20 &&
	bmc chassis power status >st && grep_or_fail "is off" st &&
	bmc chassis bootdev pxe >out 2>err && cat out err &&
	grep_or_fail "Set Boot Device to pxe" out && ! grep -q failed err &&
	grep_or_fail "set boot pxe" "$SCRATCH/chassis.log" && rm -f "$SCRATCH/bootdev"
'

test_expect_success 'two Debian kernels of different releases; a guest image for both; the hosts' '
	test "$REL" != "$REL2" &&
	guest_image_multi "$G" "/lib/modules/$REL" "$K2/lib/modules/$REL2" &&
	schedfarm kernel add debian --image "$VMLINUZ" --release "$REL" >/dev/null &&
	schedfarm kernel add cloud --image "$K2/boot/vmlinuz-$REL2" --release "$REL2" >/dev/null &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	add_ipmi_host bmc-dead "$DEAD_PORT" &&
	add_ipmi_host bmc1 "$BMC_PORT" &&
	add_ipmi_host bmc1-strict "$BMC_PORT" &&
	sql "UPDATE hosts SET known_good_kernel_id = (SELECT id FROM kernels WHERE name = \$\$debian\$\$)" &&
	test "$(sql "SELECT string_agg(name || \$\$:\$\$ || health || \$\$:\$\$ || bmc_bootdev, \$\$ \$\$ ORDER BY id) FROM hosts")" = \
		"bmc-dead:unknown:pxe bmc1:unknown:pxe bmc1-strict:unknown:pxe"
'

test_expect_success 'a BMC that refuses bootdev pxe fails the boot where the row says it supports it' '
	touch "$SCRATCH/refuse-bootdev" &&
	! schedfarm kernel boot debian --host bmc1-strict >out 2>err &&
	cat out err &&
	grep_or_fail "refused" err && grep_or_fail "bmc-bootdev unsupported" err &&
	grep_or_fail "failed (infra-failed); blamed on the host" out &&
	! grep -q "power on confirmed" err &&
	schedfarm host set bmc1-strict --bmc-bootdev unsupported --health unknown >/dev/null &&
	test "$(sql "SELECT bmc_bootdev FROM hosts WHERE name = \$\$bmc1-strict\$\$")" = unsupported
'

test_expect_success 'where the row says the BMC does not support it, the refusal is a warning' '
	! schedfarm kernel boot debian --host bmc1-strict --timeout 8s >out 2>err;
	cat out err && rm -f "$SCRATCH/refuse-bootdev" &&
	grep_or_fail "warning: BMC 127.0.0.1:$BMC_PORT refused" err &&
	grep_or_fail "relying on the host" err &&
	grep_or_fail "power on confirmed" err &&
	wait_for "bmc chassis power status | grep -q \"is off\"" 30
'

test_expect_success 'a new host is checked before its first job; one whose check fails never gets it' '
	sql "UPDATE hosts SET health = \$\$retired\$\$ WHERE name = \$\$bmc1-strict\$\$" &&
	: >"$SCRATCH/machine.log" &&
	start=$(date +%s) &&
	! schedfarm run "$SCRATCH/crash.yaml" --kernel cloud >out 2>err;
	cat out err && say "check + job took $(($(date +%s) - start)) s" &&
	grep_or_fail "back in the queue: its host failed its check" out &&
	job=$(sql "SELECT max(id) FROM jobs") &&
	test "$(sql "SELECT h.name FROM jobs j JOIN hosts h ON h.id = j.host_id WHERE j.id = $job")" = bmc1 &&
	sql "SELECT h.name || \$\$ \$\$ || coalesce(old_health, \$\$-\$\$) || \$\$>\$\$ || new_health || \$\$ \$\$ || reason
	     FROM host_events e JOIN hosts h ON h.id = e.host_id ORDER BY e.id" >ev && cat ev &&
	grep_re "^bmc-dead unknown>bad .*did not answer \(3 tries\)" ev &&
	grep_re "^bmc1 unknown>good boot [0-9]+ of kernel debian: worked" ev &&
	grep_re "^bmc1 good>good host check passed: $REL" ev &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc-dead\$\$")" = bad &&
	test "$(sql "SELECT count(*) FROM runs WHERE host_id = $(hostid bmc-dead)")" = 0 &&
	grep_or_fail "power on: bootdev pxe" "$SCRATCH/machine.log"
'

test_expect_success 'the console came through SOL: the panic of the run is there, blamed on the kernel' '
	job=$(sql "SELECT max(id) FROM jobs") &&
	test "$(sql "SELECT state || \$\$ \$\$ || error_phase FROM jobs WHERE id = $job")" = "failed run" &&
	sql "SELECT error FROM jobs WHERE id = $job" >jerr && cat jerr &&
	grep_or_fail "Kernel panic - not syncing" jerr && grep_or_fail "blame kernel" jerr &&
	b=$(sql "SELECT max(id) FROM boots WHERE job_id = $job") &&
	test "$(sql "SELECT method || \$\$ \$\$ || outcome || \$\$ \$\$ || blame FROM boots WHERE id = $b")" = \
		"ipmi-pxe kernel-failed kernel" &&
	sql "SELECT console_log FROM boots WHERE id = $b" >console &&
	grep_or_fail "SOL Session operational" console &&
	grep_or_fail "Linux version $REL2" console &&
	grep_or_fail "SCHEDFARM-AGENT-READY release=$REL2" console &&
	grep_or_fail "Kernel panic - not syncing" console &&
	test -f "$SCHEDFARM_HOME/console/boot-$b.log" &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc1\$\$")" = good &&
	bmc chassis power status | grep -q "is off"
'

test_expect_success 'kexec: a host up on its known-good kernel takes the next one in seconds' '
	schedfarm host check bmc1 --keep >out 2>err && cat out &&
	grep_or_fail "check bmc1: passed on $REL" out && grep_or_fail "left up" out &&
	bmc chassis power status | grep -q "is on" &&
	schedfarm kernel boot cloud --host bmc1 --run "uname -r" >out 2>err &&
	cat out err &&
	grep_or_fail "kexec: the host is up on $REL" err &&
	grep_or_fail "kexec -e issued" err &&
	test "$(sed -n 2p out)" = "$REL2" &&
	pxe=$(sql "SELECT ready_ms FROM boots WHERE method = \$\$ipmi-pxe\$\$ AND outcome = \$\$ready\$\$ AND kernel_id = (SELECT id FROM kernels WHERE name = \$\$debian\$\$) ORDER BY id DESC LIMIT 1") &&
	kx=$(sql "SELECT ready_ms FROM boots WHERE method = \$\$kexec\$\$ AND outcome = \$\$ready\$\$ ORDER BY id DESC LIMIT 1") &&
	test -n "$pxe" && test -n "$kx" &&
	say "power-on -> agent ready: $pxe ms (PXE, $REL); kexec -> agent ready: $kx ms ($REL2)" &&
	bmc chassis power status | grep -q "is off"
'

# fell_back REASON (after a `run` into out and err): the newest job ended
# done on the cloud kernel with results, its boot a power cycle (PXE) the
# farm fell back to from kexec for REASON, and said so; all = out + err.
# A boot the farm made again (a hang on a loaded machine) is its own row:
# the release is the ready boot's.
fell_back() {
	job=$(sql "SELECT max(id) FROM jobs") &&
	test "$(sql "SELECT state FROM jobs WHERE id = $job")" = done &&
	sql "SELECT method || \$\$|\$\$ || outcome || \$\$|\$\$ || fallback FROM boots WHERE job_id = $job" >b &&
	cat b && grep_re "^ipmi-pxe\|ready\|$1" b &&
	cat out err >all && grep_or_fail "falling back to a power cycle" all &&
	test "$(sql "SELECT release FROM boots WHERE job_id = $job AND outcome = \$\$ready\$\$")" = "$REL2" &&
	test "$(sql "SELECT count(*) FROM runs r JOIN results s ON s.run_id = r.id WHERE r.job_id = $job")" -gt 0
}

test_expect_success 'a kexec that fails falls back to a power cycle, and the job still runs' '
	schedfarm host check bmc1 --keep >out 2>err && grep_or_fail "left up" out &&
	ssh_guest "echo 1 >/proc/sys/kernel/kexec_load_disabled" &&
	schedfarm run "$SCRATCH/pp.yaml" --host bmc1 --kernel cloud >out 2>err &&
	cat out err &&
	fell_back "kexec -l refused the image"
'

test_expect_success 'a host up but not answering over SSH is power-cycled instead (UEFI PXE: options=efiboot)' '
	schedfarm host set bmc1 --bmc-bootdev pxe-efi >/dev/null &&
	schedfarm host check bmc1 --keep >out 2>err && grep_or_fail "left up" out &&
	grep_or_fail "next boot from pxe (options=efiboot)" err &&
	ssh_guest "(sleep 1; /bin/busybox killall sshd) >/dev/null 2>&1 </dev/null &" &&
	wait_for "! ssh_guest true" 30 &&
	bmc chassis power status | grep -q "is on" &&
	: >"$SCRATCH/machine.log" &&
	schedfarm run "$SCRATCH/pp.yaml" --host bmc1 --kernel cloud >out 2>err;
	cat out err &&
	fell_back "the host does not answer over SSH" &&
	grep_or_fail "next boot from pxe (options=efiboot)" all &&
	grep_or_fail "power on: bootdev pxe" "$SCRATCH/machine.log" &&
	schedfarm host set bmc1 --bmc-bootdev pxe >/dev/null
'

test_expect_success 'a plan that expects the panic ends done, with the panic recorded' '
	schedfarm run "$SCRATCH/crash-expected.yaml" --host bmc1 --kernel cloud >out 2>err &&
	cat out err &&
	job=$(sql "SELECT max(id) FROM jobs") &&
	test "$(sql "SELECT state FROM jobs WHERE id = $job")" = done &&
	test "$(sql "SELECT status FROM runs WHERE job_id = $job")" = expected-panic &&
	sql "SELECT error FROM runs WHERE job_id = $job" | grep -q "Kernel panic - not syncing" &&
	test "$(sql "SELECT outcome || \$\$ \$\$ || blame FROM boots WHERE job_id = $job")" = "expected-panic none" &&
	sql "SELECT expected FROM boots WHERE job_id = $job" | grep -q "sysrq triggered crash" &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc1\$\$")" = good &&
	bmc chassis power status | grep -q "is off"
'

test_expect_success 'the BMC password is never on a command line or in a row' '
	! grep -rq "$(cat "$SCRATCH/bmc.pw")" out err "$SCHEDFARM_HOME/console" &&
	! sql "SELECT * FROM boots" | grep -q "$(cat "$SCRATCH/bmc.pw")"
'

test_done
