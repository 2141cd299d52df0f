#!/bin/sh
# t7001: real boots of a libvirt/qemu (TCG) guest with Debian's kernel and
# the farm's guest image: a 2-socket, 2-NUMA-node shape seen from inside,
# the agent reached over SSH through a restricted user network, cgroup v2
# and schedstat v15 in the guest, a fairness loop under cgroup v2; then a
# kernel that panics (bad init), caught from the console within 10 s of the
# panic line, blamed on the kernel, the host still good; a host without a
# known_hosts file, failed as soon as SSH is due, blamed on the host.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"

boot_test_setup
PORT=$(free_port)

test_expect_success 'the guest image builds, reproducibly given the host key' '
	guest_image "$G" "/lib/modules/$REL" &&
	test -s "$G/guest.cpio.gz" && test -s "$G/guest.cpio.gz.hostkey.pub" &&
	cp "$G/guest.cpio.gz" first.cpio.gz &&
	cpio -i --quiet --to-stdout etc/ssh/ssh_host_ed25519_key \
		<"$(gzip -dc "$G/guest.cpio.gz" >img.cpio && echo img.cpio)" >hk &&
	chmod 600 hk &&
	SOURCE_DATE_EPOCH=1700000000 sh "$TOP/tools/guest-image.sh" -o a.cpio.gz \
		-k "$G/ctl.pub" -a "$AGENT_BIN" -K hk -m "/lib/modules/$REL" >/dev/null &&
	SOURCE_DATE_EPOCH=1700000000 sh "$TOP/tools/guest-image.sh" -o b.cpio.gz \
		-k "$G/ctl.pub" -a "$AGENT_BIN" -K hk -m "/lib/modules/$REL" >/dev/null &&
	cmp a.cpio.gz b.cpio.gz
'

test_expect_success 'a Debian kernel and a 2-socket libvirt host are registered' '
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" >out &&
	grep_or_fail "kernel debian ($REL) added" out &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	sql "INSERT INTO hosts (name, kind, address, port, ssh_user, key_file,
		known_hosts, sockets, cores_per_socket, threads_per_core,
		numa_nodes, memory_mb, libvirt_uri, boot_config)
	     VALUES (\$\$vm1\$\$, \$\$libvirt\$\$, \$\$127.0.0.1\$\$, $PORT,
		\$\$root\$\$, \$\$$G/ctl\$\$, \$\$$G/known_hosts\$\$, 2, 2, 1, 2,
		1024, \$\$qemu:///system\$\$,
		\$\${\"initrd\": \"$G/guest.cpio.gz\",
		     \"kernel_timeout_ms\": 300000, \"agent_timeout_ms\": 300000,
		     \"ssh_timeout_ms\": 120000}\$\$)" &&
	schedfarm kernel list >list && grep_or_fail "debian" list &&
	sql "SELECT id FROM farm_identity" >farm && test -s farm
'

# This farm's domains (other suites may share the libvirt daemon).
DOM=farm-$(cat "$SCRATCH/farm" 2>/dev/null)

test_expect_success 'boot: Linux, beacon, SSH, uname -r; 2 sockets and 2 NUMA nodes inside; TCG: no_timer_check' '
	schedfarm kernel boot debian --host vm1 --keep >out 2>err
	r=$?
	cat out err
	test "$r" = 0 &&
	grep_or_fail "ready: $REL on vm1" out &&
	grep_or_fail "console: Linux version $REL" err &&
	grep_or_fail "console: agent beacon ($REL)" err &&
	test "$(sql "SELECT outcome || \$\$ \$\$ || release FROM boots")" = "ready $REL" &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$vm1\$\$")" = good &&
	ssh -o BatchMode=yes -o UserKnownHostsFile="$G/known_hosts" \
		-i "$G/ctl" -p "$PORT" root@127.0.0.1 \
		"cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l;
		 ls -d /sys/devices/system/node/node* | wc -l; nproc;
		 cat /proc/cmdline" >topo &&
	test "$(sed -n 1p topo)" = 2 && test "$(sed -n 2p topo)" = 2 &&
	test "$(sed -n 3p topo)" = 4 &&
	grep_or_fail "TCG guest: no_timer_check added" err &&
	sed -n 4p topo | grep -qw no_timer_check
'

AGENT_INFO=no
"$AGENT_BIN" info >/dev/null 2>&1 && AGENT_INFO=yes
if [ "$AGENT_INFO" = yes ]; then
	test_expect_success 'the agent in the guest reports 2 sockets' '
		ssh -o BatchMode=yes -o UserKnownHostsFile="$G/known_hosts" \
			-i "$G/ctl" -p "$PORT" root@127.0.0.1 \
			"schedfarm-agent info" >info.json &&
		jq -e ".cpus.sockets == 2 and .cpus.numa_nodes == 2" info.json
	'
else
	test_skip 'the agent in the guest reports 2 sockets' \
		"this agent has no info yet (topology checked through /sys above)"
fi

test_expect_success 'in the guest: schedstat v15, cgroup v2 cpu, a fairness loop in two groups' '
	ssh -o BatchMode=yes -o UserKnownHostsFile="$G/known_hosts" \
		-i "$G/ctl" -p "$PORT" root@127.0.0.1 "
		head -n 1 /proc/schedstat
		C=/sys/fs/cgroup
		# a guest without cgroup2 mounted there: one of its own
		if ! grep -q \" /sys/fs/cgroup cgroup2 \" /proc/mounts; then
			C=/tmp/cg2 && mkdir -p \$C && mount -t cgroup2 none \$C
		fi
		cd \$C && echo +cpu >cgroup.subtree_control &&
		mkdir a b && echo 300 >a/cpu.weight && echo 100 >b/cpu.weight &&
		for g in a a a a b b b b; do
			sh -c \"echo \\\$\\\$ >\$C/\$g/cgroup.procs; while :; do :; done\" &
		done
		sleep 4
		ua=\$(sed -n \"s/^usage_usec //p\" a/cpu.stat)
		ub=\$(sed -n \"s/^usage_usec //p\" b/cpu.stat)
		kill \$(cat a/cgroup.procs b/cgroup.procs)
		echo share_a \$((ua * 100 / (ua + ub)))
		grep -c ^cpu /proc/schedstat" >fair &&
	cat fair &&
	grep_or_fail "version 15" fair &&
	share=$(sed -n "s/^share_a //p" fair) &&
	test "$share" -ge 60 && test "$share" -le 90
'

if [ "$AGENT_INFO" = yes ]; then
	test_expect_success 'the agent runs a fairness loop under cgroup v2 in the guest; its schedstat v15 counters are ingested' '
		run=$(sql "INSERT INTO runs (host_id, kernel_id, workload)
			SELECT h.id, k.id, \$\$fairness-loop\$\$ FROM hosts h, kernels k
			WHERE h.name = \$\$vm1\$\$ AND k.name = \$\$debian\$\$ RETURNING id") &&
		cat >spec.json <<-EOS &&
		{"run_id": $run, "workload": "fairness-loop",
		 "params": {"groups": "/a:4:300,/b:4:100", "duration": "3s"},
		 "iterations": 1, "warmup": 0,
		 "results_file": "/tmp/run-1.jsonl", "deadline_s": 120}
		EOS
		ssh -o BatchMode=yes -o UserKnownHostsFile="$G/known_hosts" \
			-i "$G/ctl" -p "$PORT" root@127.0.0.1 \
			"schedfarm-agent run -" <spec.json >run.jsonl &&
		jq -s -e "map(select(.type == \"done\"))[0].status == \"ok\"" run.jsonl &&
		jq -s -e "map(select(.type == \"hello\"))[0].info.cgroup.used == \"v2\"" run.jsonl &&
		sed "s|/tmp/run-1.jsonl|/tmp/run-2.jsonl|" spec.json >spec2.json &&
		# The micro-VM of issue 32: no cgroup mounted at all (the guest
		# init mounts cgroup2 at /sys/fs/cgroup; a private mount
		# namespace without it).  The agent mounts a cgroup2 of its own.
		ssh -o BatchMode=yes -o UserKnownHostsFile="$G/known_hosts" \
			-i "$G/ctl" -p "$PORT" root@127.0.0.1 \
			"busybox unshare -m sh -c \"umount /sys/fs/cgroup && ! grep -q cgroup /proc/mounts && exec schedfarm-agent run -\"" \
			<spec2.json >hidden.jsonl &&
		jq -s -e "map(select(.type == \"done\"))[0].status == \"ok\"" hidden.jsonl &&
		jq -s -e "map(select(.type == \"hello\"))[0].info.cgroup | .used == \"v2\" and (.private | type == \"string\")" hidden.jsonl &&
		say "no cgroup mounted: the agent mounted its own ($(jq -s -r "map(select(.type == \"hello\"))[0].info.cgroup.private" hidden.jsonl))" &&
		jq -s -e "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and (.available // true))] | length > 0" run.jsonl &&
		schedfarm job ingest "$run" run.jsonl &&
		n=$(sql "SELECT count(*) FROM counters WHERE run_id = $run AND source = \$\$schedstat\$\$ AND available") &&
		say "schedstat counters ingested: $n" && test "$n" -gt 0
	'
else
	test_skip 'the agent runs a fairness loop under cgroup v2 in the guest' \
		"this agent has no run yet (the loop ran from the shell above)"
fi

# guest_wl WORKLOAD PARAMS METRIC: one short run of WORKLOAD (PARAMS: its
# JSON object) by the agent in the kept guest: done ok, METRIC reported.
guest_wl() {
	printf '{"run_id":7001,"workload":"%s","params":%s,"iterations":1,"warmup":0,"deadline_s":120}' \
		"$1" "$2" >"spec-$1.json" &&
		ssh -o BatchMode=yes -o UserKnownHostsFile="$G/known_hosts" \
			-i "$G/ctl" -p "$PORT" root@127.0.0.1 \
			"schedfarm-agent run -" <"spec-$1.json" >"wl-$1.jsonl"
	jq -s -e 'map(select(.type == "done"))[0].status == "ok"' "wl-$1.jsonl" >/dev/null &&
		jq -s -e --arg m "$3" '[.[] | select(.type == "result" and .metric == $m)] | length == 1' \
			"wl-$1.jsonl" >/dev/null ||
		{ echo "$1 in the guest:"; grep -v "\"counter\"" "wl-$1.jsonl"; return 1; }
}

if [ "$AGENT_INFO" = yes ]; then
	# Issue 32: today's workloads, briefly, in the guest the image makes
	# (each one's program and load file are in it), as the two plans of
	# that issue run them.  About 20 s under TCG.
	test_expect_success 'in the guest: schbench, tbench, stress-ng, rt-app, hackbench and cyclictest run and report' '
		guest_wl schbench "{\"message_threads\":1,\"workers\":2,\"duration\":\"2s\"}" wakeup_p99_us &&
		guest_wl tbench "{\"clients\":\"1\",\"duration\":\"5s\"}" throughput_mb_s.1 &&
		guest_wl stress-ng "{\"stressor\":\"switch\",\"workers\":1,\"duration\":\"1s\"}" bogo_ops_per_s &&
		guest_wl rt-app "{\"tasks\":\"- {name: p, period: 10ms, run: 1ms}\",\"duration\":\"1s\"}" p.perf_index &&
		guest_wl hackbench "{\"groups\":1,\"loops\":10}" time_s &&
		guest_wl cyclictest "{\"duration\":\"1s\"}" latency_p99_us
	'
fi

test_expect_success 'orphaned farm-* domains (the one left with --keep) are destroyed' '
	virsh -c qemu:///system list --name | grep -q "^$DOM-vm1-boot" &&
	# A kept guest is its controller'\''s while that lease lasts (an
	# hour): nothing takes it down before then.
	schedfarm kernel orphans --uri qemu:///system >out0 &&
	grep_or_fail "0 orphans taken down" out0 &&
	virsh -c qemu:///system list --name | grep -q "^$DOM-vm1-boot" &&
	# The hour has passed.
	sql "UPDATE controllers SET lease_expires = now() - interval \$\$1 s\$\$ WHERE kind = \$\$cli\$\$" >/dev/null &&
	schedfarm kernel orphans --uri qemu:///system >out &&
	grep_or_fail "1 orphan taken down" out &&
	grep_or_fail "expired" out &&
	! virsh -c qemu:///system list --name | grep -q "^$DOM-"
'

test_expect_success 'a kernel that panics is caught from the console within 10 s, blamed, host stays good' '
	schedfarm db psql -- -qAt -c "SELECT count(*) FROM host_events" >ev0 &&
	console_dir=$SCHEDFARM_HOME/console &&
	# A watcher independent of the farm notes when the panic line lands.
	( end=$(($(date +%s) + 200));
	  while [ "$(date +%s)" -lt "$end" ]; do
		if grep -qs "Kernel panic - not syncing" "$console_dir"/boot-*.log; then
			date +%s.%N >panic_seen; break; fi; sleep 0.05; done ) &
	watcher=$! &&
	! schedfarm kernel boot debian --host vm1 --append "rdinit=/bin/false" >out 2>err &&
	date +%s.%N >farm_done &&
	wait $watcher &&
	cat out err &&
	grep_or_fail "boot of debian on vm1 failed (kernel-failed); blamed on the kernel; host vm1 is now good" out &&
	grep_or_fail "panic: " err &&
	test -s panic_seen &&
	awk -v a="$(cat panic_seen)" -v b="$(cat farm_done)" "BEGIN { d = b - a; print \"panic to verdict\", d, \"s\"; exit !(d <= 10) }" &&
	test "$(sql "SELECT outcome || \$\$ \$\$ || blame FROM boots ORDER BY id DESC LIMIT 1")" = "kernel-failed kernel" &&
	sql "SELECT console_log FROM boots ORDER BY id DESC LIMIT 1" | grep -q "Kernel panic - not syncing" &&
	test "$(sql "SELECT health FROM hosts WHERE name = \$\$vm1\$\$")" = good &&
	schedfarm db psql -- -qAt -c "SELECT count(*) FROM host_events" >ev1 &&
	cmp ev0 ev1 &&
	! virsh -c qemu:///system list --name | grep -q "^$DOM-vm1"
'

test_expect_success 'boot, run a command, power off: the domain is gone, the boot row closed' '
	schedfarm kernel boot debian --host vm1 --run "nproc" >out 2>err &&
	test "$(sed -n 2p out)" = 4 &&
	! virsh -c qemu:///system list --name | grep -q "^$DOM-" &&
	test "$(sql "SELECT count(*) FROM boots WHERE outcome = \$\$ready\$\$ AND finished_at IS NOT NULL")" = 1
'

# Issue 32's two plans through the farm on the guest, shortened (one
# value of each sweep, seconds-long runs): a job each, booted, run,
# collected and ingested.  About a minute under TCG.
test_expect_success 'plans/eevdf-latency.yaml and plans/rt-periodic.yaml, shortened, run on the guest' '
	{ schedfarm run "$TOP/plans/eevdf-latency.yaml" --host vm1 --kernel debian \
		--set iterations=1 --set warmup=0 \
		--set "workloads[0].params.workers=[2]" --set "workloads[0].params.rps=[0]" \
		--set workloads[0].params.duration=2s \
		--set "workloads[1].params.groups=[1]" --set "workloads[1].params.mode=[process]" \
		--set workloads[1].params.loops=100 \
		--set workloads[2].params.clients=1 --set workloads[2].params.duration=2s \
		>eevdf.out 2>&1 || { cat eevdf.out; false; }; } &&
	{ schedfarm run "$TOP/plans/rt-periodic.yaml" --host vm1 --kernel debian \
		--set iterations=1 --set warmup=0 \
		--set "workloads[0].together[0].params.duration=2s" \
		--set "workloads[0].together[1].params.duration=2s" \
		--set "workloads[1].together[0].params.duration=2s" \
		--set "workloads[1].together[1].params.duration=2s" \
		>rt.out 2>&1 || { cat rt.out; false; }; } &&
	schedfarm results --kernel debian --json >plans.json &&
	for m in wakeup_p99_us request_p99_us time_s throughput_mb_s.1 \
		rt.audio.perf_index rt.video.slack_avg_us lat.latency_p99_us cpu_pct.hog; do
		jq -e --arg m "$m" "[.. | objects | select(.metric? == \$m)] | length >= 1" \
			plans.json >/dev/null || { echo "no $m"; cat eevdf.out rt.out; return 1; }
	done
'

test_expect_success 'a host without a known_hosts file fails in phase ssh at once, blamed on the host' '
	sql "INSERT INTO hosts (name, kind, address, port, ssh_user, key_file,
		sockets, cores_per_socket, threads_per_core, numa_nodes,
		memory_mb, libvirt_uri, boot_config)
	     SELECT \$\$vm2\$\$, kind, address, port, ssh_user, key_file,
		sockets, cores_per_socket, threads_per_core, numa_nodes,
		memory_mb, libvirt_uri, boot_config
	     FROM hosts WHERE name = \$\$vm1\$\$" &&
	! schedfarm kernel boot debian --host vm2 >out 2>err &&
	cat out err &&
	grep_or_fail "console: agent beacon ($REL)" err &&
	grep_or_fail "has no known_hosts file" err &&
	grep_or_fail "boot of debian on vm2 failed (infra-failed); blamed on the host; host vm2 is now " out &&
	! grep -q "no SSH answer in time" err &&
	! virsh -c qemu:///system list --name | grep -q "^$DOM-vm2"
'

test_expect_success 'host check passes on the Debian kernel and makes it the known-good one' '
	schedfarm host check vm1 --kernel debian >out 2>err &&
	grep_or_fail "check vm1: passed on $REL" out &&
	test "$(sql "SELECT k.name || \$\$ \$\$ || h.health FROM hosts h JOIN kernels k ON k.id = h.known_good_kernel_id WHERE h.name = \$\$vm1\$\$")" = "debian good"
'

test_expect_success 'the known-good kernel failing twice in a row makes the host bad' '
	! schedfarm kernel boot debian --host vm1 --append "rdinit=/bin/false" >out1 2>err1 &&
	grep_or_fail "blamed on the host; host vm1 is now good" out1 &&
	test "$(sql "SELECT aborted_in_row FROM hosts WHERE name = \$\$vm1\$\$")" = 1 &&
	! schedfarm kernel boot debian --host vm1 --append "rdinit=/bin/false" >out2 2>err2 &&
	grep_or_fail "blamed on the host; host vm1 is now bad" out2 &&
	sql "SELECT old_health || \$\$>\$\$ || new_health || \$\$ \$\$ || reason FROM host_events ORDER BY id DESC LIMIT 1" >ev &&
	grep_or_fail "good>bad" ev && grep_or_fail "known-good kernel; 2 aborted in a row" ev
'

test_expect_success 'the boot times are recorded (power-on to agent ready)' '
	sql "SELECT linux_ms, beacon_ms, ssh_ms, ready_ms FROM boots WHERE outcome = \$\$ready\$\$" >times &&
	test "$(wc -l <times)" -ge 3 &&
	say "VM boot ms (linux|beacon|ssh|ready): $(cat times)" &&
	test -s times
'

test_done
