#!/bin/sh
# t8010: the farm's reply on a list's thread (issue 34, its second half).
# A local public-inbox v2 archive gets a 3-patch sched series with its
# cover letter and a quoted-printable patch; `list poll` queues both on
# the `local` host with a short plan (as t8009 queues them).  The
# regression is made cheaply: a trigger on `results` gives the runs of
# PLM#1 (and PLM#3) twice the round-trip time of the base's, and the
# others the base's own numbers, so PLM#1 regresses and PLM#2 does not
# change.  Then: the reply reaches the test's SMTP server (aiosmtpd on
# loopback, tests/lib/smtp.sh) with Subject "Re: " and the cover's,
# In-Reply-To and References to the cover, To the author, Cc the
# original recipients, lines <= 80 columns, its Message-ID the one `patch
# show` names; the no-change answer sends nothing; an answer computed
# again, and a restart of `serve`, mail nothing twice; a reply held by a
# bisection answers the patch the bisection names guilty; a list with
# --dry-run-mbox writes the reply into that mbox (mboxrd) and sends
# nothing by SMTP, copies only the list's address (--reply-cc list),
# and its rate limit (--mails-per-hour, 0 here for a
# while) holds the reply back until it allows one.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/smtp.sh"
. "$TOP/tests/lib/inbox.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
for p in public-inbox-init public-inbox-mda git jq; do
	command -v $p >/dev/null || skip_all "$p not installed (make deps)"
done
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"
smtp_prereqs

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
smtp_up "$SCRATCH/smtp" >smtp.out 2>&1 || { cat smtp.out; exit 1; }
M=$SCRATCH/smtp
smtp_config "$SCRATCH/farm.conf" "$SCRATCH"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf
inbox_env

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -qAt -c "$1"
}
# The replies the SMTP server got (their subject starts with "Re: ").
replies() {
	grep -l "^Subject: Re: " "$M"/mail/*.eml 2>/dev/null | wc -l
}

# A `local` host runs its own kernel, so list intake does not queue a
# series there (listqueue.c says why): the test submits the series' mails
# with --kernel, as one would by hand, and links the PLM# to the series
# as intake does when it queues one (t8009 checks that part).
queue_as() {
	_series=$1 _kernel=$2
	shift 2
	schedfarm submit "$@" --base sched-core --kernel "$_kernel" \
		--host here --plan pp.yaml --json >sub.$_series &&
	_plm=$(jq -r .patch sub.$_series) &&
	q "UPDATE list_series SET patch_id = $_plm, state = 'queued' WHERE id = $_series" &&
	echo "series $_series: PLM#$_plm"
}

cat >pp.yaml <<'EOF2'
name: pp
workload: pipe-pingpong
params:
  round_trips: 2000
iterations: 2
warmup: 0
boots: 3
metrics:
  round_trip_us: {decides: true}
EOF2

test_expect_success 'an archive with a sched series and a QP patch; a trigger makes the numbers' '
	inbox_init &&
	for f in 01-cover 02-patch1 03-patch2 04-patch3 08-qp; do
		deliver "$D/$f.eml" || exit 1; done &&
	schedfarm db migrate >/dev/null 2>&1;
	q "CREATE FUNCTION t8010_value() RETURNS trigger AS \$\$
	   BEGIN
	     IF NEW.metric = '\''round_trip_us'\'' THEN
	       NEW.value := NEW.iteration + CASE WHEN (SELECT j.patch_id
	         FROM runs r JOIN jobs j ON j.id = r.job_id
	         WHERE r.id = NEW.run_id) IN (1, 3) THEN 200 ELSE 100 END;
	     END IF;
	     RETURN NEW;
	   END \$\$ LANGUAGE plpgsql;
	   CREATE TRIGGER t8010 BEFORE INSERT ON results FOR EACH ROW
	     EXECUTE FUNCTION t8010_value();"
'

test_expect_success 'the base ran; the list queues the series and the QP patch' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm run pp.yaml --host here --kernel sched-core >run0 2>&1 ||
		{ cat run0; false; } &&
	schedfarm list add sched --inbox "$INBOX" --path kernel/sched/ \
		--base-map "kernel/sched/*=sched-core" >/dev/null &&
	schedfarm list poll sched >poll 2>&1; cat poll &&
	grep_or_fail "series 1: base sched-core (by path map); no plan" poll &&
	grep_or_fail "series 2: base sched-core (by path map); no plan" poll &&
	queue_as 1 v-series "$D/02-patch1.eml" "$D/03-patch2.eml" \
		"$D/04-patch3.eml" &&
	queue_as 2 v-qp "$D/08-qp.eml"
'

test_expect_success 'answered: PLM#1 a regression, PLM#2 no change' '
	schedfarm run >run1 2>&1 || { cat run1; false; } &&
	schedfarm patch show 1 --json >p1 && schedfarm patch show 2 --json >p2 &&
	jq -e ".answer.verdict == \"regression\"" p1 &&
	jq -e ".answer.verdict == \"no-change\"" p2
'

test_expect_success 'the reply reaches the SMTP server, on the thread' '
	wait_for "test \$(replies) -ge 1" 20 &&
	test "$(replies)" = 1 &&
	f=$(grep -l "^Subject: Re: " "$M"/mail/*.eml) &&
	smtp_unfold "$f" >reply && cat reply &&
	grep -qx "Subject: Re: \\[PATCH 0/3\\] sched/fair: tidy the wakeup path" reply &&
	grep -qx "In-Reply-To: <s1-cover@example.org>" reply &&
	grep -qx "References: <s1-cover@example.org>" reply &&
	grep -qx "To: Ada Dev <ada@example.org>" reply &&
	grep -qx "Cc: sched@example.org, Pete Peer <peter@example.org>" reply &&
	grep -q "^Content-Type: text/plain" reply &&
	grep -qx "Reported-by: schedfarm test <farm@example.org>" reply &&
	grep -q "round_trip_us" reply &&
	grep -q "regression" reply &&
	grep -q "^  schedfarm run pp.yaml --host here --kernel sched-core" reply &&
	! awk "length > 80" reply | grep . &&
	mid=$(sed -n "s/^Message-ID: <\\(.*\\)>\$/\\1/p" reply) &&
	test -n "$mid" &&
	schedfarm patch show 1 >show1 && cat show1 &&
	grep_or_fail "$mid" show1 &&
	q "SELECT state FROM list_replies" >st && test "$(cat st)" = sent
'

test_expect_success 'patch show, patch list and the page say where the patch came from' '
	mid=$(q "SELECT message_id FROM list_replies") &&
	grep_or_fail "from the list sched (v1): <s1-cover@example.org>" show1 &&
	grep_or_fail "  $INBOX/s1-cover@example.org/" show1 &&
	grep_or_fail "reply <$mid>: regression, sent 20" show1 &&
	schedfarm patch show 2 >show2 &&
	grep_or_fail "from the list sched (v1): <qp@example.org>" show2 &&
	grep_or_fail "reply: none sent" show2 &&
	schedfarm patch show 1 --json >j1 &&
	jq -e ".origin.list == \"sched\" and .origin.message_id == \"s1-cover@example.org\" and .origin.link == \"$INBOX/s1-cover@example.org/\" and .origin.replies[0].message_id == \"$mid\" and .origin.replies[0].state == \"sent\"" j1 &&
	jq -e ".answer.verdict == \"regression\"" j1 &&
	schedfarm patch list >pl && cat pl &&
	grep_or_fail "PLM#1  sched <s1-cover@example.org>  reply: regression sent" pl &&
	grep_or_fail "PLM#2  sched <qp@example.org>  reply: none" pl &&
	grep_or_fail "From the list" "$SCRATCH/www/patch-1.html" &&
	grep_or_fail "href=\"$INBOX/s1-cover@example.org/\"" "$SCRATCH/www/patch-1.html" &&
	grep_or_fail "$mid" "$SCRATCH/www/patch-1.html"
'

test_expect_success 'an answer computed again, and a restart of serve, mail nothing twice' '
	n=$(smtp_count "$M") &&
	q "UPDATE patches SET answer_state = '\''pending'\'' WHERE id IN (1, 2)" &&
	serve_start serve.log --poll-lists 0 &&
	wait_for "grep -q \"serve ready\" serve.log" 30 &&
	wait_for "test \"\$(q \"SELECT count(*) FROM patches WHERE id IN (1, 2) AND answer_state = '\''answered'\''\")\" = 2" 60 &&
	kill $SERVE && wait $SERVE;
	serve_start serve2.log --poll-lists 0 &&
	wait_for "grep -q \"serve ready\" serve2.log" 30 &&
	sleep 3 && kill $SERVE && wait $SERVE;
	cat serve.log serve2.log &&
	test "$(replies)" = 1 &&
	test "$(smtp_count "$M")" = "$n" &&
	test "$(q "SELECT count(*) FROM list_replies")" = 1
'

# A reply held by a bisection (listreply.c sets bisection_id when the
# answer starts one; a local host cannot build the points, so the held
# row and its ended bisection are written here): once the bisection
# names patch 2 of 3, the reply answers that patch, not the cover.
test_expect_success 'a reply held by a bisection goes to the patch it names guilty' '
	n=$(replies) &&
	b=$(q "INSERT INTO bisections (patch_id, host_id, plan_id, metric,
		n_points, max_boots, state, culprit) SELECT 1, host_id,
		plan_id, '\''round_trip_us'\'', 4, 1, '\''running'\'', NULL
		FROM jobs WHERE patch_id = 1 LIMIT 1 RETURNING id") &&
	q "INSERT INTO list_replies (series_id, patch_id, verdict, message_id,
		in_reply_to, refs, sender, to_addrs, cc_addrs, subject, body,
		delivery, bisection_id, next_attempt_at)
		SELECT series_id, patch_id, '\''held'\'', '\''held.'\'' || message_id,
		in_reply_to, refs, sender, to_addrs, cc_addrs, subject,
		'\''the body'\'', delivery, $b, NULL FROM list_replies
		WHERE series_id = 1" &&
	schedfarm run >runb1 2>&1 || { cat runb1; false; } &&
	test "$(replies)" = "$n" &&
	q "UPDATE bisections SET state = '\''done'\'', culprit = 2 WHERE id = $b" &&
	schedfarm run >runb2 2>&1 || { cat runb2; false; } &&
	wait_for "test \$(replies) -gt $n" 20 &&
	f=$(grep -l "^Message-ID: <held\\." "$M"/mail/*.eml) &&
	smtp_unfold "$f" >held && cat held &&
	grep -qx "Subject: Re: \\[PATCH 2/3\\] sched: two" held &&
	grep -qx "In-Reply-To: <s1-p2@example.org>" held &&
	grep -qx "References: <s1-cover@example.org> <s1-p2@example.org>" held &&
	grep -q "^The bisection of the series (#$b) found this patch, 2 of 3,\$" held &&
	grep -qx "the body" held
'

test_expect_success 'a list with --dry-run-mbox writes the reply into the mbox, when its rate limit allows' '
	! schedfarm list add dry --inbox "$INBOX" --reply-cc list 2>err &&
	grep_or_fail "reply-cc list needs --address" err &&
	schedfarm list add dry --inbox "$INBOX" --from-now --path kernel/sched/ \
		--base-map "kernel/sched/*=sched-core" \
		--address "Sched List <sched@example.org>" --reply-cc list \
		--dry-run-mbox "$SCRATCH/dry.mbox" >/dev/null &&
	schedfarm list show dry >showd &&
	grep_or_fail "reply cc          list" showd &&
	schedfarm list poll dry >pd0 2>&1 &&
	sed "s/<qp@example.org>/<qp-dry@example.org>/" "$D/08-qp.eml" >dry.eml &&
	deliver dry.eml &&
	schedfarm list poll dry >pd 2>&1; cat pd &&
	grep_or_fail "series 3: base sched-core" pd &&
	queue_as 3 v-dry dry.eml | grep -q "PLM#3" &&
	n=$(smtp_count "$M") && nr=$(replies) &&
	schedfarm list set dry --mails-per-hour 0 >/dev/null &&
	schedfarm run >run3 2>&1 || { cat run3; false; } &&
	schedfarm patch show 3 --json >j3 &&
	jq -e ".answer.verdict == \"regression\"" j3 &&
	test ! -e "$SCRATCH/dry.mbox" &&
	test "$(q "SELECT state FROM list_replies WHERE series_id = 3")" = pending &&
	schedfarm list set dry --mails-per-hour 10 >/dev/null &&
	schedfarm run >run4 2>&1 || { cat run4; false; } &&
	test -s "$SCRATCH/dry.mbox" &&
	cat "$SCRATCH/dry.mbox" &&
	test "$(grep -c "^From " "$SCRATCH/dry.mbox")" = 1 &&
	grep -q "^In-Reply-To: <qp-dry@example.org>" "$SCRATCH/dry.mbox" &&
	grep -qx "Cc: Sched List <sched@example.org>" "$SCRATCH/dry.mbox" &&
	grep -q "^Subject: " "$SCRATCH/dry.mbox" &&
	! grep -q "$(printf "\\r")" "$SCRATCH/dry.mbox" &&
	test "$(smtp_count "$M")" -le "$((n + 1))" &&
	test "$(replies)" = "$nr"
'

test_expect_success 'the dry-run list goes live (list set --no-dry-run): what went into the mbox is not mailed again' '
	cp "$SCRATCH/dry.mbox" mbox.before &&
	n=$(smtp_count "$M") && nr=$(replies) &&
	schedfarm list set dry --no-dry-run >live && grep_or_fail "policy changed" live &&
	schedfarm list show dry >showl && grep_or_fail "delivery          SMTP" showl &&
	q "UPDATE patches SET answer_state = '\''pending'\'' WHERE id = 3" &&
	schedfarm run >run5 2>&1 || { cat run5; false; } &&
	test "$(q "SELECT answer_state FROM patches WHERE id = 3")" = answered &&
	cmp mbox.before "$SCRATCH/dry.mbox" &&
	test "$(replies)" = "$nr" && test "$(smtp_count "$M")" = "$n" &&
	test "$(q "SELECT count(*) FROM list_replies WHERE series_id = 3")" = 1
'

test_done
