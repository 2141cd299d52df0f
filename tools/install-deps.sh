#!/bin/sh
# install-deps.sh - install the Debian packages schedfarm needs to build, run
# and test; does nothing when they are all there.  Run as root (apt-get).
set -eu
PKGS="build-essential pkg-config git file jq man-db perl
libpq-dev libyaml-dev libssh-dev libvirt-dev libgsl-dev libcmocka-dev
libcurl4-openssl-dev python3-aiosmtpd libgmime-3.0-dev public-inbox
postgresql postgresql-client util-linux procps iproute2
clang libclang-rt-14-dev clang-format cppcheck
openssh-server openssh-client ipmitool openipmi
qemu-system-x86 libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
busybox-static cpio sysbench rt-tests linux-perf strace dbench stress-ng rt-app
linux-image-amd64 linux-source bc flex bison libelf-dev libssl-dev dwarves
kmod xz-utils python3 ipxe-qemu debootstrap systemd tmux kexec-tools
chromium fonts-dejavu-core nodejs bubblewrap ccache mandoc curl"
# libvirtd runs qemu as libvirt-qemu; Debian makes that user only in
# libvirt-daemon-system (which needs systemd's friends), so make it here.
if [ "$(id -u)" = 0 ] && ! getent passwd libvirt-qemu >/dev/null; then
	getent group kvm >/dev/null || groupadd --system kvm
	getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu
	useradd --system --no-create-home --home-dir /var/lib/libvirt \
		--gid libvirt-qemu --groups kvm --shell /usr/sbin/nologin libvirt-qemu
fi
# The report's browser checks (tests/browser/): playwright-core, pinned by
# package-lock.json, drives Debian's chromium; it never downloads a browser.
# ajv, from the same lock file, checks t5008's KCIDB documents.
# Run before the early exit below and again after apt-get (which may have
# brought npm); the copied lock file makes the second run a no-op.
browser_deps() {
	_b=$(cd "$(dirname "$0")/.." && pwd)/tests/browser
	[ -f "$_b/package-lock.json" ] || return 0
	command -v npm >/dev/null 2>&1 || return 0
	if [ -d "$_b/node_modules/playwright-core" ] &&
		cmp -s "$_b/package-lock.json" "$_b/node_modules/.schedfarm-lock"; then
		return 0
	fi
	echo "install-deps: npm ci in tests/browser"
	(cd "$_b" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >/dev/null) &&
		cp "$_b/package-lock.json" "$_b/node_modules/.schedfarm-lock"
}
browser_deps
# A second Debian kernel for the kexec test (t7016): the cloud flavour of
# the same release, downloaded (never installed: /boot keeps one kernel,
# the one every boot test uses) to /var/cache/schedfarm, where
# tests/lib/boot-lib.sh unpacks it.
second_kernel() {
	[ "$(id -u)" = 0 ] || return 0
	_pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -n 1)
	[ -n "$_pkg" ] || return 0
	ls /var/cache/schedfarm/"$_pkg"_*.deb >/dev/null 2>&1 && return 0
	echo "install-deps: downloading $_pkg (a second kernel for the kexec test)"
	mkdir -p /var/cache/schedfarm
	(cd /var/cache/schedfarm && apt-get -o DPkg::Lock::Timeout=600 download -q "$_pkg" >/dev/null 2>&1) ||
		echo "install-deps: could not download $_pkg; the kexec test will be skipped" >&2
}
missing=
for p in $PKGS; do
	# "install ok installed", or unpacked with triggers still pending.
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
	"install ok installed" | "install ok triggers-"*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	second_kernel
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
# Debian's own nodejs comes without npm (nodesource's has it built in).
command -v npm >/dev/null 2>&1 ||
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends npm >/dev/null
browser_deps
second_kernel
