#!/bin/sh
# t7101 (make check-kernel): the whole path of a real scheduler patch.
# Debian's linux-source is built with tinyconfig + the farm's fragments,
# once as the base and once with kernels/patches/0001 (which caps cgroup v2
# cpu.weight at 100); a second build and a second job for the same kernel
# are cache hits (by log and by time); both kernels boot in a 2-socket
# libvirt guest, and the patch's effect is seen there: cpu.weight 300 reads
# back as 100, and the fairness loop's 300:100 split becomes about even.
#
# The builds are cached in $SCHEDFARM_KERNEL_CACHE (default
# /var/tmp/schedfarm-kernel-cache) across runs; the first run takes about
# 15 minutes per kernel on 2 cores.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$SRC" ] || skip_all "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
for p in flex bison bc make gcc; do
	command -v $p >/dev/null 2>&1 || skip_all "$p not installed (make deps)"
done
boot_prereqs
libvirt_up || skip_all "libvirtd would not start"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=${SCHEDFARM_KERNEL_CACHE:-/var/tmp/schedfarm-kernel-cache}
mkdir -p "$SCHEDFARM_HOME" "$SCHEDFARM_KERNEL_CACHE"
embedded_stop_at_exit "$SCHEDFARM_HOME"
PATCH=$TOP/kernels/patches/0001-sched-cap-cgroup-weight.patch
G=$SCRATCH/guest
mkdir -p "$G"
PORT=$(free_port)

test_expect_success 'the base kernel builds (or is found built) with size and release' '
	start=$(date +%s) &&
	schedfarm kernel build --name base --base "$SRC" >out 2>err &&
	say "base: $(head -n 1 out) after $(($(date +%s) - start)) s" &&
	schedfarm kernel show base >show &&
	grep -E "^build_state +built" show &&
	grep -E "^vmlinux_text +[0-9]+" show && grep -E "^release +6\\." show
'

test_expect_success 'the patched kernel builds (or is found built)' '
	start=$(date +%s) &&
	schedfarm kernel build --name patched --base "$SRC" --patch "$PATCH" >out 2>err &&
	say "patched: $(head -n 1 out) after $(($(date +%s) - start)) s" &&
	schedfarm kernel show patched >show && grep -E "^build_state +built" show
'

test_expect_success 'building it again is a cache hit: no make, seconds not minutes' '
	start=$(date +%s) &&
	schedfarm kernel build --name patched-again --base "$SRC" --patch "$PATCH" >out 2>err &&
	took=$(($(date +%s) - start)) &&
	grep_or_fail "cache hit: patched-again" out &&
	! grep -q "build:" err &&
	test "$took" -lt 30
'

test_expect_success 'two jobs for the patched kernel: the first finds the build, the second the row' '
	sha=$(sha256sum "$PATCH" | cut -c1-64) &&
	sql "INSERT INTO plans (name, sha256, body) VALUES (\$\$p\$\$, repeat(\$\$a\$\$, 64), \$\$x\$\$)" &&
	sql "INSERT INTO kernels (name, base, build_state, config_spec) VALUES
	     (\$\$job-kernel\$\$, \$\$$SRC\$\$, \$\$queued\$\$, NULL)" &&
	sql "INSERT INTO patches (name, submitter, base, series, series_sha256, n_patches, kernel_id)
	     VALUES (\$\$cap\$\$, \$\$t\$\$, \$\$$SRC\$\$, pg_read_binary_file(\$\$$PATCH\$\$), \$\$$sha\$\$, 1,
		     (SELECT id FROM kernels WHERE name = \$\$job-kernel\$\$))" 2>/dev/null ||
	sql "INSERT INTO patches (name, submitter, base, series, series_sha256, n_patches, kernel_id)
	     VALUES (\$\$cap\$\$, \$\$t\$\$, \$\$$SRC\$\$, decode(\$\$$(od -An -tx1 -v "$PATCH" | tr -d " \n")\$\$, \$\$hex\$\$), \$\$$sha\$\$, 1,
		     (SELECT id FROM kernels WHERE name = \$\$job-kernel\$\$))" &&
	for j in 1 2; do
		sql "INSERT INTO jobs (patch_id, kernel_id, plan_id) VALUES
		     ((SELECT id FROM patches), (SELECT id FROM kernels WHERE name = \$\$job-kernel\$\$),
		      (SELECT id FROM plans))" || return 1
	done &&
	j1=$(sql "SELECT min(id) FROM jobs") && j2=$(sql "SELECT max(id) FROM jobs") &&
	start=$(date +%s) &&
	schedfarm kernel build --job "$j1" >o1 2>e1 &&
	schedfarm kernel build --job "$j2" >o2 2>e2 &&
	test $(($(date +%s) - start)) -lt 60 &&
	grep_or_fail "cache hit: kernel" o1 &&
	grep_or_fail "cache hit: kernel" o2 && grep_or_fail "is built; not rebuilding" o2 &&
	test "$(sql "SELECT build_state FROM kernels WHERE name = \$\$job-kernel\$\$")" = built
'

test_expect_success 'a job whose base names a kernel row (as submit records it) builds from that row' '
	sql "INSERT INTO kernels (name, base, build_state) VALUES (\$\$base+cap\$\$, \$\$base\$\$, \$\$queued\$\$)" &&
	sql "INSERT INTO jobs (patch_id, kernel_id, plan_id) VALUES ((SELECT id FROM patches),
	     (SELECT id FROM kernels WHERE name = \$\$base+cap\$\$), (SELECT id FROM plans))" &&
	j3=$(sql "SELECT max(id) FROM jobs") &&
	schedfarm kernel build --job "$j3" >o3 2>e3 &&
	grep_or_fail "cache hit: kernel" o3 &&
	test "$(sql "SELECT build_state FROM kernels WHERE name = \$\$base+cap\$\$")" = built &&
	sql "INSERT INTO kernels (name, base, build_state) VALUES (\$\$ext+cap\$\$, \$\$debian-ext\$\$, \$\$queued\$\$),
	     (\$\$debian-ext\$\$, \$\$/boot/nothing\$\$, \$\$external\$\$)" &&
	sql "INSERT INTO jobs (patch_id, kernel_id, plan_id) VALUES ((SELECT id FROM patches),
	     (SELECT id FROM kernels WHERE name = \$\$ext+cap\$\$), (SELECT id FROM plans))" &&
	j4=$(sql "SELECT max(id) FROM jobs") &&
	! schedfarm kernel build --job "$j4" 2>e4 &&
	grep_or_fail "base kernel debian-ext has no source to build from" e4
'

test_expect_success 'a guest image for the built kernels and a 2-socket libvirt host' '
	guest_image "$G" &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	sql "INSERT INTO hosts (name, kind, address, port, ssh_user, key_file,
		known_hosts, sockets, cores_per_socket, threads_per_core,
		numa_nodes, memory_mb, libvirt_uri, boot_config)
	     VALUES (\$\$vm\$\$, \$\$libvirt\$\$, \$\$127.0.0.1\$\$, $PORT,
		\$\$root\$\$, \$\$$G/ctl\$\$, \$\$$G/known_hosts\$\$, 2, 2, 1, 2,
		1024, \$\$qemu:///system\$\$,
		\$\${\"initrd\": \"$G/guest.cpio.gz\"}\$\$)"
'

# What the patch changes, seen from inside the guest.
PROBE='cd /sys/fs/cgroup && echo +cpu >cgroup.subtree_control && mkdir a b &&
echo 300 >a/cpu.weight && echo 100 >b/cpu.weight && echo weight_a $(cat a/cpu.weight) &&
for g in a a a a b b b b; do sh -c "echo \$\$ >/sys/fs/cgroup/$g/cgroup.procs; while :; do :; done" & done;
sleep 4; ua=$(sed -n "s/^usage_usec //p" a/cpu.stat); ub=$(sed -n "s/^usage_usec //p" b/cpu.stat);
kill $(cat a/cgroup.procs b/cgroup.procs); echo share_a $((ua * 100 / (ua + ub))); uname -r'

test_expect_success 'the base kernel boots in the 2-socket guest: weight 300 kept, /a gets about 75%' '
	schedfarm kernel boot base --host vm --run "$PROBE" >out 2>err &&
	cat out && grep_or_fail "ready: " out &&
	grep_or_fail "weight_a 300" out &&
	share=$(sed -n "s/^share_a //p" out) && test "$share" -ge 65
'

test_expect_success 'the patched kernel: weight 300 reads back 100, /a falls to about 50%' '
	schedfarm kernel boot patched --host vm --run "$PROBE" >out 2>err &&
	cat out && grep_or_fail "ready: " out &&
	grep_or_fail "weight_a 100" out &&
	share=$(sed -n "s/^share_a //p" out) && test "$share" -le 60 &&
	sql "SELECT ready_ms FROM boots WHERE outcome = \$\$ready\$\$" >times &&
	say "own-kernel boots, ms to ready: $(tr "\n" " " <times)"
'

test_done
