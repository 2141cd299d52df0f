# boot-lib.sh - helpers for the boot tests (t7*): a libvirt daemon, a
# Debian kernel unpacked to vmlinux, the farm's guest image, free ports,
# host rows.  Source after test-lib.sh.
#
# Slow inputs (the uncompressed vmlinux, ~1 s to make) are cached in
# $SCHEDFARM_TEST_CACHE (default /var/tmp/schedfarm-test-cache) keyed by
# their source's name and size.

TEST_CACHE=${SCHEDFARM_TEST_CACHE:-/var/tmp/schedfarm-test-cache}
mkdir -p "$TEST_CACHE"

# The newest Debian kernel image in /boot, or nothing.
debian_vmlinuz() {
	ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1
}

# boot_prereqs: skip_all unless what a real boot needs is here.
boot_prereqs() {
	for p in qemu-system-x86_64 sshd ssh ssh-keygen cpio gzip; do
		command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
			skip_all "$p not installed (make deps)"
	done
	[ -x /bin/busybox ] || skip_all "busybox-static not installed (make deps)"
	[ -n "$(debian_vmlinuz)" ] || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
	command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
		skip_all "PostgreSQL server programs not installed (make deps)"
}

# The uncompressed vmlinux of vmlinuz $1 (like the kernel's
# scripts/extract-vmlinux: find the payload's magic, decompress from there).
# Direct boot of vmlinux saves the ~3 s TCG spends decompressing.
vmlinux_of() {
	_z=$1
	_out=$TEST_CACHE/vmlinux-$(basename "$_z")-$(stat -c %s "$_z")
	if [ ! -s "$_out" ]; then
		python3 - "$_z" "$_out.tmp" <<'EOPY' && mv "$_out.tmp" "$_out"
import gzip, lzma, sys
data = open(sys.argv[1], "rb").read()
for magic, unpack in ((b"\xfd7zXZ\x00", lambda b: lzma.LZMADecompressor().decompress(b)),
                      (b"\x1f\x8b\x08", lambda b: gzip.GzipFile(fileobj=__import__("io").BytesIO(b)).read())):
    i = data.find(magic)
    while i >= 0:
        try:
            out = unpack(data[i:])
        except Exception:
            out = b""
        if out[:4] == b"\x7fELF":
            open(sys.argv[2], "wb").write(out)
            sys.exit(0)
        i = data.find(magic, i + 1)
sys.exit(1)
EOPY
	fi
	[ -s "$_out" ] || return 1
	echo "$_out"
}

# A free TCP port on 127.0.0.1 (the kernel picks it).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# unix_socket_answers PATH: something accepts connections on PATH.
unix_socket_answers() {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$1" 2>/dev/null
}

# libvirt_up: make sure qemu:///system answers, starting virtlogd and
# libvirtd by hand (no systemd here) and stopping them at exit if we did.
libvirt_up() {
	command -v libvirtd >/dev/null 2>&1 || [ -x /usr/sbin/libvirtd ] ||
		skip_all "libvirtd not installed (make deps)"
	if virsh -c qemu:///system version >/dev/null 2>&1; then
		test_atexit "_destroy_own_domains"
		return 0
	fi
	[ "$(id -u)" = 0 ] || skip_all "starting libvirtd needs root"
	getent passwd libvirt-qemu >/dev/null ||
		skip_all "no libvirt-qemu user for libvirtd's guests (make deps)"
	mkdir -p /var/log/libvirt /var/log/libvirt/qemu /run/libvirt
	# A socket file alone proves nothing: a virtlogd stopped by an earlier
	# test leaves it behind, and libvirtd then cannot create domains.
	if ! unix_socket_answers /run/libvirt/virtlogd-sock; then
		rm -f /run/libvirt/virtlogd-sock /run/libvirt/virtlogd-admin-sock
		/usr/sbin/virtlogd -d -p "$SCRATCH/virtlogd.pid" || return 1
		wait_for "test -S /run/libvirt/virtlogd-sock" 10 || return 1
		test_atexit "kill \$(cat '$SCRATCH/virtlogd.pid'); rm -f /run/libvirt/virtlogd-sock /run/libvirt/virtlogd-admin-sock"
	fi
	/usr/sbin/libvirtd -d -p "$SCRATCH/libvirtd.pid" || return 1
	wait_for "test -s $SCRATCH/libvirtd.pid" 10 || return 1
	test_atexit "kill \$(cat '$SCRATCH/libvirtd.pid')"
	wait_for "virsh -c qemu:///system version" 30 || return 1
	test_atexit "_destroy_own_domains"
}

# At exit (before libvirtd is stopped): the guests this test left running
# -- a failed test, a killed serve -- are destroyed, or their qemu would
# outlive the test.  A guest is the test's when its definition names a
# file of the test's scratch folder (its kernel, initrd or console log);
# a guest of a test running beside this one is left alone.
_destroy_own_domains() {
	for _d in $(virsh -c qemu:///system list --name 2>/dev/null |
		grep '^farm-'); do
		if virsh -c qemu:///system dumpxml "$_d" 2>/dev/null |
			grep -qF "$SCRATCH/"; then
			echo "# destroying $_d, left running by this test"
			virsh -c qemu:///system destroy "$_d" >/dev/null 2>&1
		fi
	done
}

# guest_image DIR [MODULES]: the controller key pair DIR/ctl{,.pub} and
# the guest image DIR/guest.cpio.gz (+ .hostkey.pub).
guest_image() {
	ssh-keygen -q -t ed25519 -N '' -C schedfarm-test -f "$1/ctl" </dev/null &&
	sh "$TOP/tools/guest-image.sh" -o "$1/guest.cpio.gz" -k "$1/ctl.pub" \
		-a "$AGENT_BIN" ${2:+-m "$2"} >/dev/null
}

# known_hosts_for FILE PORT HOSTKEY_PUB
known_hosts_for() {
	printf '[127.0.0.1]:%s %s\n' "$2" "$(cut -d' ' -f1,2 "$3")" >"$1"
}

sql() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}

# second_kernel: a second Debian kernel with another release (the cloud
# flavour `make deps` downloads to /var/cache/schedfarm, never installed),
# unpacked once into the test cache with its modules.dep.  Prints the
# folder (boot/vmlinuz-REL, lib/modules/REL) or nothing.
second_kernel() {
	_deb=$(ls /var/cache/schedfarm/linux-image-*-cloud-amd64_*.deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$_deb" ] || return 1
	_dir=$TEST_CACHE/$(basename "$_deb" .deb)
	if [ ! -f "$_dir/.done" ]; then
		rm -rf "$_dir" && mkdir -p "$_dir" &&
			dpkg-deb -x "$_deb" "$_dir" &&
			_rel=$(ls "$_dir/lib/modules") &&
			depmod -b "$_dir" "$_rel" &&
			touch "$_dir/.done" || return 1
	fi
	echo "$_dir"
}

# guest_image_multi DIR MODULES...: guest_image for several kernels (each
# /lib/modules/REL folder's drivers go in, loaded by the kernel of REL).
guest_image_multi() {
	_d=$1
	shift
	_m=
	for _x in "$@"; do _m="$_m -m $_x"; done
	ssh-keygen -q -t ed25519 -N '' -C schedfarm-test -f "$_d/ctl" </dev/null &&
	# shellcheck disable=SC2086
	sh "$TOP/tools/guest-image.sh" -o "$_d/guest.cpio.gz" -k "$_d/ctl.pub" \
		-a "$AGENT_BIN" $_m >/dev/null
}

# A free UDP port on 127.0.0.1 (a BMC's).
udp_port() {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# pxe_machine_sh TFTP CONSOLE SSH_PORT: $SCRATCH/machine.sh, the lab
# machine an ipmi_sim startcmd powers: qemu (TCG) with no disk and no
# -kernel, so the only way it boots is iPXE from TFTP (bmc1.ipxe, the
# folder the farm writes), its serial console appended to CONSOLE, its
# SSH on 127.0.0.1:SSH_PORT, its pid in $SCRATCH/machine.pid.
pxe_machine_sh() {
	cat >"$SCRATCH/machine.sh" <<EOM
#!/bin/sh
exec qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -display none -vga none \
	-monitor none -boot n \
	-chardev file,id=ser0,path=$2,append=on -serial chardev:ser0 \
	-netdev user,id=n0,restrict=on,tftp=$1,bootfile=bmc1.ipxe,hostfwd=tcp:127.0.0.1:$3-:22 \
	-device e1000,netdev=n0 -device virtio-rng-pci -pidfile $SCRATCH/machine.pid
EOM
	chmod +x "$SCRATCH/machine.sh"
}

# ipmi_sim_up MACHINE_LINES: OpenIPMI's ipmi_sim as a BMC for real on
# 127.0.0.1:$BMC_PORT (UDP, IPMI 2.0 lanplus), user admin with a random
# password in $SCRATCH/bmc.pw; MACHINE_LINES are the lan.conf lines of
# what its power and console drive (startcmd/serial, or chassis_control/
# sol).  Sets SIM_PID; at exit the BMC and the machine of
# $SCRATCH/machine.pid are stopped.
ipmi_sim_up() {
	umask 077
	head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$SCRATCH/bmc.pw"
	umask 022
	cat >"$SCRATCH/lan.conf" <<EOC
name "farmbmc"
set_working_mc 0x20
  startlan 1
    addr 127.0.0.1 $BMC_PORT
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
$1
  user 2 true "admin" "$(cat "$SCRATCH/bmc.pw")" admin 10 none md2 md5 straight
EOC
	cat >"$SCRATCH/sim.emu" <<'EOE'
mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr
sel_enable 0x20 1000 0x0a
mc_enable 0x20
EOE
	(cd "$SCRATCH" && exec ipmi_sim -c lan.conf -f sim.emu -n -s "$SCRATCH" >ipmi_sim.log 2>&1) &
	SIM_PID=$!
	test_atexit "kill $SIM_PID; test -s '$SCRATCH/machine.pid' && kill \$(cat '$SCRATCH/machine.pid')"
}

# bmc ARGS...: ipmitool against the BMC of ipmi_sim_up.
bmc() {
	ipmitool -I lanplus -C 3 -H 127.0.0.1 -p "$BMC_PORT" -U admin \
		-f "$SCRATCH/bmc.pw" "$@"
}

# vm_host_add NAME PORT OPTIONS...: the libvirt host NAME on
# qemu:///system, its guest's SSH forwarded to 127.0.0.1:PORT and reached
# as root with $G/ctl, the guest image's host key in
# $G/known_hosts-NAME; OPTIONS (topology, --boot-config) go to `host add`.
vm_host_add() {
	_n=$1 _p=$2
	shift 2
	known_hosts_for "$G/known_hosts-$_n" "$_p" "$G/guest.cpio.gz.hostkey.pub" &&
		schedfarm host add "$_n" --kind libvirt --address 127.0.0.1 \
			--port "$_p" --user root --key "$G/ctl" \
			--known-hosts "$G/known_hosts-$_n" \
			--libvirt-uri qemu:///system "$@"
}

# TCG_CMDLINE: the kernel command line for a BMC test's machine (boot_config
# cmdline).  Those machines are qemu under TCG standing in for real
# hardware, so they get the farm's default (lab/boot.c) plus what a KVM
# guest's kernel sets by itself: no_timer_check (on a loaded machine TCG's
# timer can fail the kernel's IO-APIC timer check, a panic before init).
# libvirt hosts need nothing: the farm adds it to a TCG domain's line.
TCG_CMDLINE="console=ttyS0 quiet loglevel=6 panic=-1 no_timer_check"

# boot_test_setup: the farm's state folder in the scratch folder (its
# embedded PostgreSQL stopped at exit), the newest Debian kernel of /boot
# ($VMLINUZ, release $REL) and an empty guest folder $G.
boot_test_setup() {
	export SCHEDFARM_HOME=$SCRATCH/home
	mkdir -p "$SCHEDFARM_HOME"
	embedded_stop_at_exit "$SCHEDFARM_HOME"
	VMLINUZ=$(debian_vmlinuz)
	REL=${VMLINUZ#/boot/vmlinuz-}
	G=$SCRATCH/guest
	mkdir -p "$G"
}

# silent_initrd OUT [SCRIPT]: an initrd (busybox) whose /init never starts
# the agent: it runs SCRIPT (busybox sh; default: sleep) -- a kernel that
# boots and then hangs, as far as the farm can tell.
silent_initrd() {
	rm -rf "$SCRATCH/silent" &&
		mkdir -p "$SCRATCH/silent/bin" &&
		cp /bin/busybox "$SCRATCH/silent/bin/busybox" &&
		printf '#!/bin/busybox sh\n%s\n' \
			"${2:-exec /bin/busybox sleep 100000}" >"$SCRATCH/silent/init" &&
		chmod 755 "$SCRATCH/silent/init" &&
		(cd "$SCRATCH/silent" && find . | cpio -o -H newc --quiet | gzip -n) >"$1"
}
