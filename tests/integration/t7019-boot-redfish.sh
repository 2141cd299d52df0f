#!/bin/sh
# t7019: a host whose BMC speaks Redfish: tests/lib/redfish-mock.py is the
# BMC (HTTPS on loopback, a certificate made here, basic auth), its Reset
# "On" starts a qemu machine that boots from the network only when the BMC
# passed it a PXE override (BOOT=pxe; else it looks for a disk it does not
# have), iPXE fetches the kernel from the TFTP folder the farm writes, and
# the farm reaches the booted guest over SSH; power off is confirmed.  A
# BMC that answers 503 marks the host bad.  The mirror of t7002 (ipmi).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"
. "$TOP/tests/lib/redfish.sh"

# The client (lab/kind_redfish.c) and the mock are tested in
# tests/unit/test-redfish.c; this is the kind's boot, end to end.

boot_prereqs
redfish_prereqs
ls /usr/lib/ipxe/qemu/*e1000*.rom >/dev/null 2>&1 ||
	ls /usr/share/qemu/*e1000*.rom >/dev/null 2>&1 ||
	skip_all "no iPXE ROM for qemu's e1000 (ipxe-qemu)"

boot_test_setup
T=$SCRATCH/tftp
mkdir -p "$T"
PORT=$(free_port)
CONSOLE=$SCRATCH/bmc1-console.log

# The lab side: qemu with no disk and no -kernel, its serial console in a
# file.  It boots from the network only when the BMC says BOOT=pxe; else
# from a disk it lacks, strictly (no fallback to the NIC): the guest comes
# up only if the farm set the one-time PXE override.  Each start notes its
# BOOT in $SCRATCH/boots.
cat >"$SCRATCH/machine.sh" <<EOM
#!/bin/sh
echo "\$BOOT" >>"$SCRATCH/boots"
[ "\$BOOT" = pxe ] && order=n || order=c
exec qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -vga none \
	-monitor none -boot order=\$order,strict=on \
	-chardev file,id=ser0,path=$CONSOLE,append=on -serial chardev:ser0 \
	-netdev user,id=n0,restrict=on,tftp=$T,bootfile=bmc1.ipxe,hostfwd=tcp:127.0.0.1:$PORT-:22 \
	-device e1000,netdev=n0 -device virtio-rng-pci -pidfile $SCRATCH/machine.pid
EOM
chmod +x "$SCRATCH/machine.sh"
: >"$SCRATCH/never"
redfish_mock_up bmc1 --kill-wait 5 -- "$SCRATCH/machine.sh"
BMC_PORT=$(cat "$SCRATCH/bmc1.port")
# A BMC in trouble: every request answered 503.
redfish_mock_up bmc2 --fail-file "$SCRATCH/never" -- sleep 600
DEAD_PORT=$(cat "$SCRATCH/bmc2.port")

test_expect_success 'the mock BMC answers over HTTPS; the machine is off' '
	redfish_get bmc1 /redfish/v1/Systems/1 >st &&
	grep_or_fail "\"PowerState\": \"Off\"" st
'

test_expect_success 'a Debian kernel and a Redfish host are registered' '
	guest_image "$G" "/lib/modules/$REL" &&
	schedfarm kernel add debian --image "$VMLINUZ" --release "$REL" >/dev/null &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	schedfarm host add bmc1 --kind redfish --address 127.0.0.1 \
		--port "$PORT" --user root --key "$G/ctl" \
		--known-hosts "$G/known_hosts" --bmc-address 127.0.0.1 \
		--bmc-port "$BMC_PORT" --bmc-user admin \
		--bmc-password-file "$SCRATCH/bmc1.pw" \
		--boot-config "{\"tftp_dir\": \"$T\", \"console_log\": \"$CONSOLE\",
			\"initrd\": \"$G/guest.cpio.gz\",
			\"cmdline\": \"$TCG_CMDLINE\",
			\"redfish_ca_file\": \"$SCRATCH/bmc-cert.pem\"}" &&
	schedfarm host add bmc2 --kind redfish --address 127.0.0.1 --port 22 \
		--user root --key "$G/ctl" --known-hosts "$G/known_hosts" \
		--bmc-address 127.0.0.1 --bmc-port "$DEAD_PORT" \
		--bmc-user admin --bmc-password-file "$SCRATCH/bmc2.pw" \
		--boot-config "{\"tftp_dir\": \"$T\",
			\"console_log\": \"$SCRATCH/none.log\",
			\"redfish_ca_file\": \"$SCRATCH/bmc-cert.pem\"}" &&
	sql "UPDATE hosts SET health = \$\$good\$\$ WHERE name = \$\$bmc2\$\$"
'

test_expect_success 'a one-time PXE override and power on through the BMC boot the kernel; the farm reaches it over SSH' '
	schedfarm kernel boot debian --host bmc1 --run "uname -r; nproc" >out 2>err ||
		{ cat out err; false; }
	cat out err &&
	grep_or_fail "ready: $REL on bmc1" out &&
	grep_or_fail "PXE script $T/bmc1.ipxe written" err &&
	grep_or_fail "kernel tftp://10.0.2.2/bmc1.kernel" "$T/bmc1.ipxe" &&
	test "$(sed -n 2p out)" = "$REL" && test "$(sed -n 3p out)" = 2 &&
	grep_or_fail "SCHEDFARM-AGENT-READY release=$REL" "$CONSOLE" &&
	grep_or_fail "boot Pxe Once" "$SCRATCH/bmc1.log" &&
	test "$(cat "$SCRATCH/boots")" = pxe &&
	test "$(sql "SELECT method || \$\$ \$\$ || outcome FROM boots WHERE host_id = (SELECT id FROM hosts WHERE name = \$\$bmc1\$\$)")" = "redfish-pxe ready" &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc1\$\$")" = good
'

test_expect_success 'after the boot the BMC reports power off, the machine is gone, the override was used once' '
	redfish_get bmc1 /redfish/v1/Systems/1 >st &&
	grep_or_fail "\"PowerState\": \"Off\"" st &&
	grep_or_fail "\"BootSourceOverrideEnabled\": \"Disabled\"" st &&
	wait_for "! kill -0 \$(cat $SCRATCH/machine.pid)" 10
'

test_expect_success 'the BMC password is in no output, no row and no command line' '
	pw=$(cat "$SCRATCH/bmc1.pw") &&
	! grep -q "$pw" out err &&
	! sql "SELECT * FROM boots" | grep -q "$pw" &&
	! sql "SELECT * FROM hosts" | grep -q "$pw" &&
	! grep -q "$pw" "$SCRATCH/bmc1.log"
'

test_expect_success 'a BMC that answers 503 fails the boot, and the host is bad' '
	! schedfarm kernel boot debian --host bmc2 >out 2>err &&
	cat out err &&
	grep_or_fail "answered 503" err &&
	grep_or_fail "host bmc2 is now bad" out &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$bmc2\$\$")" = bad
'

# A BMC that offers its serial console over telnet (SerialConsole.Telnet):
# the console is up whether the machine runs or not, as a BMC's is, so the
# farm connects before the power goes on.  $SCRATCH/relay.py is that
# console: it listens for the farm on CPORT and for the machine's serial
# (qemu's chardev, a client) on SERPORT, and hands what the machine says
# to every farm connection.
CPORT=$(free_port)
SERPORT=$(free_port)
PORT3=$(free_port)
cat >"$SCRATCH/relay.py" <<'EOM'
import select, socket, sys
def listen(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(4)
    return s
views, ser = listen(int(sys.argv[1])), listen(int(sys.argv[2]))
viewers, machines = [], []
while True:
    r, _, _ = select.select([views, ser] + viewers + machines, [], [])
    for s in r:
        if s is views:
            viewers.append(views.accept()[0])
        elif s is ser:
            machines.append(ser.accept()[0])
        else:
            data = s.recv(4096)
            if not data:
                (viewers if s in viewers else machines).remove(s)
                s.close()
            elif s in machines:
                for v in viewers:
                    v.sendall(data)
EOM
cat >"$SCRATCH/machine3.sh" <<EOM
#!/bin/sh
echo "\$BOOT \$CONSOLE_PORT" >>"$SCRATCH/boots3"
[ "\$BOOT" = pxe ] && order=n || order=c
exec qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -vga none \
	-monitor none -boot order=\$order,strict=on \
	-chardev socket,id=ser0,host=127.0.0.1,port=$SERPORT,server=off -serial chardev:ser0 \
	-netdev user,id=n0,restrict=on,tftp=$T,bootfile=bmc3.ipxe,hostfwd=tcp:127.0.0.1:$PORT3-:22 \
	-device e1000,netdev=n0 -device virtio-rng-pci -pidfile $SCRATCH/machine3.pid
EOM
chmod +x "$SCRATCH/machine3.sh"
python3 "$SCRATCH/relay.py" "$CPORT" "$SERPORT" &
test_atexit "kill $!"
redfish_mock_up bmc3 --console-port "$CPORT" --kill-wait 5 -- "$SCRATCH/machine3.sh"
BMC3_PORT=$(cat "$SCRATCH/bmc3.port")

test_expect_success 'with no console_log, the BMC'\''s telnet console is the boot'\''s console, captured from before power-on to power-off' '
	known_hosts_for "$G/known_hosts3" "$PORT3" "$G/guest.cpio.gz.hostkey.pub" &&
	schedfarm host add bmc3 --kind redfish --address 127.0.0.1 \
		--port "$PORT3" --user root --key "$G/ctl" \
		--known-hosts "$G/known_hosts3" --bmc-address 127.0.0.1 \
		--bmc-port "$BMC3_PORT" --bmc-user admin \
		--bmc-password-file "$SCRATCH/bmc3.pw" \
		--boot-config "{\"tftp_dir\": \"$T\",
			\"initrd\": \"$G/guest.cpio.gz\",
			\"cmdline\": \"$TCG_CMDLINE\",
			\"redfish_ca_file\": \"$SCRATCH/bmc-cert.pem\"}" &&
	schedfarm kernel boot debian --host bmc3 --run "uname -r" >out3 2>err3 ||
		{ cat out3 err3; false; }
	cat out3 err3 &&
	grep_or_fail "ready: $REL on bmc3" out3 &&
	grep_or_fail "console: telnet 127.0.0.1:$CPORT from BMC https://127.0.0.1:$BMC3_PORT" err3 &&
	test "$(cat "$SCRATCH/boots3")" = "pxe $CPORT" &&
	B3=$(sql "SELECT max(b.id) FROM boots b JOIN hosts h ON h.id = b.host_id WHERE h.name = \$\$bmc3\$\$") &&
	grep_or_fail "SCHEDFARM-AGENT-READY release=$REL" "$SCHEDFARM_HOME/console/boot-$B3.log" &&
	test "$(sql "SELECT method || \$\$ \$\$ || outcome || \$\$ \$\$ || (beacon_ms > 0)::int FROM boots WHERE id = $B3")" = "redfish-pxe ready 1" &&
	redfish_get bmc3 /redfish/v1/Systems/1 >st3 &&
	grep_or_fail "\"PowerState\": \"Off\"" st3
'

test_expect_success 'host add --kind redfish without the BMC or the SSH fields is a usage error' '
	{ schedfarm host add bmc4 --kind redfish --address 127.0.0.1 \
		--known-hosts "$G/known_hosts" 2>err4; test $? = 2; } &&
	grep_or_fail "a redfish host needs --bmc-address, --bmc-user, --bmc-password-file, --address and --known-hosts" err4 &&
	{ schedfarm host add bmc4 --kind redfish --address 127.0.0.1 \
		--known-hosts "$G/known_hosts" --bmc-address "[::1]:443" \
		--bmc-user admin --bmc-password-file "$SCRATCH/bmc3.pw" 2>err5
	  test $? = 2; } &&
	grep_or_fail "is a host name or an IP address" err5
'

test_expect_success 'Redfish boot time (power-on to agent ready) is recorded' '
	sql "SELECT linux_ms, beacon_ms, ssh_ms, ready_ms FROM boots WHERE outcome = \$\$ready\$\$" >times &&
	say "Redfish boot ms (linux|beacon|ssh|ready): $(cat times)" && test -s times
'

test_done
