#!/bin/sh
# t8005: the answer mail and the settings file against hostile input and
# careless servers, with real parts: PostgreSQL, python3-aiosmtpd on
# loopback (tests/lib/smtp.sh), a `local` host.
#
# - The settings file: a password inside the smtp URL is refused without
#   being repeated; a file others may write is refused, naming it and
#   why; $SCHEDFARM_SMTP_PASSWORD is not read; `serve -n` refuses a
#   password file others may read.
# - `submit --mail` takes one mail address, nothing else.
# - A base named `b$(touch pwned)`: the command the waiting answer's note
#   suggests, pasted into sh, runs with that name as one word and runs
#   nothing else.
# - One bad recipient among three (a patch's "From: a@x, b@y"): the two
#   others get the mail, the bad one is recorded with the reason; a
#   recipient the server refuses likewise, with the server's reply.
# - A server that does not answer after DATA: one attempt, the mail is
#   "unknown", and it is not sent again.
# - A server without STARTTLS that offers AUTH: no AUTH is sent and the
#   error says why; with mail.insecure_auth = yes the same server gets
#   the login (the check above is not vacuous).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/smtp.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"
smtp_prereqs

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
smtp_up "$SCRATCH/smtp" >smtp.out 2>&1 || { cat smtp.out; exit 1; }
M=$SCRATCH/smtp
smtp_config "$SCRATCH/farm.conf" "$SCRATCH" "timeout = 3s"
sed -i 's/^to = .*/to = sched-devel@example.org, Lab List <lab@example.org>/' \
	"$SCRATCH/farm.conf"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf
BASE='b$(touch pwned)'

patch_from() {
	cat >"$2" <<EOP
From: $1
Subject: [PATCH] sched/fair: a harmless change

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-a
+b
EOP
}
patch_from 'a@x.example.org, b@y.example.org' p1.patch
patch_from 'Dev <dev@example.org>' p2.patch
cat >"$SCRATCH/pp.yaml" <<'EOY'
name: t8005-pingpong
workload: pipe-pingpong
params:
  round_trips: 500
iterations: 1
warmup: 0
boots: 1
metrics:
  round_trip_us: {decides: true}
EOY

# The envelope recipients of mail N (001.eml ...), sorted, one line.
rcpts() {
	sed -n 's/^X-Envelope-To: //p' "$M/mail/$1.eml" | tr -d '\r' | sort | tr '\n' ' '
}

test_expect_success 'a password inside the smtp URL is refused, and not repeated' '
	sed "s|^smtp = smtp://|smtp = smtp://farm:hunter2@|" farm.conf >url.conf &&
	chmod 600 url.conf && grep -q hunter2 url.conf &&
	! schedfarm --config url.conf config >out 2>err && cat err &&
	grep_or_fail "url.conf:7: error: mail.smtp holds a user or password" err &&
	! grep -q hunter2 out err
'

test_expect_success 'a settings file others may write is refused, naming it and why' '
	cp farm.conf loose.conf && chmod 666 loose.conf &&
	! schedfarm --config loose.conf config >out 2>err && cat err &&
	grep_or_fail "the config file loose.conf is refused: it is writable by others (mode 0666" err &&
	chmod 620 loose.conf &&
	! SCHEDFARM_CONFIG=$SCRATCH/loose.conf schedfarm config >out 2>err &&
	grep_or_fail "loose.conf is refused: it is writable by its group" err &&
	chmod 600 loose.conf && schedfarm --config loose.conf config >out
'

test_expect_success 'the password comes from password_file only, never the environment' '
	SCHEDFARM_SMTP_PASSWORD=env-secret schedfarm config >cfg &&
	grep_or_fail "mail.password = (from password_file)" cfg &&
	grep_or_fail "SCHEDFARM_SMTP_PASSWORD is set and not read" cfg &&
	! grep -q env-secret cfg
'

test_expect_success 'a password file others may read: serve -n refuses it, naming it' '
	chmod 644 "$M/password" &&
	! schedfarm serve -n >out 2>err && cat err &&
	grep_or_fail "mail.password_file $M/password is refused: it is readable by others (mode 0644" err &&
	! grep -q test-smtp-secret out err &&
	chmod 600 "$M/password" && schedfarm serve -n >out &&
	grep_or_fail "configuration OK" out
'

test_expect_success 'submit --mail takes one mail address' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	! schedfarm submit p2.patch --base v1 --kernel k0 --host here \
		--plan pp.yaml --mail "a@x.example.org, b@y.example.org" 2>err &&
	cat err && grep_or_fail "is not one mail address" err &&
	! schedfarm submit p2.patch --base v1 --kernel k0 --host here \
		--plan pp.yaml --mail "x@y
RCPT TO:<z@w>" 2>err &&
	cat err && grep_or_fail "holds a control character" err &&
	! schedfarm patch show 1 >/dev/null 2>&1
'

test_expect_success 'a base named b$(touch pwned): the suggested command stays one word in sh' '
	schedfarm submit p1.patch --base "$BASE" --kernel v-fix1 --host here \
		--plan pp.yaml >sub 2>warn && cat sub warn &&
	grep_or_fail "the From: of p1.patch is not one mail address" warn &&
	schedfarm run >run1 2>&1 && cat run1 &&
	schedfarm patch show 1 --json >p1 &&
	jq -e ".answer.state == \"waiting\"" p1 &&
	jq -r .answer.note p1 >note && cat note &&
	cmd=$(sed -n "s/.*then run: \\(schedfarm run .*\\)\$/\\1/p" note) &&
	test -n "$cmd" && say "pasting: $cmd" &&
	mkdir -p bin paste && ln -sf "$SCHEDFARM_BIN" bin/schedfarm &&
	(cd paste && PATH=$SCRATCH/bin:$PATH sh -c "$cmd") >run2 2>&1; cat run2 &&
	test -z "$(find "$SCRATCH" -name pwned)" &&
	grep_or_fail "PLM#1 answered:" run2 &&
	schedfarm patch show 1 --json >p1 &&
	jq -e ".base == \"$BASE\" and .answer.state == \"answered\"" p1
'

test_expect_success 'one bad recipient among three: two get the mail, the bad one is recorded' '
	schedfarm patch show 1 --json >p1 &&
	jq -e ".mails | length == 1" p1 &&
	jq -e ".mails[0].state == \"sent\" and .mails[0].attempts == 1" p1 &&
	jq -e ".mails[0].recipients | length == 2" p1 &&
	jq -e ".mails[0].refused | length == 1" p1 &&
	jq -e ".mails[0].refused[0].address == \"a@x.example.org, b@y.example.org\"" p1 &&
	jq -r ".mails[0].refused[0].reason" p1 >why && cat why &&
	grep_or_fail "not a mail address" why &&
	test "$(smtp_count "$M")" = 1 &&
	test "$(rcpts 001)" = "lab@example.org sched-devel@example.org " &&
	grep_or_fail "left out of its mail" run2 &&
	schedfarm patch show 1 >text && grep_or_fail "left out: a@x.example.org, b@y.example.org: not a mail address" text
'

test_expect_success 'a recipient the server refuses is left out with its reply, the others get it' '
	echo nobody@example.org >"$M/refuse-rcpt" &&
	schedfarm submit p2.patch --base "$BASE" --kernel v-fix2 --host here \
		--plan pp.yaml --mail "No Body <nobody@example.org>" >sub2 &&
	schedfarm run >run3 2>&1 && cat run3 &&
	schedfarm patch show 2 --json >p2 &&
	jq -e ".mails[0].state == \"sent\" and .mails[0].attempts == 1" p2 &&
	jq -e ".mails[0].refused | length == 1 and .[0].address == \"nobody@example.org\"" p2 &&
	jq -r ".mails[0].refused[0].reason" p2 >why && cat why &&
	grep_or_fail "RCPT TO refused: 550 5.1.1" why &&
	test "$(smtp_count "$M")" = 2 &&
	test "$(rcpts 002)" = "lab@example.org sched-devel@example.org " &&
	smtp_unfold "$M/mail/002.eml" >m2 &&
	grep_or_fail "To: No Body <nobody@example.org>, sched-devel@example.org, Lab List <lab@example.org>" m2
'

test_expect_success 'no reply after DATA: one attempt, delivery unknown, not sent again' '
	rm -f "$M/refuse-rcpt" && touch "$M/stall" &&
	schedfarm submit p2.patch --base "$BASE" --kernel v-fix3 --host here \
		--plan pp.yaml --mail dev3@example.org >sub3 &&
	schedfarm run >run4 2>&1; cat run4 &&
	schedfarm patch show 3 --json >p3 &&
	jq -e ".mails[0].state == \"unknown\" and .mails[0].attempts == 1 and .mails[0].next_attempt_at == null" p3 &&
	jq -r ".mails[0].last_error" p3 >why && cat why &&
	grep_or_fail "delivery unknown" why &&
	test "$(grep -c "^DATA" "$M/events")" = 3 &&
	rm -f "$M/stall" &&
	# retry_max is 2 s: a mail that would be tried again is due by now
	t0=$(date +%s) &&
	while [ $(( $(date +%s) - t0 )) -le 3 ]; do schedfarm run >>run5 2>&1 || break; done &&
	schedfarm patch show 3 --json >p3 &&
	jq -e ".mails[0].state == \"unknown\" and .mails[0].attempts == 1" p3 &&
	test "$(grep -c "^DATA" "$M/events")" = 3 &&
	test "$(grep -c "Message-ID: <schedfarm.answer.3." "$M"/mail/*.eml | awk -F: "{s += \$2} END {print s}")" = 1
'

test_expect_success 'a server without STARTTLS that offers AUTH: no AUTH is sent, a clear error' '
	smtp_up "$SCRATCH/plain" --plain >smtp2.out 2>&1 || { cat smtp2.out; return 1; }
	P=$SCRATCH/plain &&
	smtp_config "$SCRATCH/plain.conf" "$SCRATCH" &&
	sed -i "/^starttls = /d; /^ca_file = /d" plain.conf &&
	grep -q "^user = farm" plain.conf &&
	SCHEDFARM_CONFIG=$SCRATCH/plain.conf schedfarm config >cfg &&
	grep_or_fail "mail.starttls = try  # default" cfg &&
	schedfarm submit p2.patch --base "$BASE" --kernel v-fix4 --host here \
		--plan pp.yaml --mail dev4@example.org >sub4 &&
	SCHEDFARM_CONFIG=$SCRATCH/plain.conf schedfarm run >run6 2>&1; cat run6 &&
	schedfarm patch show 4 --json >p4 &&
	jq -e ".mails[0].state == \"failed\"" p4 &&
	jq -r ".mails[0].last_error" p4 >why && cat why &&
	grep_or_fail "the server offers no STARTTLS, and a login needs TLS: no AUTH was sent" why &&
	! grep -q test-smtp-secret why run6 &&
	test "$(smtp_count "$P")" = 0 &&
	! grep -q "^AUTH" "$P/events" 2>/dev/null &&
	cp plain.conf insecure.conf && echo "insecure_auth = yes" >>insecure.conf &&
	wait_for "SCHEDFARM_CONFIG=$SCRATCH/insecure.conf schedfarm run >>run7 2>&1 && test \"\$(smtp_count $P)\" = 1" 20 &&
	grep -q "^AUTH" "$P/events" &&
	say "with insecure_auth = yes the same server got: $(grep "^AUTH" "$P/events" | head -1)"
'

test_expect_success 'a From: in latin-1 is stored as text, with a warning, not a database error' '
	printf "From: Ren\351 Dupr\351 <rene@example.org>\nSubject: [PATCH] d\351j\340 vu\n\n---\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" >latin1.patch &&
	schedfarm submit latin1.patch --base "$BASE" --kernel v-fix5 --host here \
		--plan pp.yaml >sub5 2>warn5; cat sub5 warn5 &&
	grep_or_fail "PLM#5: 1 patch" sub5 &&
	grep_or_fail "the From: of latin1.patch is not one mail address" warn5 &&
	! grep -qi "invalid byte sequence" warn5 &&
	schedfarm patch show 5 --json >p5 &&
	jq -e ".mail_to == \"Ren\\\\xe9 Dupr\\\\xe9 <rene@example.org>\"" p5
'

test_done
