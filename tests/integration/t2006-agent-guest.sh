#!/bin/sh
# t2006: the agent in a guest kernel that has what this machine lacks -
# cgroup2 with the cpu controller and /proc/schedstat (Debian's kernel under
# qemu TCG, a busybox initramfs): cgroup v2 groups with weights, the
# fairness-loop 5+2 split there, cpu.max and cpuset.cpus, and real
# schedstat v15 deltas (the agent switching schedstats on).  Skipped
# where qemu, a Debian kernel or busybox-static is missing.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86 not installed (make deps)"
KERNEL=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$KERNEL" ] && [ -r "$KERNEL" ] || skip_all "no kernel under /boot (linux-image-amd64)"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] && file "$BUSYBOX" | grep -q "statically linked" ||
	skip_all "busybox-static not installed (make deps)"
command -v cpio >/dev/null || skip_all "cpio not installed"

cd "$SCRATCH" || exit 1
# The guest: /init mounts what the agent reads, turns schedstats off (the
# agent must turn them on for the run and off again), runs the agent on
# /spec.json, prints its lines between markers, powers off.
mkdir -p root/bin root/proc root/sys root/dev root/tmp root/etc
cp "$BUSYBOX" root/bin/busybox
for a in sh mount mkdir cat echo poweroff sleep; do ln -s busybox root/bin/$a; done
cp "$AGENT_BIN" root/bin/schedfarm-agent
echo "root:x:0:0:root:/:/bin/sh" >root/etc/passwd
cat >root/init <<'EOI'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo 0 >/proc/sys/kernel/sched_schedstats
echo SCHEDFARM-GUEST-BEGIN
/bin/schedfarm-agent run /spec.json
echo "SCHEDFARM-GUEST-END rc=$?"
echo "SCHEDSTATS-AFTER=$(cat /proc/sys/kernel/sched_schedstats)"
if [ -f /spec2.json ]; then
	echo SCHEDFARM-GUEST2-BEGIN
	/bin/schedfarm-agent run /spec2.json
	echo "SCHEDFARM-GUEST2-END rc=$?"
fi
poweroff -f
EOI
chmod 755 root/init

# boot SPEC [SPEC2]: run them in the guest; the agent's lines go to
# $SCRATCH/lines (and lines2)
boot() {
	cp "$1" root/spec.json &&
	if [ -n "${2:-}" ]; then cp "$2" root/spec2.json; else rm -f root/spec2.json; fi &&
	(cd root && find . | sort | cpio -o -H newc --quiet) | gzip -1 >initrd.gz &&
	timeout 240 qemu-system-x86_64 -accel tcg -smp 2 -m 512 -nodefaults \
		-display none -no-reboot -serial file:"$SCRATCH/console" \
		-kernel "$KERNEL" -initrd initrd.gz \
		-append "console=ttyS0 quiet panic=-1 rdinit=/init" >qemu.out 2>&1 ||
		{ echo "qemu failed"; cat qemu.out; tail -n 20 console; return 1; }
	tr -d '\r' <console | sed -n '/^SCHEDFARM-GUEST-BEGIN/,/^SCHEDFARM-GUEST-END/p' |
		grep '^{' >lines
	tr -d '\r' <console | sed -n '/^SCHEDFARM-GUEST2-BEGIN/,/^SCHEDFARM-GUEST2-END/p' |
		grep '^{' >lines2
	grep -q "^SCHEDFARM-GUEST-END rc=0" console ||
		{ echo "the agent failed in the guest:"; tail -n 30 console; return 1; }
}
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\")][0].value" lines
}

test_expect_success 'in the guest: cgroup v2 with cpu, schedstat available' '
	printf "{\"run_id\":2006001,\"workload\":\"fairness-loop\",\"parent_weight\":10000,\"params\":{\"groups\":\"/a:5,/b:2\",\"duration\":\"4s\",\"sample_interval\":\"500ms\"}}" >spec.json &&
	printf "{\"run_id\":2006002,\"workload\":\"fairness-loop\",\"parent_weight\":10000,\"params\":{\"groups\":\"/q:1,/p:2\",\"duration\":\"3s\"},\"cgroups\":[{\"path\":\"/q\",\"cpu_max_pct\":30},{\"path\":\"/p\",\"cpus\":\"1\"}]}" >spec2.json &&
	boot spec.json spec2.json &&
	head -n 1 lines | jq -e ".info.cgroup.mode == \"v2\" and .info.cgroup.used == \"v2\"" &&
	head -n 1 lines | jq -e ".info.schedstat.available == true and .info.schedstat.version >= 15 and .info.schedstat.enabled == false" &&
	tail -n 1 lines | jq -e ".status == \"ok\""
'

test_expect_success 'fairness-loop on cgroup v2: /b tasks get about 2.5 times an /a task' '
	a=$(metric share_per_task./a) && b=$(metric share_per_task./b) &&
	say "guest per task: /a $a%, /b $b%" &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(a > 0 && b / a > 1.8 && b / a < 3.5) }" &&
	awk -v j="$(metric jain_index)" "BEGIN { exit !(j > 0.9) }" &&
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/a\")][0].value > 0" lines
'

test_expect_success 'real schedstat deltas: run delay, timeslices, per domain balancing' '
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and .scope == \"all\" and .name == \"pcount\")][0].value > 0" lines &&
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and .scope == \"all\" and .name == \"run_delay_ns\")][0].value > 0" lines &&
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and .scope == \"cpu1\")] | length == 4" lines &&
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and (.scope | test(\"^domain0/(idle|busy|newidle)$\")))] | length == 3" lines &&
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and .name == \"balancer_migrations\")] | length == 1" lines
'

test_expect_success 'schedstats were on for the run (balancing counted) and off again after' '
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and .name == \"lb_gained\")] | map(.value) | add > 0" lines &&
	grep -q "^SCHEDSTATS-AFTER=0" console
'

test_expect_success 'cgroup v2 cpu.max and cpuset.cpus: a loop capped at 30%, two pinned to one CPU' '
	tail -n 1 lines2 | jq -e ".status == \"ok\"" &&
	q=$(jq -r -s "[.[] | select(.type == \"result\" and .metric == \"share./q\")][0].value" lines2) &&
	p=$(jq -r -s "[.[] | select(.type == \"result\" and .metric == \"share_per_task./p\")][0].value" lines2) &&
	say "guest: capped group $q%, pinned tasks $p% each" &&
	awk -v q="$q" -v p="$p" "BEGIN { exit !(q > 20 && q < 40 && p > 35 && p < 65) }"
'

test_done
