#!/bin/sh
# t8011: the mailing-list chain end to end, in one test (issue 34, the
# first "Done when" item).  A public-inbox v2 archive (public-inbox-init
# -V2, public-inbox-mda) gets a 3-patch sched series with its cover
# letter, a reply without a diff, a [GIT PULL], a patch to drivers/ only
# and a quoted-printable patch; `serve --poll-lists 1` picks up exactly
# the series and the QP patch and queues them on a 2-socket libvirt host
# held in maintenance; v2 of the series, delivered then, cancels v1's
# queued job.  The host released, each series is built in the sandbox
# (bwrap) on a small stand-in kernel tree, booted on the guest and run,
# answered, and the reply reaches the test's SMTP server on the thread
# (Subject, In-Reply-To, References, To, Cc); `serve` stopped and started
# again reads nothing twice and mails nothing twice.
#
# The stand-in tree is t7020's kind of kbuild-like Makefile whose vmlinux
# and bzImage are Debian's prebuilt kernel (its release is what
# `kernelrelease` prints, so the guest image's modules fit), bzImage with
# the tree's scheduler sources appended: the built image shows that the
# list's patches were applied, and its link step prints its uid: the
# farm's build user, as only the sandbox (bwrap) runs it.  The kernel
# is the same binary with or without the patch, so no metric truly
# moves: a trigger on `results` gives the runs of a patched kernel half
# the base's round-trip time, an improvement for certain, and the list
# is added --mail-improvements so that it is mailed (a regression would
# do as well, but a series' regression starts a bisection: more boots,
# and its reply held until it ends).  The base's three boots are run first
# (`run PLAN --kernel BASE`), so each series needs its own three only:
# nine boots in all.  The restart: the first serve stopped, a second
# started, one new mail delivered; it alone is read, and no mail comes
# twice (no two with one Subject).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"
. "$TOP/tests/lib/smtp.sh"
. "$TOP/tests/lib/inbox.sh"

command -v jq >/dev/null || skip_all "jq not installed (make deps)"
for p in public-inbox-init public-inbox-mda git patch bwrap; do
	command -v $p >/dev/null || skip_all "$p not installed (make deps)"
done
[ "$(id -u)" = 0 ] || skip_all "needs root: overlay mounts and the build user"
boot_prereqs
smtp_prereqs
libvirt_up || skip_all "libvirtd would not start"

boot_test_setup
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
test_atexit "grep -o ' $SCRATCH/[^ ]*' /proc/self/mountinfo | sort -r | while read -r m; do umount -l \"\$m\"; done"
PORT=$(free_port)
M=$SCRATCH/smtp
smtp_up "$M" >smtp.out 2>&1 || { cat smtp.out; exit 1; }
smtp_config "$SCRATCH/farm.conf" "$SCRATCH"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf
inbox_env

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -qAt -c "$1"
}
# The replies the SMTP server got (the answers' own mails answer no
# mail: they have no In-Reply-To).
replies() {
	grep -l "^In-Reply-To: " "$M"/mail/*.eml 2>/dev/null | wc -l
}
# The Subject of mail $1, RFC 2047 decoded.
subject_of() {
	python3 -c 'import email, email.header, sys
m = email.message_from_file(open(sys.argv[1], encoding="utf-8"))
print(str(email.header.make_header(email.header.decode_header(m["Subject"]))))' "$1"
}
# The reply whose In-Reply-To is $1, unfolded, into file $2.
reply_to() {
	for _f in "$M"/mail/*.eml; do
		smtp_unfold "$_f" >"$2"
		grep -qx "In-Reply-To: $1" "$2" && return 0
	done
	echo "no reply In-Reply-To $1"
	return 1
}
# PLM#$1 is answered.
answered() {
	schedfarm patch show "$1" --json | jq -e '.answer.state == "answered"' >/dev/null
}
# The image of the kernel of PLM#$1's patched jobs.
image_of() {
	q "SELECT k.image_path FROM kernels k JOIN jobs j ON j.kernel_id = k.id
	   WHERE j.patch_id = $1 AND k.name <> 'sched-core' LIMIT 1"
}

# The stand-in tree: the files the list's patches touch, and a Makefile
# with the targets the farm's build calls.
T=$SCRATCH/tree
mkdir -p "$T/kernel/sched" "$T/include/linux" "$T/prebuilt"
echo '/* old 1 */' >"$T/kernel/sched/fair.c"
echo '/* old 2 */' >"$T/include/linux/sched.h"
echo '/* old 3 */' >"$T/kernel/sched/core.c"
echo 'int x = 1;' >"$T/kernel/sched/rt.c"
cat >"$T/Makefile" <<'EOF'
O ?= .
SRCS = kernel/sched/fair.c include/linux/sched.h kernel/sched/core.c \
	kernel/sched/rt.c
.PHONY: tinyconfig olddefconfig bzImage kernelrelease
tinyconfig:
	@echo CONFIG_SCHED=y >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
olddefconfig:
	@cat $(O)/.config >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
$(O)/vmlinux: prebuilt/vmlinux $(SRCS)
	@echo "  LD      vmlinux (uid $$(id -u))"
	@cp prebuilt/vmlinux $@.tmp && mv $@.tmp $@
vmlinux: $(O)/vmlinux
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot
	@cat prebuilt/bzImage $(SRCS) >$(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo @REL@
EOF
sed -i "s/@REL@/$REL/" "$T/Makefile"

cat >pp.yaml <<'EOF'
name: t8011-pingpong
workload: pipe-pingpong
params:
  round_trips: 2000
iterations: 1
warmup: 0
boots: 3
host:
  kind: [libvirt]
metrics:
  round_trip_us: {decides: true}
timeouts:
  run: 2m
  # A TCG guest with its 4 vCPUs busy on a 2-core machine can leave
  # its sshd unanswered for more than the default 20 s (a run was lost
  # so once): a wider stall window, for this guest only.
  stall: 90s
EOF

test_expect_success 'the stand-in tree built as the base; a guest image; a 2-socket libvirt host' '
	VMLINUX=$(vmlinux_of "$VMLINUZ") &&
	cp "$VMLINUX" "$T/prebuilt/vmlinux" && cp "$VMLINUZ" "$T/prebuilt/bzImage" &&
	schedfarm kernel build --name sched-core --config tinyconfig \
		--base "$T" >base.out 2>base.err || { cat base.out base.err; false; } &&
	guest_image "$G" "/lib/modules/$REL" &&
	vm_host_add vm "$PORT" --sockets 2 --cores 2 --threads 1 \
		--numa-nodes 2 --memory-mb 1024 \
		--boot-config "{\"initrd\": \"$G/guest.cpio.gz\"}" >/dev/null &&
	q "CREATE FUNCTION t8011_value() RETURNS trigger AS \$\$
	   BEGIN
	     IF NEW.metric = '\''round_trip_us'\'' THEN
	       NEW.value := CASE WHEN (SELECT k.name FROM runs r
	         JOIN kernels k ON k.id = r.kernel_id WHERE r.id = NEW.run_id)
	         = '\''sched-core'\'' THEN 100 ELSE 50 END + NEW.run_id % 3;
	     END IF;
	     RETURN NEW;
	   END \$\$ LANGUAGE plpgsql;
	   CREATE TRIGGER t8011 BEFORE INSERT ON results FOR EACH ROW
	     EXECUTE FUNCTION t8011_value();"
'

test_expect_success 'the base kernel runs its three boots on the host' '
	schedfarm run pp.yaml --host vm --kernel sched-core >run0 2>&1 ||
		{ cat run0; q "SELECT id, outcome, reason, right(console_log, 3000) FROM boots"; false; } &&
	test "$(q "SELECT count(*) FROM boots WHERE outcome = '\''ready'\''")" = 3
'

test_expect_success 'the archive: the series, a reply, a pull, a drivers patch, a QP patch' '
	inbox_init &&
	for f in 01-cover 02-patch1 03-patch2 04-patch3 05-reply 06-pull \
		07-drivers 08-qp; do deliver "$D/$f.eml" || exit 1; done &&
	schedfarm list add sched --inbox "$INBOX" --path kernel/sched/ \
		--path "include/linux/sched*" --path include/linux/sched/ \
		--base-map "kernel/sched/*=sched-core" --plan pp.yaml --host vm \
		--mail-improvements --address sched@example.org >/dev/null
'

test_expect_success 'serve, the host held: exactly the series and the QP patch are queued' '
	schedfarm host set vm --health maintenance >/dev/null &&
	serve_start serve.log --poll-lists 1 --jobs 1 &&
	echo $SERVE >serve.pid &&
	wait_for "grep -q \"list sched: read 8\" serve.log" 60 &&
	cat serve.log &&
	grep_or_fail "list sched: read 8: 5 patches, 2 series complete" serve.log &&
	schedfarm list show sched >show && cat show &&
	grep_re "^series	1	queued	v1	3/3	sched/fair: tidy the wakeup path	sched-core	path map	PLM#1" show &&
	grep_re "^series	2	filtered" show &&
	grep_re "^series	3	queued	v1	1/1	sched/core: fix the r.*PLM#2" show &&
	test "$(grep -c "	queued	" show)" = 2 &&
	schedfarm queue >q && cat q && test "$(grep -c queued q)" = 2
'

test_expect_success 'v2 delivered: it is queued and cancels v1'"'"'s queued job' '
	for f in 14-v2-cover 15-v2-patch1 16-v2-patch2 17-v2-patch3; do
		deliver "$D/$f.eml" || exit 1; done &&
	wait_for "schedfarm list show sched | grep -q \"^series	4	queued	v2\"" 60 0.5 &&
	schedfarm list show sched >showv && cat showv &&
	grep_re "^series	1	superseded	v1	3/3	.*superseded by v2 \\(series 4\\)" showv &&
	grep_re "^series	4	queued	v2	3/3	sched/fair: tidy the wakeup path	sched-core	path map	PLM#3" showv &&
	test "$(q "SELECT string_agg(state, '\'' '\'') FROM jobs WHERE patch_id = 1")" = cancelled &&
	schedfarm queue >q && cat q && test "$(grep -c queued q)" = 2
'

test_expect_success 'the host released: both built in the sandbox, booted, run and answered' '
	start=$(date +%s) &&
	schedfarm host set vm --health good >/dev/null &&
	wait_for "answered 2 && answered 3" 900 2;
	say "host released to both answered: $(($(date +%s) - start)) s" &&
	schedfarm patch show 2 --json >p2 && schedfarm patch show 3 --json >p3 &&
	jq -c "[.answer.state, .answer.verdict, [.jobs[] | [.side, .boots, .state]]]" p2 p3 &&
	jq -e ".answer.verdict == \"improvement\"" p2 &&
	jq -e ".answer.verdict == \"improvement\"" p3 &&
	jq -e ".answer.metrics[0].n_base == 3 and .answer.metrics[0].n_new == 3" p3 &&
	test "$(q "SELECT count(*) FROM jobs WHERE patch_id = 1 AND state <> '\''cancelled'\''")" = 0
'

test_expect_success 'each series was built in the sandbox on the stand-in tree, its patches applied' '
	for plm in 2 3; do
		k=$(q "SELECT k.name FROM kernels k JOIN jobs j ON j.kernel_id = k.id
		       WHERE j.patch_id = $plm AND k.name <> '\''sched-core'\'' LIMIT 1") &&
		test "$(q "SELECT build_mode FROM kernels WHERE name = '\''$k'\''")" = incremental &&
		schedfarm kernel show --log "$k" >log$plm &&
		grep_or_fail "builds on a layer over the base" log$plm &&
		grep_or_fail "LD      vmlinux (uid $(id -u schedfarm))" log$plm ||
			return 1
	done &&
	img=$(image_of 2) && grep -a "int x" "$img" >qp.src &&
	grep_or_fail "int x = 2;" qp.src &&
	img=$(image_of 3) && grep -a "/\\*" "$img" >v2.src && cat v2.src &&
	grep_or_fail "/* new 1, v2 */" v2.src &&
	grep_or_fail "/* new 2, v2 */" v2.src &&
	grep_or_fail "/* new 3, v2 */" v2.src &&
	test "$(q "SELECT count(*) FROM boots WHERE outcome = '\''ready'\''")" = 9
'

test_expect_success 'the replies reach the SMTP server on the threads' '
	wait_for "test \$(replies) -ge 2" 60 0.5 &&
	test "$(replies)" = 2 &&
	reply_to "<s2-cover@example.org>" r2 && cat r2 &&
	test "$(subject_of r2)" = "Re: [PATCH v2 0/3] sched/fair: tidy the wakeup path" &&
	grep -qx "References: <s1-cover@example.org> <s2-cover@example.org>" r2 &&
	grep -qx "To: Ada Dev <ada@example.org>" r2 &&
	grep -qx "Cc: sched@example.org, Pete Peer <peter@example.org>" r2 &&
	grep_or_fail "improvement" r2 &&
	reply_to "<qp@example.org>" rq && cat rq &&
	test "$(subject_of rq)" = "Re: [PATCH] sched/core: fix the résumé check" &&
	grep -qx "References: <qp@example.org>" rq &&
	grep -q "^To: .*<renee@example.org>\$" rq &&
	grep -qx "Cc: sched@example.org" rq &&
	schedfarm patch show 3 >t3 && mid=$(sed -n "s/^Message-I[Dd]: //p" r2) &&
	grep_or_fail "$mid" t3 &&
	grep_or_fail "base:   sched-core" r2 &&
	grep_or_fail "path map (no usable base-commit:)" r2 &&
	grep_or_fail "base chosen by: path map" t3
'

test_expect_success 'serve stopped and started again: nothing read twice, nothing mailed twice' '
	msgs=$(q "SELECT count(*) FROM list_messages") &&
	pid=$(cat serve.pid) && kill $pid &&
	wait_for "! kill -0 $pid" 30 0.2 &&
	serve_start serve2.log --poll-lists 1 --jobs 1 &&
	wait_for "grep -q \"serve ready\" serve2.log" 30 &&
	sleep 3 &&
	sed "s/<s1-reply@example.org>/<s1-reply2@example.org>/" \
		"$D/05-reply.eml" >reply2.eml && deliver reply2.eml &&
	wait_for "grep -q \"list sched: read 1\" serve2.log" 60 0.5;
	sleep 3; cat serve2.log &&
	for f in "$M"/mail/*.eml; do
		smtp_unfold "$f" | grep -m1 "^Subject: "; done >subjects &&
	cat subjects &&
	test "$(grep -c "list sched: read" serve2.log)" = 1 &&
	grep_or_fail "list sched: read 1: 0 patches" serve2.log &&
	test "$(q "SELECT count(*) FROM list_messages")" = "$((msgs + 1))" &&
	test "$(replies)" = 2 &&
	test -z "$(sort subjects | uniq -d)" &&
	kill $SERVE && wait $SERVE; true
'

test_done
