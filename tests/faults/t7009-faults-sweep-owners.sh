#!/bin/sh
# t7009: two controllers on one database never destroy each other's guests;
# a dead controller's guest is taken down once its lease has expired.
# Real libvirt/qemu (TCG) guests:
#   - controller A boots a guest for its job; controller B starts (and
#     sweeps) meanwhile: A's guest lives on, A's job ends done;
#   - the controller running the next job is SIGKILLed with its job
#     process (the whole process group) while the guest runs: the guest is
#     left behind; the other controller, once the dead one's lease expired,
#     takes the guest down (recorded: by whom, why), runs the job again
#     (attempt 2, a domain of its own) and ends it done; no farm domain is
#     left running once every job (the base jobs each submission queued
#     too) has ended, and every domain, power operation and lease carries its
#     controller's id.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

boot_prereqs
libvirt_up || skip_all "libvirtd would not start"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v setsid >/dev/null || skip_all "setsid not installed (util-linux)"

boot_test_setup
PORT=$(free_port)
printf 'diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"

# About 20 s in the guest, sleeping.
cat >"$SCRATCH/guest.yaml" <<'EOF'
name: t7009-sleepy
workload: memchunk
params:
  short_threads: 1
  long_threads: 0
  sleep_every: 1
  sleep_us: 100000
  duration: 10s
iterations: 2
warmup: 0
host:
  kind: [libvirt]
timeouts:
  run: 3m
  boot: 6m
EOF

test_expect_success 'a guest image, Debian kernel (also as the base b), a libvirt host checked on it' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	schedfarm kernel add debian --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" >out &&
	schedfarm kernel add b --image "$VMLINUZ" --vmlinux "$VMLINUX" \
		--release "$REL" >out &&
	vm_host_add vm "$PORT" --cpus 2 --memory-mb 768 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\", \"agent_timeout_ms\": 240000, \"ssh_timeout_ms\": 120000}" &&
	schedfarm host check vm --kernel debian >out 2>err &&
	grep_or_fail "check vm: passed" out &&
	sql "SELECT id FROM farm_identity" >farm && test -s farm
'

DOM=farm-$(cat "$SCRATCH/farm" 2>/dev/null)
running_domains() {
	virsh -c qemu:///system list --name | grep "^$DOM-" || true
}

# serve_start NAME: a serve in a process group of its own (so that it can
# be killed with its job processes), lease 60 s (the default: a TCG
# domain create on a loaded machine blocks for tens of seconds).
serve_start() {
	setsid "$SCHEDFARM_BIN" serve --jobs 1 --lease 60 --wake 1 \
		>"$SCRATCH/$1.log" 2>&1 &
	eval "PID_$1=\$!"
	test_atexit "kill -KILL -$!"
	wait_for "grep -q \"serve ready\" '$SCRATCH/$1.log'" 30
}

test_expect_success 'controller A boots a guest for its job' '
	serve_start A &&
	schedfarm submit p.patch --base b --kernel debian --plan guest.yaml --json >j1.json &&
	J1=$(jq .job j1.json) && echo $J1 >j1 &&
	wait_for "test \"\$(sql \"SELECT status FROM runs WHERE job_id = $J1\")\" = running" 400 &&
	running_domains >doms && cat doms &&
	test "$(grep -c "^$DOM-$J1-a1\$" doms)" = 1
'

test_expect_success 'controller B starts and sweeps: A'"'"'s guest lives on, its job ends done' '
	J1=$(cat j1) &&
	serve_start B &&
	sleep 2 &&
	! grep -q "sweep: took down" B.log &&
	running_domains | grep -qx "$DOM-$J1-a1" &&
	wait_for "test \"\$(sql \"SELECT state FROM jobs WHERE id = $J1\")\" = done" 300 &&
	test "$(sql "SELECT attempts FROM jobs WHERE id = $J1")" = 1 &&
	test "$(sql "SELECT destroyed_by = controller_id FROM domains WHERE name = \$\$$DOM-$J1-a1\$\$")" = t
'

test_expect_success 'the controller of the next job is killed with its job process mid-run: its guest stays up' '
	schedfarm submit p.patch --base b --kernel debian --plan guest.yaml --json >j2.json &&
	J2=$(jq .job j2.json) && echo $J2 >j2 &&
	wait_for "test \"\$(sql \"SELECT status FROM runs WHERE job_id = $J2\")\" = running" 400 &&
	owner=$(sql "SELECT lease_owner FROM jobs WHERE id = $J2") &&
	victim=$(echo "$owner" | cut -d: -f2) &&
	say "job $J2 held by $owner: killing process group $victim" &&
	echo "$owner" >victim_owner &&
	kill -KILL -$victim &&
	sleep 1 &&
	running_domains | grep -qx "$DOM-$J2-a1" &&
	test "$(sql "SELECT controller_id FROM domains WHERE name = \$\$$DOM-$J2-a1\$\$ AND destroyed_at IS NULL")" = "$owner"
'

test_expect_success 'the survivor takes the orphan down once its owner'"'"'s lease expired, and runs the job again' '
	J2=$(cat j2) && owner=$(cat victim_owner) &&
	wait_for "test \"\$(sql \"SELECT state FROM jobs WHERE id = $J2\")\" = done" 600 || {
		sql "SELECT state, attempts, error FROM jobs WHERE id = $J2"; tail -n 20 A.log B.log; false; } &&
	test "$(sql "SELECT attempts FROM jobs WHERE id = $J2")" = 2 &&
	sql "SELECT destroyed_by || \$\$|\$\$ || destroy_reason FROM domains WHERE name = \$\$$DOM-$J2-a1\$\$" >gone &&
	cat gone &&
	survivor=$(sql "SELECT finished_by FROM jobs WHERE id = $J2") &&
	test "$survivor" != "$owner" &&
	grep -q "^$survivor|" gone &&
	grep -q "controller" gone &&
	test "$(sql "SELECT count(*) FROM runs WHERE job_id = $J2 AND status = \$\$done\$\$")" = 1 &&
	test "$(sql "SELECT count(*) FROM runs WHERE job_id = $J2 AND status = \$\$aborted\$\$")" = 1
'

# jobs not ended yet; the host's state
open_jobs() {
	sql "SELECT count(*) FROM jobs WHERE state NOT IN ('done', 'failed', 'cancelled')"
}
vm_state() {
	sql "SELECT state FROM hosts WHERE name = 'vm'"
}

test_expect_success 'no farm domain is left running; every record names its controller' '
	# Each submission also queued its base kernel'"'"'s job (issue 12):
	# the checks hold once every job has ended.
	wait_for "test \"\$(open_jobs)\" = 0" 600 || {
		sql "SELECT id, state, attempts, error FROM jobs ORDER BY id"; false; } &&
	{ sql "SELECT id || \$\$ \$\$ || state || \$\$ \$\$ || attempts || \$\$ \$\$ || coalesce(error, \$\$\$\$) FROM jobs ORDER BY id";
	  running_domains; sql "SELECT name || \$\$ \$\$ || controller_id || \$\$ \$\$ || coalesce(destroyed_at::text, \$\$up\$\$) FROM domains ORDER BY id"; } >state 2>&1 &&
	cat state &&
	test "$(sql "SELECT count(*) FROM jobs WHERE state <> \$\$done\$\$")" = 0 &&
	test -z "$(running_domains)" &&
	test "$(sql "SELECT count(*) FROM domains WHERE destroyed_at IS NULL")" = 0 &&
	test "$(sql "SELECT count(*) FROM domains WHERE controller_id IS NULL OR controller_id = \$\$\$\$")" = 0 &&
	test "$(sql "SELECT count(*) FROM power_ops WHERE controller_id NOT IN (SELECT id FROM controllers)")" = 0 &&
	test "$(sql "SELECT count(*) FROM boots WHERE controller_id IS NULL")" = 0 &&
	wait_for "test \"\$(vm_state)\" = idle" 30 &&
	sql "SELECT op || \$\$ \$\$ || outcome FROM power_ops ORDER BY id" >ops && cat ops &&
	grep -q "^create ok" ops && grep -q "^destroy ok" ops
'

test_done
