#!/bin/sh
# guest-image.sh - build the farm's guest initramfs from Debian's packages.
#
#   tools/guest-image.sh -o OUT.cpio.gz -k CONTROLLER_KEY.pub
#                        [-a AGENT] [-m MODULES_DIR]... [-K HOST_KEY]
#
# The image holds busybox-static, OpenSSH's sshd and sftp-server with the
# libraries they load, kexec-tools' kexec (when installed: an IPMI host
# switches kernels with it, lab/kexec.c), tbench, tbench_srv, stress-ng and
# rt-app with theirs (when installed: wrapped workloads), an ed25519 host key made now (or
# given with -K), the controller's public key as root's authorized_keys, the
# schedfarm agent (-a, else $SCHEDFARM_AGENT, else agent/schedfarm-agent),
# optionally the NIC (e1000, virtio-net) and virtio-rng drivers of modular
# kernels (-m /lib/modules/VERSION, once per kernel the image must boot:
# each kernel's in /lib/modules/VERSION/, loaded by the kernel of that
# release), and an /init
# that mounts proc/sys/devtmpfs/cgroup2, turns schedstats on, brings up
# eth0 for qemu's user network (10.0.2.15), starts sshd and prints the
# agent beacon on the console:
#
#   SCHEDFARM-AGENT-READY release=$(uname -r) sockets=N cpus=N
#
# Beside OUT it writes OUT.hostkey.pub (for the controller's known_hosts).
# Reproducible: files are listed in sorted order and every mtime is
# SOURCE_DATE_EPOCH (default: the newest input package's date), so two
# builds with the same inputs and host key are byte-identical.
set -eu

out= pub= agent=${SCHEDFARM_AGENT:-} modsdirs= hostkey=
while getopts o:k:a:m:K: opt; do
	case $opt in
	o) out=$OPTARG ;;
	k) pub=$OPTARG ;;
	a) agent=$OPTARG ;;
	m) modsdirs="$modsdirs $(case $OPTARG in /*) echo "$OPTARG" ;; *) echo "$PWD/$OPTARG" ;; esac)" ;;
	K) hostkey=$OPTARG ;;
	*) echo "usage: $0 -o OUT -k KEY.pub [-a AGENT] [-m MODDIR] [-K HOSTKEY]" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] && [ -n "$pub" ] || { echo "guest-image: -o and -k are required" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
out=$(abspath "$out")
pub=$(abspath "$pub")
[ -z "$hostkey" ] || hostkey=$(abspath "$hostkey")
[ -z "$agent" ] || agent=$(abspath "$agent")
[ -n "$agent" ] || agent=$top/agent/schedfarm-agent
for f in /bin/busybox /usr/sbin/sshd /usr/lib/openssh/sftp-server "$pub" "$agent"; do
	[ -r "$f" ] || { echo "guest-image: missing $f (make deps; make)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/guest-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
r=$work/root
mkdir -p "$r"
cd "$r"
mkdir -p bin sbin usr/bin usr/sbin usr/lib/openssh etc/ssh root/.ssh proc sys dev \
	tmp run/sshd var/empty lib64 lib/x86_64-linux-gnu lib/modules mnt

# busybox and its applets (links made here, not at boot: reproducible).
cp /bin/busybox bin/busybox
for a in $(/bin/busybox --list); do
	case $a in busybox) continue ;; esac
	[ -e "bin/$a" ] || ln -s busybox "bin/$a"
done

# sshd, sftp-server, kexec, the agent, and the shared libraries they load.
cp /usr/sbin/sshd usr/sbin/sshd
cp /usr/lib/openssh/sftp-server usr/lib/openssh/sftp-server
bins="/usr/sbin/sshd /usr/lib/openssh/sftp-server"
if [ -x /sbin/kexec ]; then
	cp /sbin/kexec sbin/kexec
	bins="$bins /sbin/kexec"
fi
cp "$agent" usr/bin/schedfarm-agent
chmod 755 usr/bin/schedfarm-agent
# The wrapped workloads of today's reports (issue 32), when installed
# here (make deps): dbench's tbench and tbench_srv with the load file
# tbench reads, stress-ng, rt-app; and rt-tests' hackbench and cyclictest,
# which plans/eevdf-latency.yaml and plans/rt-periodic.yaml run beside them.
for b in /usr/bin/tbench /usr/bin/tbench_srv /usr/bin/stress-ng /usr/bin/rt-app \
	/usr/bin/hackbench /usr/bin/cyclictest; do
	[ -x "$b" ] || continue
	cp "$b" "usr/bin/${b##*/}"
	bins="$bins $b"
done
if [ -f /usr/share/dbench/client.txt ]; then
	mkdir -p usr/share/dbench
	cp /usr/share/dbench/client.txt usr/share/dbench/client.txt
fi
# libgcc_s is not in ldd's list but glibc loads it when a thread exits
# (pthread_exit unwinds): rt-app aborts without it ("libgcc_s.so.1 must
# be installed for pthread_exit to work").
gcc_s=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/{print $NF; exit}')
for lib in $gcc_s $(for b in $bins; do ldd "$b"; done |
	awk '/=> \//{print $3} /^\t\/lib64/{print $1}' | sort -u); do
	mkdir -p ".$(dirname "$lib")"
	cp -L "$lib" ".$lib"
done

# Accounts: root (the farm logs in as root with its key) and sshd's
# privilege separation user.
cat >etc/passwd <<'EOP'
root:x:0:0:root:/root:/bin/sh
sshd:x:102:65534::/run/sshd:/bin/false
EOP
cat >etc/group <<'EOG'
root:x:0:
nogroup:x:65534:
EOG
echo 'root:*:19000:0:99999:7:::' >etc/shadow
chmod 600 etc/shadow
echo 'hosts: files' >etc/nsswitch.conf
echo '127.0.0.1 localhost' >etc/hosts

cat >etc/ssh/sshd_config <<'EOS'
Port 22
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
PidFile /run/sshd.pid
Subsystem sftp /usr/lib/openssh/sftp-server
EOS
if [ -n "$hostkey" ]; then
	cp "$hostkey" etc/ssh/ssh_host_ed25519_key
	ssh-keygen -y -f "$hostkey" >etc/ssh/ssh_host_ed25519_key.pub
else
	ssh-keygen -q -t ed25519 -N '' -C schedfarm-guest -f etc/ssh/ssh_host_ed25519_key
fi
chmod 600 etc/ssh/ssh_host_ed25519_key
cp "$pub" root/.ssh/authorized_keys
chmod 700 root/.ssh
chmod 600 root/.ssh/authorized_keys

# A modular kernel's drivers for qemu's devices (Debian's has them as
# modules): a NIC (e1000, or virtio-net: Debian's cloud kernel has no
# e1000), and virtio-rng so that sshd's first getrandom() does not wait
# minutes for entropy under TCG.  Dependencies first, in modprobe's order,
# numbered so /init loads them in that order; each kernel's in a folder
# named after its release, which /init picks with uname -r.
for mods in $modsdirs; do
	[ -r "$mods/modules.dep" ] || { echo "guest-image: no $mods/modules.dep" >&2; exit 1; }
	rel=$(basename "$mods")
	mkdir -p "lib/modules/$rel"
	order=
	add_mod() {
		local _line _path _d _n
		_line=$(grep -E "(^|/)$1\.ko[^:]*:" "$mods/modules.dep" | head -n 1)
		if [ -z "$_line" ]; then
			[ -z "${2:-}" ] || return 0
			echo "guest-image: no module $1 in $mods" >&2
			exit 1
		fi
		_path=${_line%%:*}
		case " $order " in *" $_path "*) return 0 ;; esac
		for _d in $(echo "${_line#*:}" | tr ' ' '\n' | sed '/^$/d' | tac); do
			_n=$(basename "$_d"); _n=${_n%%.ko*}
			add_mod "$_n"
		done
		order="$order $_path"
	}
	# e1000 only where the kernel has it (optional); virtio-net always.
	add_mod e1000 optional
	for m in virtio_pci virtio_net virtio-rng; do add_mod "$m"; done
	i=10
	for ko in $order; do
		name=$(basename "$ko"); name=${name%%.ko*}
		case $ko in
		*.xz) xz -dc "$mods/$ko" >"lib/modules/$rel/$i-$name.ko" ;;
		*.zst) zstd -qdc "$mods/$ko" >"lib/modules/$rel/$i-$name.ko" ;;
		*) cp "$mods/$ko" "lib/modules/$rel/$i-$name.ko" ;;
		esac
		i=$((i + 1))
	done
done

cat >init <<'EOI'
#!/bin/sh
# The farm's guest init: mount, network, sshd, beacon, then wait.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /sys/fs/cgroup
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/sshd /var/empty
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
[ -f /proc/sys/kernel/sched_schedstats ] && echo 1 >/proc/sys/kernel/sched_schedstats
for m in /lib/modules/$(uname -r)/*.ko; do [ -f "$m" ] && insmod "$m"; done
hostname schedfarm-guest
ip link set lo up
i=0
while ! ip link show eth0 >/dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
ip route add default via 10.0.2.2
/usr/sbin/sshd -E /tmp/sshd.log
sockets=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id 2>/dev/null | sort -u | wc -l)
cpus=$(grep -c ^processor /proc/cpuinfo)
echo "SCHEDFARM-AGENT-READY release=$(uname -r) sockets=$sockets cpus=$cpus" >/dev/console
while :; do sleep 3600; done
EOI
chmod 755 init

# Reproducible archive: fixed mtimes, sorted names, numeric owners.
epoch=${SOURCE_DATE_EPOCH:-$(stat -c %Y /bin/busybox /usr/sbin/sshd | sort -n | tail -n 1)}
find . -exec touch -h -d "@$epoch" {} +
find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible | gzip -n -9 >"$work/img"
mv "$work/img" "$out"
cp etc/ssh/ssh_host_ed25519_key.pub "$out.hostkey.pub"
echo "guest-image: wrote $out ($(stat -c %s "$out") bytes)"
