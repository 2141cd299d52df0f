#!/bin/sh
# t8001: a submission on a libvirt/qemu (TCG) guest gets its answer from
# one `schedfarm run`: the farm queues the base kernel's boots itself, in
# ABBA order with the patch's (P | B B | P P | B for `boots: 3`), on the
# host the patch ran on; when the last job ends it compares, stores the
# verdicts, writes the patch page into the configured report folder and
# mails the answer through a real SMTP server on loopback (aiosmtpd,
# STARTTLS, a login): exactly one mail whose subject and body hold the
# PLM#, the verdict and the link.  A second `run` sends nothing more.
#
# The kernels are Debian's prebuilt one registered twice (base and
# "patched"): what is tested is the path of the answer, not a kernel
# change (tests/kernel/t7102 does that with real builds).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"
. "$TOP/tests/lib/smtp.sh"

command -v jq >/dev/null || skip_all "jq not installed (make deps)"
boot_prereqs
smtp_prereqs
libvirt_up || skip_all "libvirtd would not start"

boot_test_setup
PORT=$(free_port)
M=$SCRATCH/smtp
smtp_up "$M" >smtp.out 2>&1 || { cat smtp.out; exit 1; }
smtp_config "$SCRATCH/farm.conf" "$SCRATCH"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf

cat >"$SCRATCH/fair.yaml" <<'EOF'
name: t8001-fair
description: Two groups at 300:100 for two seconds, in a 2-socket guest.
workload: fairness-loop
params:
  groups: /a:2,/b:2
  duration: 2s
  sample_interval: 1s
cgroups:
  - {path: /a, weight: 300}
  - {path: /b, weight: 100}
iterations: 1
warmup: 0
boots: 3
host:
  kind: [libvirt]
metrics:
  jain_index: {direction: higher, tau: 5%, decides: true}
timeouts:
  run: 2m
EOF
cat >"$SCRATCH/fix.patch" <<'EOF'
From: Dev Eloper <dev@example.org>
Subject: [PATCH] sched/fair: a change to answer

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-a
+b
EOF

test_expect_success 'a guest image, Debian kernel as base and "patched", a libvirt host' '
	guest_image "$G" "/lib/modules/$REL" &&
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	for k in debian debian-fix; do
		schedfarm kernel add $k --image "$VMLINUZ" --vmlinux "$VMLINUX" \
			--release "$REL" >/dev/null || return 1
	done &&
	vm_host_add vm "$PORT" --sockets 2 --cores 2 --threads 1 \
		--numa-nodes 2 --memory-mb 1024 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\"}" >/dev/null
'

test_expect_success 'submit: the first unit of the ABBA order is queued, the base is announced' '
	schedfarm submit fix.patch --base debian --kernel debian-fix --host vm \
		--plan fair.yaml >sub && cat sub &&
	grep_or_fail "PLM#1: 1 patch on debian" sub &&
	grep_or_fail "STP#1: queued, plan t8001-fair (1 runs), host vm" sub &&
	grep_or_fail "then the base debian: 3 boots (0 stored on vm), in ABBA order" sub &&
	schedfarm patch show 1 --json >p &&
	jq -e ".answer.state == \"pending\" and (.jobs | length) == 1" p
'

test_expect_success 'one run: the base jobs are queued by the farm and run, interleaved' '
	start=$(date +%s) &&
	schedfarm run >run1 2>&1; rc=$?; cat run1 &&
	say "submission to answer: $(($(date +%s) - start)) s" &&
	test $rc = 0 &&
	grep_or_fail "PLM#1: queued STP#2, the base kernel debian, 2 boots on vm" run1 &&
	grep_or_fail "PLM#1 answered:" run1 &&
	schedfarm patch show 1 --json >p &&
	jq -c "[.jobs[] | [.side, .boots, .state]]" p >order && cat order &&
	sql "SELECT id, outcome, reason, right(console_log, 4000) FROM boots
		WHERE outcome <> \$\$ready\$\$" &&
	test "$(cat order)" = "[[\"patch\",1,\"done\"],[\"base\",2,\"done\"],[\"patch\",2,\"done\"],[\"base\",1,\"done\"]]" &&
	schedfarm db psql -- -qAt -c "SELECT string_agg(CASE k.name WHEN
		\$\$debian\$\$ THEN \$\$B\$\$ ELSE \$\$P\$\$ END, \$\$\$\$ ORDER BY b.id)
		FROM boots b JOIN kernels k ON k.id = b.kernel_id
		WHERE b.outcome = \$\$ready\$\$" >boots &&
	test "$(cat boots)" = PBBPPB
'

test_expect_success 'patch show --json has the verdicts; the report folder has the page' '
	jq -e ".answer.state == \"answered\" and (.answer.verdict | length) > 0" p &&
	jq -e ".answer.metrics | length == 1 and .[0].metric == \"jain_index\" and .[0].n_base == 3 and .[0].n_new == 3" p &&
	jq -e "[.verdicts[] | select(.metric == \"share./a\")] | length == 1" p &&
	jq -e ".page == \"http://farm.example/reports/patch-1.html\"" p &&
	test -s www/patch-1.html && test -s www/index.html &&
	grep -q "jain_index" www/patch-1.html &&
	grep_or_fail "answered" www/patch-1.html
'

test_expect_success 'exactly one mail with the PLM#, the verdict and the link' '
	test "$(smtp_count "$M")" = 1 &&
	verdict=$(jq -r .answer.verdict p) && smtp_unfold "$M/mail/001.eml" >m1 && m=m1 && cat "$m" &&
	grep -q "^Subject: \\[schedfarm\\] PLM#1 \"sched/fair: a change to answer\": jain_index .*$verdict on vm" "$m" &&
	grep_or_fail "Verdict: $verdict" "$m" &&
	grep_or_fail "The page: http://farm.example/reports/patch-1.html" "$m" &&
	grep_or_fail "X-Envelope-To: dev@example.org" "$m" &&
	grep_or_fail "X-Envelope-To: sched-devel@example.org" "$m" &&
	jq -e ".mails | length == 1 and .[0].state == \"sent\"" p
'

test_expect_success 'a second run sends nothing more' '
	schedfarm run >run2 2>&1 && cat run2 &&
	grep_or_fail "the queue is empty" run2 &&
	test "$(smtp_count "$M")" = 1 &&
	schedfarm patch show 1 >text && cat text &&
	grep_or_fail "answer    answered: " text &&
	grep_or_fail "#1 answer sent" text
'

test_expect_success 'a second submission reuses the base boots stored there: only the patch runs' '
	schedfarm submit fix.patch --base debian --kernel debian-fix --host vm \
		--plan fair.yaml --mail "" >sub2 && cat sub2 &&
	grep_or_fail "STP#5: queued, plan t8001-fair (3 runs), host vm" sub2 &&
	grep_or_fail "the base debian has 3 boots stored on vm: they are reused" sub2 &&
	schedfarm run >run3 2>&1; cat run3 &&
	grep_or_fail "PLM#2 answered:" run3 &&
	sql "SELECT id, outcome, reason, right(console_log, 4000) FROM boots
		WHERE outcome <> \$\$ready\$\$" &&
	schedfarm patch show 2 --json >p2 &&
	jq -c "[.jobs[] | [.side, .boots, .state]]" p2 >order2 && cat order2 &&
	test "$(cat order2)" = "[[\"patch\",3,\"done\"]]" &&
	jq -e ".answer.metrics[0].n_base == 3 and .mail_to == null" p2 &&
	test "$(smtp_count "$M")" = 2 &&
	grep_or_fail "X-Envelope-To: sched-devel@example.org" "$M/mail/002.eml" &&
	! grep -q "X-Envelope-To: dev@example.org" "$M/mail/002.eml"
'

test_done
