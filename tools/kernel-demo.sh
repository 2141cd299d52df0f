#!/bin/sh
# kernel-demo.sh - the README's third command (`make kernel-demo`): a real
# scheduler patch through the whole farm.  kernels/patches/0001 (cgroup v2
# cpu.weight capped at 100) is submitted against Debian's linux-source
# built with the farm's config fragments, and plans/fairness-weight-300-100
# is run through the queue: the patched kernel, and the base kernel's boots
# the farm queues by itself in ABBA order (P | B B | P P | B), each booted
# in a 2-socket, 2-NUMA-node libvirt/qemu guest; the answer (compare,
# stored verdicts, the report pages) comes with the last job, and the
# path of the report's index is the last line printed.
#
# As root on Debian after `make deps` (libvirtd is started by hand when it
# is not running: there is no systemd).  Idempotent: the kernels are
# cached in the state folder's kernels/ ($SCHEDFARM_KERNEL_CACHE instead,
# when set; the base's first build, which makes its incremental tree,
# takes about 15 minutes on 2 cores; a patch on it a minute or two), the guest image, its keys and the `kernel-demo`
# host are made once; a second run submits the patch again (a new PLM#),
# finds both kernels built, and measures both again.
#
# SCHEDFARM_BIN and SCHEDFARM_AGENT name another build's programs (default:
# controller/schedfarm and agent/schedfarm-agent, what `make` builds).
# Uses the farm of SCHEDFARM_HOME (default /var/lib/schedfarm for root),
# whose queue `schedfarm run` drains: other queued jobs run too.
set -eu
cd "$(dirname "$0")/.."
TOP=$PWD
SF=${SCHEDFARM_BIN:-$TOP/controller/schedfarm}
AGENT=${SCHEDFARM_AGENT:-$TOP/agent/schedfarm-agent}
PATCH=kernels/patches/0001-sched-cap-cgroup-weight.patch
PATCH2=kernels/patches/0001-v2-sched-cap-cgroup-weight.patch
PLAN=plans/fairness-weight-300-100.yaml
HOST=kernel-demo
URI=qemu:///system
if [ -n "${SCHEDFARM_HOME:-}" ]; then
	STATE=$SCHEDFARM_HOME
elif [ "$(id -u)" = 0 ]; then
	STATE=/var/lib/schedfarm
else
	STATE=$HOME/.local/share/schedfarm
fi
# qemu runs as libvirt-qemu and reads the guest image from here.
DEMO=$STATE/kernel-demo
T0=$(date +%s)

step() {
	echo "== [$(($(date +%s) - T0)) s] $*"
}
die() {
	echo "kernel-demo: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "run as root (it starts libvirtd and boots VMs)"
SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$SRC" ] || die "no /usr/src/linux-source-*.tar.xz (make deps)"
VER=$(basename "$SRC" .tar.xz)
VER=${VER#linux-source-}
BASE=linux-$VER-farm
for p in qemu-system-x86_64 virsh ssh ssh-keygen cpio gzip jq make gcc flex bison bc; do
	command -v "$p" >/dev/null 2>&1 || die "$p is missing (make deps)"
done
[ -x /usr/sbin/libvirtd ] || die "libvirtd is missing (make deps)"

step "the farm's database"
$SF db start

step "base kernel $BASE: Debian's $(basename "$SRC") with tinyconfig + kernels/farm-*.config"
echo "   (cached under ${SCHEDFARM_KERNEL_CACHE:-$STATE/kernels}; the first build takes about 15 minutes)"
# --incremental: the base's build makes the tree its patches build on.
TB=$(date +%s)
$SF kernel build --name "$BASE" --base "$SRC" --incremental
echo "   the base took $(($(date +%s) - TB)) s"

step "libvirt"
if ! virsh -c "$URI" version >/dev/null 2>&1; then
	mkdir -p /var/log/libvirt/qemu /run/libvirt
	# virtlogd first: libvirtd hands it the guests' logs.
	[ -S /run/libvirt/virtlogd-sock ] || /usr/sbin/virtlogd -d
	/usr/sbin/libvirtd -d
	i=0
	until virsh -c "$URI" version >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 60 ] || die "libvirtd did not answer at $URI"
		sleep 0.5
	done
	echo "   started virtlogd and libvirtd (they keep running)"
else
	echo "   $URI answers"
fi

step "guest image: busybox, sshd and the agent ($DEMO/guest.cpio.gz)"
mkdir -p "$DEMO"
chmod 755 "$DEMO"
[ -s "$DEMO/ctl" ] ||
	ssh-keygen -q -t ed25519 -N '' -C schedfarm-kernel-demo -f "$DEMO/ctl" </dev/null
[ -s "$DEMO/hostkey" ] ||
	ssh-keygen -q -t ed25519 -N '' -C schedfarm-kernel-demo-guest -f "$DEMO/hostkey" </dev/null
# Rebuilt when the agent or the recipe changed; the host key is kept.
if [ ! -s "$DEMO/guest.cpio.gz" ] ||
	[ -n "$(find "$AGENT" tools/guest-image.sh -newer "$DEMO/guest.cpio.gz")" ]; then
	sh tools/guest-image.sh -o "$DEMO/guest.cpio.gz" -k "$DEMO/ctl.pub" \
		-a "$AGENT" -K "$DEMO/hostkey" >/dev/null
	echo "   built"
else
	echo "   up to date"
fi

step "host $HOST: libvirt guest, 2 sockets x 2 cores, 2 NUMA nodes, 1 GiB"
if ! $SF host show "$HOST" >/dev/null 2>&1; then
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	printf '[127.0.0.1]:%s %s\n' "$PORT" "$(cut -d' ' -f1,2 "$DEMO/hostkey.pub")" \
		>"$DEMO/known_hosts"
	$SF host add "$HOST" --kind libvirt --address 127.0.0.1 --port "$PORT" \
		--user root --key "$DEMO/ctl" --known-hosts "$DEMO/known_hosts" \
		--libvirt-uri "$URI" --sockets 2 --cores 2 --threads 1 \
		--numa-nodes 2 --memory-mb 1024 \
		--boot-config "{\"initrd\": \"$DEMO/guest.cpio.gz\"}"
else
	echo "   already there"
fi

# submit PATCH: the new PLM# in $PLM (its first job in $JOB).
submit() {
	$SF submit "$1" --base "$BASE" --plan "$PLAN" --host "$HOST" --json >"$DEMO/submit.json"
	PLM=$(sed -n 's/.*"patch":\([0-9]*\).*/\1/p' "$DEMO/submit.json")
	JOB=$(sed -n 's/.*"job":\([0-9]*\).*/\1/p' "$DEMO/submit.json")
	if [ -z "$PLM" ] || [ -z "$JOB" ]; then
		die "submit said: $(cat "$DEMO/submit.json")"
	fi
	echo "   PLM#$PLM, STP#$JOB: kernel $BASE+PLM$PLM"
}
# answer: drain the queue; PLM#$PLM must be answered.
answer() {
	# The queue may hold other jobs no host can take (exit 1); what
	# counts is this submission's answer.
	$SF run || true
	$SF patch show --json "$PLM" >"$DEMO/patch.json"
	jq -e '.answer.state == "answered"' "$DEMO/patch.json" >/dev/null || {
		$SF patch show "$PLM" >&2
		die "PLM#$PLM has no answer (see above)"
	}
}

step "submit $PATCH against $BASE with $PLAN"
submit "$PATCH"
PLM1=$PLM

step "through the queue: the patched kernel and the base, interleaved, then the answer"
answer
T1=$(($(date +%s) - T0))

step "the answer of PLM#$PLM1 (done in $T1 s)"
$SF patch show "$PLM1"
$SF compare "$PLM1" --host "$HOST" --plan fairness-weight-300-100

step "v2: submit $PATCH2 against $BASE with $PLAN"
TS=$(date +%s)
submit "$PATCH2"
PLM2=$PLM

step "through the queue: v2's kernel on a layer over the base's tree, its boots; the base's reused"
answer
T2=$(($(date +%s) - TS))

step "the answer of PLM#$PLM2 (done in $T2 s)"
$SF patch show "$PLM2"

step "time to an answer"
echo "   PLM#$PLM1 (v1, from the demo's start, the base's build included): $T1 s"
echo "   PLM#$PLM2 (v2, from its submit, on the built base):             $T2 s" \
	"($(awk -v a="$T2" -v b="$T1" 'BEGIN { printf "%.2f", a / b }') of the first)"

step "report"
$SF report
