#!/bin/sh
# t8009: a mailing list followed (issue 34, its intake): a local
# public-inbox v2 archive made with public-inbox-init -V2 and fed with
# public-inbox-mda, the mails of tests/data/lists delivered: a 3-patch
# sched series with its cover letter, a reply without a diff, a [GIT
# PULL], a patch to drivers/ only and a patch whose body is
# quoted-printable.  `list poll` finds exactly the sched series and the
# QP patch, and queues them (through `submit`'s code) on the base its
# path map gives, tried on a base repository; a base-commit: the
# repository lacks falls back to the map and says so, one it has is the
# base, and a series that applies nowhere gets one note and no job; v2
# of the series cancels v1's queued job and is linked to it; a second
# poll reads nothing twice; a mail delivered later is
# the only one the next poll reads, and its series, still open after the
# list's wait, becomes incomplete; a new epoch (git/1.git) is noticed,
# and an unreadable message in it is recorded with its reason; the same
# archive served by public-inbox-httpd on loopback is read over http (as
# a second list: every Message-ID in it is seen before, since one is
# recorded once whatever list it came by); `serve` polls the lists by
# itself; a list added --from-now reads only what comes after it;
# without the sandbox the poll refuses to start and says why.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/inbox.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
for p in public-inbox-init public-inbox-mda git; do
	command -v $p >/dev/null || skip_all "$p not installed (make deps)"
done

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
inbox_env


test_expect_success 'a public-inbox v2 archive with the mails delivered' '
	inbox_init &&
	for f in 01-cover 02-patch1 03-patch2 04-patch3 05-reply 06-pull \
		07-drivers 08-qp; do deliver "$D/$f.eml" || exit 1; done &&
	test "$(git --git-dir="$INBOX/git/0.git" rev-list --count HEAD)" = 8
'

# The base repository: the files the patches touch, on branch sched-core.
BASE=$SCRATCH/base
git init -q "$BASE" &&
mkdir -p "$BASE/kernel/sched" "$BASE/include/linux" &&
echo '/* old 1 */' >"$BASE/kernel/sched/fair.c" &&
echo '/* old 2 */' >"$BASE/include/linux/sched.h" &&
echo '/* old 3 */' >"$BASE/kernel/sched/core.c" &&
echo 'int x = 1;' >"$BASE/kernel/sched/rt.c" &&
git -C "$BASE" add -A &&
git -C "$BASE" -c user.name=t -c user.email=t@example.org commit -q -m base &&
git -C "$BASE" branch -M sched-core || exit 1
BASE_SHA=$(git -C "$BASE" rev-parse HEAD)
cat >pp.yaml <<'EOF2'
name: t8009-pingpong
workload: pipe-pingpong
params:
  round_trips: 3000
iterations: 2
warmup: 0
boots: 1
metrics:
  round_trip_us: {decides: true}
EOF2

test_expect_success 'list add, show; a bad name and a second add are refused' '
	schedfarm host add vm --kind libvirt --libvirt-uri test:///default \
		--no-contact --cpus 2 --memory-mb 1024 >/dev/null &&
	schedfarm list add sched --inbox "$INBOX" --path kernel/sched/ \
		--path "include/linux/sched*" --path include/linux/sched/ \
		--base-map "kernel/sched/*=sched-core" --base-repo "$BASE" \
		--plan pp.yaml --series-wait 3s >add &&
	grep_or_fail "list sched added" add &&
	! schedfarm list add sched --inbox "$INBOX" 2>err &&
	grep_or_fail "exists already" err &&
	! schedfarm list add "-x" --inbox "$INBOX" 2>err &&
	schedfarm list show >lists && test "$(cat lists)" = sched &&
	schedfarm list show sched >show && cat show &&
	grep_or_fail "paths             kernel/sched/ include/linux/sched* include/linux/sched/" show &&
	grep_or_fail "base map          kernel/sched/*=sched-core" show &&
	grep_or_fail "plan              $SCRATCH/pp.yaml" show
'

test_expect_success 'without the sandbox, the poll refuses to start and says why' '
	! SCHEDFARM_BWRAP=/bin/false schedfarm list poll sched >out 2>err &&
	cat err && grep_or_fail "list intake refuses to start" err &&
	grep_or_fail "sandbox" err &&
	test ! -s out
'

test_expect_success 'poll finds exactly the sched series and the QP patch' '
	schedfarm list poll sched >poll1 2>&1; rc=$?; cat poll1 && test $rc = 0 &&
	grep "complete:" poll1 >complete &&
	test "$(wc -l <complete)" = 2 &&
	grep_or_fail "complete: sched/core: three" complete &&
	grep_or_fail "complete: sched/core: fix the r" complete &&
	grep_re "^not-a-patch <s1-cover@example.org> .*the cover letter" poll1 &&
	grep_re "^not-a-patch <s1-reply@example.org> .*: a reply\$" poll1 &&
	grep_re "^not-a-patch <pull@example.org> .*: a pull request" poll1 &&
	grep_re "^patch <drv@example.org> .*: touches no path of the policy \\(drivers/foo/bar.c\\)" poll1 &&
	grep_or_fail "series 2 complete, outside the policy: drivers/foo" poll1 &&
	grep_or_fail "series 1 queued as PLM#1 on sched-core (by path map)" poll1 &&
	grep_or_fail "series 3 queued as PLM#2 on sched-core (by path map)" poll1 &&
	schedfarm queue >q && cat q && test "$(grep -c queued q)" = 2 &&
	schedfarm patch show 1 >p1 && cat p1 &&
	grep_or_fail "sched/fair: tidy the wakeup path (list sched)" p1 &&
	grep_or_fail "read 8: 5 patches, 3 not patches, 0 unreadable, 0 seen before; 2 series complete, 1 outside the policy" poll1 &&
	schedfarm list show sched >show && cat show &&
	grep_or_fail "series	1	queued	v1	3/3	sched/fair: tidy the wakeup path	sched-core	path map	PLM#1" show &&
	grep_or_fail "series	3	queued	v1	1/1	sched/core: fix the r" show
'

test_expect_success 'a second poll reads nothing twice' '
	schedfarm list poll sched >poll2 2>&1; cat poll2 &&
	grep_re "^read 0: 0 patches" poll2 &&
	test "$(wc -l <poll2)" = 1 &&
	schedfarm list show sched >show2 && cmp show show2
'

test_expect_success 'a mail delivered later is all the next poll reads' '
	deliver "$D/09-attached.eml" &&
	schedfarm list poll sched >poll3 2>&1; cat poll3 &&
	grep_or_fail "patch <attached@example.org> [RFC PATCH sched/core v3 1/2]" poll3 &&
	grep_re "^read 1: 1 patches, 0 not patches" poll3 &&
	schedfarm list show sched >show3 &&
	grep_or_fail "series	4	open	v3	1/2	sched/deadline: attached" show3
'

test_expect_success 'a series still open after the wait is incomplete and not run' '
	wait_for "schedfarm list poll sched >>pollw4 2>&1 && grep -q \"^series 4 incomplete\" pollw4" 20 &&
	cat pollw4 &&
	grep_or_fail "series 4 incomplete after 3 s (1/2 arrived), not run: sched/deadline: attached" pollw4 &&
	test "$(grep -c "^series " pollw4)" = 1 &&
	schedfarm list show sched >show4 &&
	grep_or_fail "series	4	incomplete	v3	1/2	sched/deadline: attached				1 of 2 patches arrived within 3 s: not run" show4
'

test_expect_success 'base-commit: kept when the repository has it, else the map, else one note' '
	deliver "$D/11-base-missing.eml" &&
	sed "s/BASE_COMMIT/$BASE_SHA/" "$D/12-base-known.eml" >known.eml &&
	deliver known.eml && deliver "$D/13-nowhere.eml" &&
	schedfarm list poll sched >pollb 2>&1; cat pollb &&
	grep_re "^series 5 queued as PLM#3 on sched-core \\(by path map\\)" pollb &&
	grep_or_fail "series 5: base by path map (base-commit 0123456789abcdef0123456789abcdef01234567: not in $BASE)" pollb &&
	grep_or_fail "series 6 queued as PLM#4 on $BASE_SHA (by base-commit)" pollb &&
	grep_re "^series 7: applies to no base: base-commit 0123456789abcdef0123456789abcdef01234567: not in [^;]*; map sched-core: does not apply \\(.*kernel/sched/idle.c" pollb &&
	test "$(grep -c "^series 7: " pollb)" = 1 &&
	schedfarm queue >q && test "$(grep -c queued q)" = 4 &&
	schedfarm list show sched >showb &&
	grep_re "^series	7	no-base	.*applies to no base" showb
'

test_expect_success 'v2 of the series cancels the queued jobs of v1 and is linked to it' '
	schedfarm queue >q0 && grep_re "^1 +queued .*PLM#1 " q0 &&
	for f in 14-v2-cover 15-v2-patch1 16-v2-patch2 17-v2-patch3; do
		deliver "$D/$f.eml" || exit 1; done &&
	schedfarm list poll sched >pollv 2>&1; cat pollv &&
	grep_or_fail "series 8 queued as PLM#5 on sched-core (by path map)" pollv &&
	grep_or_fail "series 1 superseded by series 8: cancelled STP#1" pollv &&
	test "$(grep -c superseded pollv)" = 1 &&
	schedfarm job show 1 >j1 && cat j1 && grep_or_fail cancelled j1 &&
	schedfarm list show sched >showv &&
	grep_re "^series	1	superseded	v1	3/3	.*superseded by v2 \\(series 8\\)" showv &&
	grep_re "^series	8	queued	v2	3/3	sched/fair: tidy the wakeup path	sched-core	path map	PLM#5" showv
'

test_expect_success 'the two versions name each other in patch show and on the patch pages' '
	schedfarm patch show 1 >p1 && cat p1 &&
	grep_or_fail "superseded by v2: PLM#5" p1 &&
	! grep -q "^supersedes" p1 &&
	schedfarm patch show 5 >p5 &&
	grep_or_fail "supersedes v1: PLM#1" p5 &&
	! grep -q "^superseded by" p5 &&
	schedfarm report --out "$SCRATCH/www" >rep 2>&1 || { cat rep; false; } &&
	grep_or_fail "href=\"patch-5.html\"" "$SCRATCH/www/patch-1.html" &&
	grep_or_fail "v2, PLM#5" "$SCRATCH/www/patch-1.html" &&
	grep_or_fail "href=\"patch-1.html\"" "$SCRATCH/www/patch-5.html" &&
	grep_or_fail "v1, PLM#1" "$SCRATCH/www/patch-5.html" &&
	grep_or_fail "base chosen by" "$SCRATCH/www/patch-5.html" &&
	grep_or_fail "base chosen by: path map" p5
'

test_expect_success 'a new epoch is noticed; an unreadable mail in it is recorded with why' '
	commit_epoch 1 "$D/10-no-message-id.eml" &&
	sed "s/<qp@example.org>/<qp-again@example.org>/" "$D/08-qp.eml" >qp2.eml &&
	commit_epoch 1 qp2.eml &&
	commit_epoch 1 "$D/08-qp.eml" &&
	schedfarm list poll sched >poll4 2>&1; cat poll4 &&
	grep_re "^unreadable [0-9a-f]{40}: no Message-ID" poll4 &&
	grep_re "^patch <qp-again@example.org>" poll4 &&
	grep_re "^seen before <qp@example.org>" poll4 &&
	grep_re "^read 3: 1 patches, 0 not patches, 1 unreadable, 1 seen before" poll4 &&
	schedfarm list poll sched >poll5 2>&1 &&
	grep_re "^read 0:" poll5
'

test_expect_success 'the archive served over http by public-inbox-httpd is read the same way' '
	command -v public-inbox-httpd >/dev/null || {
		say "public-inbox-httpd missing: http not tried"; exit 0; }
	port=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	{ public-inbox-httpd -W0 -l "127.0.0.1:$port" >httpd.out 2>&1 & } &&
	echo "kill $! 2>/dev/null" >>"$_ATEXIT" &&
	wait_for "git ls-remote http://127.0.0.1:$port/sched/git/0.git >/dev/null 2>&1" 30 &&
	schedfarm list add web --inbox "http://127.0.0.1:$port/sched/" >/dev/null &&
	schedfarm list poll web >pollw 2>&1; cat pollw &&
	grep_re "^read 19: 0 patches, 0 not patches, 1 unreadable, 18 seen before" pollw &&
	test -d "$SCHEDFARM_HOME/lists/web/git/1.git"
'

test_expect_success 'serve polls the lists by itself' '
	schedfarm host set vm --health maintenance >/dev/null &&
	sed "s/<qp@example.org>/<qp-serve@example.org>/" "$D/08-qp.eml" >qp3.eml &&
	deliver qp3.eml &&
	serve_start serve.log --poll-lists 1 --jobs 1 &&
	wait_for "grep -q \"serve ready\" serve.log" 30 &&
	wait_for "schedfarm list show sched | grep -q \"^series	.*queued	v1	1/1	.*PLM#7\"" 60 &&
	wait_for "grep -q \"list sched: read 1: 1 patches, 1 series complete\" serve.log" 10 &&
	kill $SERVE && wait $SERVE; cat serve.log &&
	schedfarm list poll sched >polls && grep_re "^read 0:" polls
'

test_expect_success 'a list added --from-now starts at the archive'\''s end' '
	schedfarm list add late --inbox "$INBOX" --from-now >/dev/null &&
	schedfarm list show late >showl &&
	grep_or_fail "first poll        from the archive'\''s end" showl &&
	schedfarm list poll late >polll 2>&1; cat polll &&
	grep_re "^epoch 0: starting after [0-9a-f]{40}\$" polll &&
	grep_re "^epoch 1: starting after [0-9a-f]{40}\$" polll &&
	grep_re "^read 0:" polll &&
	sed "s/<qp@example.org>/<qp-late@example.org>/" "$D/08-qp.eml" >qp4.eml &&
	deliver qp4.eml &&
	schedfarm list poll late >polll2 2>&1; cat polll2 &&
	grep_re "^patch <qp-late@example.org>" polll2 &&
	grep_re "^read 1: 1 patches" polll2
'

test_expect_success 'an inbox that is no archive: the poll fails and says why' '
	mkdir notinbox &&
	schedfarm list add none --inbox notinbox >/dev/null &&
	! schedfarm list poll none >pn 2>&1 && cat pn &&
	grep_or_fail "has no epoch 0 (git/0.git): not a public-inbox v2 archive, or not reachable (git exited with status" pn &&
	schedfarm list rm none >/dev/null
'

# showl FIELD VALUE: a line of `list show NAME` as it prints it.
showl() {
	printf "%-18s%s" "$1" "$2"
}

test_expect_success 'list set changes the policy in place; what was read is not read again' '
	schedfarm list poll sched >/dev/null 2>&1 &&
	schedfarm list show sched >before &&
	schedfarm list set sched --path kernel/sched/fair.c --prefix sched/core \
		--dry-run-mbox "$SCRATCH/set.mbox" --mail-improvements \
		--mails-per-hour 3 --no-base-map --address sched@example.org \
		--reply-cc list --series-wait 2h >set && cat set &&
	grep_or_fail "list sched: policy changed (9 options); what was read and mailed stays" set &&
	schedfarm list show sched >after && cat after &&
	grep -Fqx "$(showl paths kernel/sched/fair.c)" after &&
	grep -Fqx "$(showl "subject prefixes" sched/core)" after &&
	grep -Fqx "$(showl "base map" "(none)")" after &&
	grep -Fqx "$(showl delivery "$SCRATCH/set.mbox")" after &&
	grep -Fqx "$(showl mails "regressions and improvements")" after &&
	grep -Fqx "$(showl "rate limit" "3 an hour")" after &&
	grep -Fqx "$(showl address sched@example.org)" after &&
	grep -Fqx "$(showl "reply cc" list)" after &&
	grep -Fqx "$(showl "series wait" "7200 s")" after &&
	grep -Fqx "$(showl plan "$SCRATCH/pp.yaml")" after &&
	grep -Fqx "$(showl inbox "$INBOX")" after &&
	grep "^series[[:space:]][0-9]" before >sb && grep "^series[[:space:]][0-9]" after >sa && test -s sa && cmp sb sa &&
	schedfarm list poll sched >pset 2>&1 && cat pset && grep_re "^read 0: 0 patches" pset &&
	schedfarm list set sched --no-dry-run --no-prefixes --no-mail-improvements \
		--reply-cc all --no-address --path kernel/sched/ --path "include/linux/sched*" >set2 &&
	grep_or_fail "(7 options)" set2 &&
	schedfarm list show sched >after2 &&
	grep -Fqx "$(showl delivery SMTP)" after2 &&
	grep -Fqx "$(showl "subject prefixes" "(any)")" after2 &&
	grep -Fqx "$(showl mails regressions)" after2 &&
	grep -Fqx "$(showl address "(not known)")" after2 &&
	grep -Fqx "$(showl paths "kernel/sched/ include/linux/sched*")" after2
'

test_expect_success 'list set: what it cannot change, or a bad value, changes nothing' '
	schedfarm list show sched >s0 &&
	! schedfarm list set sched --inbox /tmp 2>err && grep_or_fail "cannot change" err &&
	! schedfarm list set sched --from-now 2>err && grep_or_fail "for list add" err &&
	! schedfarm list set sched 2>err && grep_or_fail "nothing to change" err &&
	! schedfarm list set sched --reply-cc list 2>err &&
	grep_or_fail "reply-cc list needs --address" err &&
	! schedfarm list set sched --mails-per-hour 99999 2>err &&
	grep_or_fail "mails-per-hour" err &&
	! schedfarm list set sched --base-map nomap 2>err &&
	grep_or_fail "is not GLOB=BASE" err &&
	! schedfarm list set nosuch --no-plan 2>err && grep_or_fail "no list named" err &&
	schedfarm list show sched >s1 && cmp s0 s1
'

test_expect_success 'list rm forgets the list and what was read of it' '
	schedfarm list rm web >rm && grep_or_fail "list web removed" rm &&
	! schedfarm list show web 2>err && grep_or_fail "no list named" err &&
	! schedfarm list rm web 2>err
'

test_done
