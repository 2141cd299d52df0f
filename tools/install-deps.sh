#!/bin/sh
# install-deps.sh - install the Debian packages schedfarm needs to build, run
# and test; does nothing when they are all there.  Run as root (apt-get).
set -eu
PKGS="build-essential pkg-config git file jq man-db perl
libpq-dev libyaml-dev libssh-dev libvirt-dev libgsl-dev libcmocka-dev
postgresql postgresql-client util-linux procps iproute2
clang libclang-rt-14-dev clang-format cppcheck
openssh-server openssh-client ipmitool openipmi
qemu-system-x86 libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
busybox-static cpio sysbench rt-tests linux-perf
linux-image-amd64 linux-source bc flex bison libelf-dev libssl-dev dwarves
kmod xz-utils python3 ipxe-qemu"
# libvirtd runs qemu as libvirt-qemu; Debian makes that user only in
# libvirt-daemon-system (which needs systemd's friends), so make it here.
if [ "$(id -u)" = 0 ] && ! getent passwd libvirt-qemu >/dev/null; then
	getent group kvm >/dev/null || groupadd --system kvm
	getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu
	useradd --system --no-create-home --home-dir /var/lib/libvirt \
		--gid libvirt-qemu --groups kvm --shell /usr/sbin/nologin libvirt-qemu
fi
missing=
for p in $PKGS; do
	# "install ok installed", or unpacked with triggers still pending.
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
	"install ok installed" | "install ok triggers-"*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing" >&2
	echo "install-deps: run 'sudo make deps' (apt-get needs root)" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
