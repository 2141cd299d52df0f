#!/bin/sh
# t8002: the answer of a submission on a host that cannot change kernel
# (`local`), and its mail through a real SMTP server on loopback
# (python3-aiosmtpd, STARTTLS required, a login) that first refuses.
#
# The submission waits for base results and says the exact command that
# makes them; running that command answers it (verdicts stored, the page
# written into the configured report folder).  The SMTP server refuses:
# the mail is `failed` with the server's reason and a next try, and
# nothing else is lost; once it accepts, the next pass sends it, once --
# a further `run` sends nothing.  Then a `serve` killed with SIGKILL while
# a submission's job runs: a new `serve` takes the job back when its lease
# expires and answers the submission, with exactly one more mail.
# `schedfarm config` shows the settings and never the password.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/smtp.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v setsid >/dev/null || skip_all "setsid not installed (util-linux)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"
smtp_prereqs

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
smtp_up "$SCRATCH/smtp" >smtp.out 2>&1 || { cat smtp.out; exit 1; }
smtp_config "$SCRATCH/farm.conf" "$SCRATCH"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf
M=$SCRATCH/smtp

cat >"$SCRATCH/fix.patch" <<'EOF'
From: Dev Eloper <dev@example.org>
Subject: [PATCH] sched/fair: a harmless change

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-a
+b
EOF
cat >"$SCRATCH/pp.yaml" <<'EOF'
name: t8002-pingpong
workload: pipe-pingpong
params:
  round_trips: 3000
iterations: 2
warmup: 0
boots: 3
metrics:
  round_trip_us: {decides: true}
EOF
cat >"$SCRATCH/slow.yaml" <<'EOF'
name: t8002-slow
workload: memchunk
params:
  short_threads: 1
  long_threads: 1
  duration: 3s
iterations: 2
warmup: 0
boots: 2
EOF

test_expect_success 'config shows the settings from the file, never the password' '
	schedfarm config >cfg &&
	grep_or_fail "mail.smtp = smtp://127.0.0.1:$SMTP_PORT" cfg &&
	grep_or_fail "mail.starttls = required" cfg &&
	grep_or_fail "mail.to = sched-devel@example.org" cfg &&
	grep_or_fail "report.base_url = http://farm.example/reports/" cfg &&
	grep_or_fail "mail.retry_min = 1s" cfg &&
	grep_or_fail "bisect.auto = yes  # default" cfg &&
	grep_or_fail "mail.password = (from password_file)" cfg &&
	! grep -q test-smtp-secret cfg &&
	schedfarm config --json >cfg.json &&
	jq -e ".\"mail.user\" == \"farm\" and .file_read == true" cfg.json &&
	! grep -q test-smtp-secret cfg.json &&
	printf "[mail]\nsmtp = http://x\n" >bad.conf && chmod 600 bad.conf &&
	! schedfarm --config bad.conf config 2>err &&
	grep_or_fail "bad.conf:2: error: mail.smtp" err
'

test_expect_success 'a local host; a submission there waits for base results' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm submit fix.patch --base v-base --kernel v-fix --host here \
		--plan pp.yaml >sub &&
	cat sub &&
	grep_or_fail "PLM#1: 1 patch on v-base" sub &&
	grep_or_fail "the answer: '\''schedfarm patch show 1'\''" sub &&
	schedfarm run >run1 2>&1 && cat run1 &&
	grep_or_fail "PLM#1 waits: no results of the base kernel v-base on here" run1 &&
	schedfarm patch show 1 --json >p1 &&
	jq -e ".answer.state == \"waiting\" and .mail_to == \"Dev Eloper <dev@example.org>\"" p1 &&
	jq -r .answer.note p1 >note && cat note &&
	grep_or_fail "boot here into v-base, then run: schedfarm run $SCHEDFARM_HOME/plans/t8002-pingpong-" note &&
	test "$(smtp_count "$M")" = 0
'

test_expect_success 'the command the answer names makes the base results and the answer' '
	touch "$M/refuse" &&
	cmd=$(sed -n "s/.*then run: \\(schedfarm run .*\\)\$/\\1/p" note) &&
	test -n "$cmd" && say "running: $cmd" &&
	eval "set -- ${cmd#schedfarm }" &&
	$SCHEDFARM_BIN "$@" >run2 2>&1; cat run2 &&
	grep_or_fail "PLM#1 answered:" run2 &&
	schedfarm patch show 1 --json >p1 &&
	jq -e ".answer.state == \"answered\" and (.answer.metrics | length) == 1" p1 &&
	jq -e ".answer.metrics[] | select(.metric == \"round_trip_us\") | .n_base == 3 and .n_new == 3 and (.verdict | length) > 0" p1 &&
	jq -e ".page == \"http://farm.example/reports/patch-1.html\"" p1 &&
	test -s www/patch-1.html && grep -q "PLM 1" www/patch-1.html
'

test_expect_success 'a refusing SMTP server: the mail is failed with its reason, nothing else lost' '
	jq -e ".mails | length == 1" p1 &&
	jq -e ".mails[0].state == \"failed\" and .mails[0].attempts == 1 and .mails[0].next_attempt_at != null" p1 &&
	jq -r ".mails[0].last_error" p1 >reason && cat reason &&
	grep_or_fail "550" reason &&
	test "$(smtp_count "$M")" = 0 &&
	jq -e ".answer.state == \"answered\" and .answer.verdict != null" p1 &&
	schedfarm patch show 1 >text && cat text &&
	grep_or_fail "answer    answered" text &&
	grep_or_fail "#1 answer failed" text
'

test_expect_success 'the server accepts: the next pass sends it, once' '
	rm -f "$M/refuse" &&
	wait_for "schedfarm run >>run3 2>&1 && test \"\$(smtp_count $M)\" = 1" 20 &&
	cat run3 &&
	grep_or_fail "mail 1 sent to 2 recipients" run3 &&
	schedfarm patch show 1 --json >p1 &&
	jq -e ".mails[0].state == \"sent\" and .mails[0].attempts == 2" p1 &&
	schedfarm run >run4 2>&1 && schedfarm run >>run4 2>&1 &&
	test "$(smtp_count "$M")" = 1
'

test_expect_success 'the mail: subject and body hold the PLM#, the verdict and the link' '
	smtp_unfold "$M/mail/001.eml" >m1 && m=m1 && cat "$m" &&
	verdict=$(jq -r .answer.verdict p1) &&
	grep -q "^Subject: \\[schedfarm\\] PLM#1 \"sched/fair: a harmless change\": round_trip_us .* $verdict on here" "$m" &&
	grep_or_fail "X-Envelope-To: dev@example.org" "$m" &&
	grep_or_fail "X-Envelope-To: sched-devel@example.org" "$m" &&
	grep_or_fail "From: schedfarm test <farm@example.org>" "$m" &&
	grep_or_fail "Verdict: $verdict" "$m" &&
	grep_or_fail "The page: http://farm.example/reports/patch-1.html" "$m" &&
	grep_or_fail "Deciding metrics" "$m" &&
	grep -q "round_trip_us .* p=" "$m" &&
	grep -q "^Message-ID: <schedfarm.answer.1." "$m"
'

test_expect_success 'a serve killed with SIGKILL mid-job: a new serve answers the submission' '
	schedfarm submit fix.patch --base v-base --kernel v-fix2 --host here \
		--plan slow.yaml --mail dev2@example.org >sub2 || return 1
	setsid "$SCHEDFARM_BIN" serve --lease 10 --wake 1 >serve1.log 2>&1 &
	s1=$!
	test_atexit "kill -9 -$s1" &&
	wait_for "grep -q \"job .*: run 1/\" serve1.log" 60 &&
	test "$(schedfarm patch show 2 --json | jq -r .answer.state)" = pending &&
	kill -9 -"$s1" && say "serve $s1 and its job killed with SIGKILL" &&
	wait_for "! kill -0 $s1" 10 &&
	test "$(schedfarm patch show 2 --json | jq -r .answer.state)" = pending ||
		{ cat serve1.log; schedfarm patch show 2; return 1; }
	setsid "$SCHEDFARM_BIN" serve --lease 10 --wake 1 >serve2.log 2>&1 &
	s2=$!
	test_atexit "kill -9 -$s2" &&
	wait_for "schedfarm patch show 2 --json | jq -e \".answer.state == \\\"waiting\\\"\"" 120 &&
	cat serve2.log &&
	grep_or_fail "expired leases: 1 job(s) back in the queue" serve2.log &&
	# serve2 stops first: running, it may claim the base job run queues
	# (then run finds no idle host); run answers in the foreground.
	kill -TERM -"$s2" && wait_for "! kill -0 $s2" 30 &&
	$SCHEDFARM_BIN run "$SCHEDFARM_HOME/plans/"t8002-slow-*.yaml --host here --kernel v-base >run5 2>&1 ||
		{ cat run5; false; } &&
	wait_for "test \"\$(smtp_count $M)\" = 2" 60 &&
	schedfarm patch show 2 --json >p2 &&
	jq -e ".answer.state == \"answered\" and (.mails | length) == 1 and .mails[0].state == \"sent\"" p2 &&
	jq -e "[.jobs[] | select(.side == \"patch\")] | length == 1 and .[0].state == \"done\"" p2 &&
	grep -q "^X-Envelope-To: dev2@example.org" "$M/mail/002.eml" &&
	test "$(smtp_count "$M")" = 2 || {
		echo "--- serve1.log"; cat serve1.log
		echo "--- serve2.log"; cat serve2.log
		schedfarm patch show 2; false
	}
'

test_expect_success 'a bisection needs a host that boots kernels' '
	! schedfarm bisect 1 2>err && cat err &&
	grep_or_fail "cannot boot the kernels of a bisection" err
'

test_done
