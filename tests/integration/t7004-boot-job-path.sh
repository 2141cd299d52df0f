#!/bin/sh
# t7004: the whole job path on a libvirt/qemu (TCG) guest, through the
# queue: a 2-socket libvirt host, Debian's prebuilt kernel registered as
# an external kernel (the build phase finds it and builds nothing), and
# `schedfarm run PLAN --host vm --kernel debian` with a short 300:100
# fairness loop under cgroup v2, its build and boot progress printed.
# Then the database: the job done, its phases build/boot/run/collect/
# ingest ok, results and schedstat v15 counters stored, the runs carrying
# the console log, the domain gone, the host idle and good.  Then a kernel
# that cannot boot (its initramfs has no init, so it panics) fails its
# job in phase boot, blamed on the kernel, and the host stays good and
# idle.
#
# The farm is given its state folder by --home only (SCHEDFARM_HOME is
# unset), so this also checks that --home reaches the job path: the kernel
# cache, the console logs and the lock files are under it, in folders of
# mode 0700 (the kernel cache 0711: a libvirt host's qemu must reach the
# kernels in it), and nothing was written under /tmp or /var/tmp.  The
# latter is read from the farm's own system calls: every schedfarm command
# of this script runs under strace -f (the farm and the programs it runs),
# and no file, folder, link or rename target may be made under /tmp,
# /var/tmp or TMPDIR outside the state folder.  The embedded database is
# started first, untraced (strace -f would wait for the server it forks
# for ever); its files are under the state folder's pg/, listed below.  Other programs on the machine may
# write there meanwhile without troubling the test.  Without strace, the
# two folders are listed before and after instead (their top level, and
# all below anything named schedfarm*), leaving out this script's scratch
# folder and other suites' schedfarm-test* and schedfarm-tpl.* folders;
# SCHEDFARM_TEST_TMP_IGNORE names more (space-separated globs of top-level
# names) to leave out.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"

H=$SCRATCH/home
unset SCHEDFARM_HOME SCHEDFARM_KERNEL_CACHE
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
embedded_stop_at_exit "$H"
# Every command of this script names the state folder with --home, and
# runs under strace when there is one (see the top).
if command -v strace >/dev/null 2>&1; then
	schedfarm() {
		strace -f -qq -o "$(mktemp "$SCRATCH/strace.XXXXXX")" \
			-e trace=creat,open,openat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,mknod,mknodat \
			"$SCHEDFARM_BIN" --home "$H" "$@"
	}
else
	schedfarm() {
		"$SCHEDFARM_BIN" --home "$H" "$@"
	}
fi

# The paths the farm made under /tmp, /var/tmp or TMPDIR outside the state
# folder, from the traces: successful creating calls only.
farm_tmp_writes() {
	cat "$SCRATCH"/strace.* 2>/dev/null |
		grep -E '(creat|O_CREAT|mkdir|rename|link|mknod)' |
		grep -vE '= -1 ' |
		grep -oE '"(/tmp|/var/tmp)/[^"]*"' | tr -d '"' |
		grep -v "^$H/" | grep -v "^$H\$" | sort -u
}

# What is in /tmp and /var/tmp (see the top), and in this script's TMPDIR.
tmp_listing() {
	for d in /tmp /var/tmp; do
		find "$d" -mindepth 1 \
			\( -path "$SCRATCH" -o -name 'schedfarm-test[.-]*' \
			   -o -name 'schedfarm-tpl.*' \) -prune -o \
			\( -path "$d/*/*" ! -path "$d/schedfarm*" \) -prune -o \
			-print 2>/dev/null
	done | while IFS= read -r p; do
		skip=
		set -f # the globs are patterns for case, not for the cwd
		for g in ${SCHEDFARM_TEST_TMP_IGNORE:-}; do
			case ${p#/*tmp/} in $g | $g/*) skip=1 ;; esac
		done
		[ -n "$skip" ] || printf '%s\n' "$p"
	done | sort
	find "$TMPDIR" -mindepth 1 | sort
}
tmp_listing >"$SCRATCH/tmp.before"
"$SCHEDFARM_BIN" --home "$H" db start >/dev/null ||
	skip_all "the embedded database would not start"
VMLINUZ=$(debian_vmlinuz)
REL=${VMLINUZ#/boot/vmlinuz-}
G=$SCRATCH/guest
mkdir -p "$G"
PORT=$(free_port)

# The plan: 4 busy loops in /a at weight 300, 4 in /b at 100, 3 s.
cat >"$SCRATCH/fair.yaml" <<'EOF'
name: t7004-fair-300-100
description: Two groups at 300:100, a few seconds, in a 2-socket guest.
workload: fairness-loop
params:
  groups: /a:4,/b:4
  duration: 3s
  sample_interval: 1s
cgroups:
  - {path: /a, weight: 300}
  - {path: /b, weight: 100}
iterations: 1
warmup: 0
boots: 1
host:
  kind: [libvirt]
  min_sockets: 2
timeouts:
  run: 2m
EOF

test_expect_success 'guest image, Debian kernel, a kernel without init, a 2-socket libvirt host' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" >out &&
	grep_or_fail "kernel debian ($REL) added" out &&
	mkdir -p noinit/etc && echo empty >noinit/etc/motd &&
	(cd noinit && find . | cpio -o -H newc --quiet | gzip -n) >noinit.cpio.gz &&
	schedfarm kernel add debian-noinit --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" --initrd "$SCRATCH/noinit.cpio.gz" >out &&
	vm_host_add vm "$PORT" --sockets 2 --cores 2 --threads 1 \
		--numa-nodes 2 --memory-mb 1024 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\"}" &&
	schedfarm plan check fair.yaml &&
	sql "SELECT id FROM farm_identity" >farm && test -s farm
'

DOM=farm-$(cat "$SCRATCH/farm" 2>/dev/null)

test_expect_success 'run PLAN --host vm --kernel debian: build found, boot, run, collect, ingest' '
	start=$(date +%s) &&
	schedfarm run fair.yaml --host vm --kernel debian >out 2>err &&
	say "job path on the VM: $(($(date +%s) - start)) s" &&
	cat out err &&
	grep_or_fail "STP#1 build: cache hit: kernel" out &&
	grep_or_fail "STP#1 build: kernel debian (cache $H/kernels)" out &&
	grep_or_fail "STP#1 boot 0: " out && grep_or_fail "ready in" out &&
	grep_or_fail "STP#1 run 1/1: ok" out &&
	grep_or_fail "STP#1 boot 0: power off: done" out &&
	test "$(sql "SELECT state FROM jobs")" = done &&
	sql "SELECT phase || \$\$ \$\$ || status FROM job_phases ORDER BY id" >phases &&
	cat phases &&
	for p in build boot run collect ingest; do
		grep -qx "$p ok" phases || { echo "no ok $p phase"; return 1; }
	done &&
	sql "SELECT log FROM job_phases WHERE phase = \$\$build\$\$" >buildlog &&
	grep_or_fail "cache hit: kernel" buildlog &&
	grep_or_fail "is external; not rebuilding" buildlog &&
	sql "SELECT log FROM job_phases WHERE phase = \$\$boot\$\$" >bootlog &&
	grep_or_fail "2 sockets x 2 cores x 1 threads, 2 NUMA nodes" bootlog &&
	grep_or_fail "ssh: up, uname -r $REL" bootlog
'

test_expect_success 'the fairness loop results and schedstat v15 counters are stored' '
	sql "SELECT r.status || \$\$ \$\$ || r.workload || \$\$ \$\$ || (r.ingested_at IS NOT NULL)
	     FROM runs r" >runs &&
	test "$(cat runs)" = "done fairness-loop true" &&
	sql "SELECT metric || \$\$ \$\$ || round(value) FROM results
	     WHERE metric IN (\$\$share./a\$\$, \$\$share./b\$\$) ORDER BY metric" >shares &&
	cat shares && test "$(wc -l <shares)" = 2 &&
	a=$(sed -n "s|^share./a ||p" shares) && b=$(sed -n "s|^share./b ||p" shares) &&
	say "share./a $a%, share./b $b% (300:100 on 4 vCPUs)" &&
	test "$a" -gt "$b" &&
	sql "SELECT count(*) FROM results" >nres && test "$(cat nres)" -gt 2 &&
	n=$(sql "SELECT count(*) FROM counters WHERE source = \$\$schedstat\$\$ AND available") &&
	say "schedstat counters: $n" && test "$n" -gt 0 &&
	sql "SELECT agent_info->\$\$cgroup\$\$->>\$\$used\$\$ FROM runs" >cg &&
	test "$(cat cg)" = v2
'

test_expect_success 'the run carries the console log; the domain is gone; the host is idle and good' '
	sql "SELECT console_log FROM runs" >console &&
	grep_or_fail "SCHEDFARM-AGENT-READY release=$REL" console &&
	grep_or_fail "reboot: Power down" console &&
	sql "SELECT console_log FROM boots" >bconsole && cmp console bconsole &&
	test "$(sql "SELECT count(*) FROM boots WHERE outcome = \$\$ready\$\$ AND finished_at IS NOT NULL")" = 1 &&
	! virsh -c qemu:///system list --name | grep -q "^$DOM-" &&
	test "$(sql "SELECT state || \$\$ \$\$ || health FROM hosts WHERE name = \$\$vm\$\$")" = "idle good"
'

test_expect_success 'a kernel that panics fails its job in phase boot, blamed; the host stays good' '
	! schedfarm run fair.yaml --host vm --kernel debian-noinit >out 2>err &&
	cat out err &&
	j=$(sql "SELECT max(id) FROM jobs") &&
	test "$(sql "SELECT state || \$\$ \$\$ || error_phase FROM jobs WHERE id = $j")" = "failed boot" &&
	sql "SELECT error FROM jobs WHERE id = $j" >error && cat error &&
	grep_or_fail "Kernel panic - not syncing" error &&
	test "$(sql "SELECT outcome || \$\$ \$\$ || blame FROM boots WHERE job_id = $j")" = "kernel-failed kernel" &&
	sql "SELECT log FROM job_phases WHERE job_id = $j AND phase = \$\$boot\$\$" >bootlog &&
	grep_or_fail "blame kernel, host good" bootlog &&
	test "$(sql "SELECT status FROM job_phases WHERE job_id = $j AND phase = \$\$boot\$\$")" = failed &&
	test "$(sql "SELECT count(*) FROM job_phases WHERE job_id = $j AND phase IN (\$\$run\$\$, \$\$ingest\$\$)")" = 0 &&
	sql "SELECT status || \$\$ \$\$ || (console_log LIKE \$\$%Kernel panic - not syncing%\$\$) FROM runs WHERE job_id = $j" >r &&
	test "$(cat r)" = "aborted true" &&
	! virsh -c qemu:///system list --name | grep -q "^$DOM-" &&
	test "$(sql "SELECT state || \$\$ \$\$ || health FROM hosts WHERE name = \$\$vm\$\$")" = "idle good" &&
	test "$(sql "SELECT count(*) FROM host_events WHERE new_health <> \$\$good\$\$")" = 0
'

test_expect_success 'the kernel cache, console logs and locks are under --home, in private folders' '
	test "$(stat -c %a "$H/kernels")" = 711 &&
	test "$(stat -c %a "$H/console")" = 700 &&
	test "$(stat -c %U "$H/kernels") $(stat -c %U "$H/console")" = "$(id -un) $(id -un)" &&
	test ! -L "$H/kernels" && test ! -L "$H/console" &&
	ls "$H/console" >logs && cat logs &&
	test "$(grep -c "^boot-[0-9]*\.log\$" logs)" = 2 &&
	grep -l "SCHEDFARM-AGENT-READY release=$REL" "$H"/console/boot-*.log &&
	grep -l "Kernel panic - not syncing" "$H"/console/boot-*.log &&
	test -f "$H/schedfarm.lock" &&
	test "$(stat -c %a "$H/schedfarm.lock")" = 600 &&
	# The state folder itself: 0700, plus o+x (search only) for postgres
	# and for the qemu of libvirt hosts.
	test "$(stat -c %a "$H")" = 701
'

if command -v strace >/dev/null 2>&1; then
	test_expect_success 'nothing was written under /tmp or /var/tmp (or TMPDIR) by the farm' '
		test "$(ls "$SCRATCH"/strace.* | wc -l)" -gt 5 &&
		farm_tmp_writes >tmp.writes &&
		if test -s tmp.writes; then
			echo "the farm made these under /tmp, /var/tmp or TMPDIR:" &&
			cat tmp.writes; false
		fi
	'
else
	test_expect_success 'nothing was written under /tmp or /var/tmp (or TMPDIR) by the farm' '
		tmp_listing >tmp.after &&
		if ! cmp -s "$SCRATCH/tmp.before" tmp.after; then
			echo "new or gone under /tmp, /var/tmp or TMPDIR during the test:" &&
			diff "$SCRATCH/tmp.before" tmp.after; false
		fi
	'
fi

test_done
