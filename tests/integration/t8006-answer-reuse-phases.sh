#!/bin/sh
# t8006: an answer says whose stored base runs it used, and where its time
# went (issue 29), on a host that cannot change kernel (`local`).
#
# The base's runs are stored by a `run PLAN --kernel BASE` job (and by a
# second one with a --set override the submission does not have); the
# submission is answered with the first job's runs only, and its page,
# `patch show` (text and --json), the controller's log and the mail say
# "base runs reused from STP#1, kernel v-base".  `patch show` and the page
# list the answer's phases (queued, build, boot, run, compare) with
# durations that add up to the time from submit to answer, and `run` logs
# them in one line.  A fresh base (`submit --fresh-base`, the plan's
# `base: fresh`) is refused on a local host, which cannot boot the base.
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
name: t8006-pingpong
workload: pipe-pingpong
params:
  round_trips: 2000
iterations: 2
warmup: 0
boots: 3
metrics:
  round_trip_us: {decides: true}
EOF
sed 's/^boots: 3$/boots: 3\nbase: fresh/' "$SCRATCH/pp.yaml" >"$SCRATCH/fresh.yaml"
sed 's/^boots: 3$/boots: 3\nbase: anew/' "$SCRATCH/pp.yaml" >"$SCRATCH/bad.yaml"

test_expect_success 'the base runs are stored by run --kernel jobs (STP#1, and STP#2 with a --set)' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm run pp.yaml --host here --kernel v-base >run1 2>&1 ||
		{ cat run1; false; } &&
	schedfarm run pp.yaml --host here --kernel v-base \
		--set params.round_trips=1000 >run2 2>&1 ||
		{ cat run2; false; } &&
	schedfarm job show 1 --json | jq -e ".state == \"done\"" &&
	schedfarm job show 2 --json | jq -e ".state == \"done\""
'

test_expect_success 'a submission is answered with STP#1 runs and says so in the log' '
	schedfarm submit fix.patch --base v-base --kernel v-fix --host here \
		--plan pp.yaml --json >sub && cat sub &&
	jq -e ".patch == 1 and .job == 3 and .fresh_base == false" sub &&
	wait_for "schedfarm run >>run3 2>&1 && test \"\$(smtp_count $M)\" = 1" 30 &&
	cat run3 &&
	grep_or_fail "PLM#1: base runs reused from STP#1, kernel v-base" run3 &&
	grep -q "^.*PLM#1 answered in [0-9.a-z]*: queued [0-9.a-z]*, build [0-9.a-z]*, boot [0-9.a-z]*, run [0-9.a-z]*, compare [0-9.a-z]*$" run3
'

test_expect_success 'patch show --json: the reused runs are those compared (not STP#2 of another --set)' '
	schedfarm patch show 1 --json >p1 &&
	jq -e ".answer.state == \"answered\" and .fresh_base == false" p1 &&
	jq -e ".answer.base_reused.text == \"base runs reused from STP#1, kernel v-base\"" p1 &&
	jq -e ".answer.base_reused.jobs == [1] and .answer.base_reused.imported == 0 and .answer.base_reused.kernel == \"v-base\"" p1 &&
	jq -e ".answer.metrics[] | select(.metric == \"round_trip_us\") | .n_base == 3 and .n_new == 3" p1
'

test_expect_success 'the phases have durations that add up to the answer span' '
	jq -e ".phases | .total_seconds > 0 and .queued >= 0 and .build >= 0 and .boot >= 0 and .run > 0 and .compare >= 0" p1 &&
	jq -e ".phases | ((.queued + .build + .boot + .run + .compare) - .total_seconds) | fabs < 0.01" p1
'

test_expect_success 'patch show, the page and the mail say it too' '
	schedfarm patch show 1 >t1 && cat t1 &&
	grep_or_fail "  base      base runs reused from STP#1, kernel v-base" t1 &&
	grep_or_fail "    n 3+3 on here, pipe-pingpong (round_trips=2000)" t1 &&
	grep -q "^phases ([0-9.a-z]* from submit to answer):" t1 &&
	for ph in queued build boot run compare; do
		grep -q "^  $ph  *[0-9.]*[a-z]*\$" t1 || { echo "no $ph"; return 1; }
	done &&
	test -s www/patch-1.html &&
	grep_or_fail "base runs reused from STP#1, kernel v-base" www/patch-1.html &&
	grep_or_fail "Where the time went" www/patch-1.html &&
	grep -q "compare" www/patch-1.html &&
	smtp_unfold "$M/mail/001.eml" >m1 && cat m1 &&
	grep_or_fail "  base runs reused from STP#1, kernel v-base" m1
'

test_expect_success '--fresh-base is refused on a local host, and so is base: fresh' '
	! schedfarm submit fix.patch --base v-base --kernel v-fix2 --host here \
		--plan pp.yaml --fresh-base 2>err && cat err &&
	grep_or_fail "fresh-base needs a host that boots kernels (libvirt, ipmi, redfish)" err &&
	! schedfarm submit fix.patch --base v-base --kernel v-fix2 --host here \
		--plan fresh.yaml 2>err2 && cat err2 &&
	grep_or_fail "the plan'"'"'s '"'"'base: fresh'"'"' needs a host that boots kernels" err2 &&
	test "$(schedfarm patch list --json | jq length)" = 1 &&
	! schedfarm plan check bad.yaml >err3 2>&1 && cat err3 &&
	grep_or_fail "base: expected '"'"'fresh'"'"' or '"'"'reuse'"'"'" err3 &&
	schedfarm submit --help >help && grep_or_fail "--fresh-base" help
'

test_expect_success 'a cancelled submission reads "cancelled", not as a failure or a warning' '
	schedfarm host set here --health maintenance >/dev/null &&
	schedfarm submit fix.patch --base v-base --kernel v-fix3 --host here \
		--plan pp.yaml --json >sub3 &&
	schedfarm job cancel "$(jq .job sub3)" >/dev/null &&
	schedfarm host set here --health good >/dev/null &&
	P=$(jq .patch sub3) &&
	wait_for "schedfarm run >>run4 2>&1; schedfarm patch show $P --json | jq -e \".answer.state == \\\"failed\\\"\"" 30 &&
	cat run4 &&
	! grep -q "warning: PLM#$P" run4 &&
	schedfarm patch list >pl && cat pl &&
	grep -q "cancelled on here" pl &&
	! grep -q "cancelled failed" pl
'

test_done
