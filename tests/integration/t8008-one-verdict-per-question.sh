#!/bin/sh
# t8008: one verdict per question (issue 28).  The base kernel ran two
# plans on the host (pp.yaml, the patch's, and mc.yaml, another), the
# patch ran pp.yaml and was answered.  Then:
#  - `compare PLM#` reads only the patch's plan: no row of mc.yaml's
#    workload, nothing "measured under one kernel only" as a verdict row;
#  - `compare PLM# --plan mc` is refused: the patch never ran it;
#  - the plain form (`compare --base --new`, every run, default tau) and a
#    form asked by hand (`--tau 1`) are stored under their own questions,
#    and the shown verdicts (latest_comparisons, `regressions`, the
#    patch's page rows) stay the answer's, planned ones;
#  - `--workload` and `--metric` filter what is shown, never the family
#    (Holm's family size stays the plan's).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home

cat >fix.patch <<'EOF'
From: Dev Eloper <dev@example.org>
Subject: [PATCH] sched/fair: a harmless change

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-a
+b
EOF
cat >pp.yaml <<'EOF'
name: pp
workload: pipe-pingpong
params:
  round_trips: 2000
iterations: 2
warmup: 0
boots: 3
metrics:
  round_trip_us: {decides: true}
  round_trips_per_s: {decides: true}
EOF
cat >mc.yaml <<'EOF'
name: mc
workload: memchunk
params:
  short_threads: 1
  long_threads: 1
  duration: 1s
iterations: 2
warmup: 0
boots: 3
EOF

q() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}

test_expect_success 'the base ran two plans; the patch ran one and was answered' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm run pp.yaml --host here --kernel v-base >run1 2>&1 ||
		{ cat run1; false; } &&
	schedfarm run mc.yaml --host here --kernel v-base >run2 2>&1 ||
		{ cat run2; false; } &&
	schedfarm submit fix.patch --base v-base --kernel v-fix --host here \
		--plan pp.yaml --json >sub && cat sub &&
	schedfarm run >run3 2>&1 || { cat run3; false; } &&
	schedfarm patch show 1 --json | jq -e ".answer.state == \"answered\""
'

test_expect_success 'compare PLM# reads only the patch'"'"'s plan' '
	schedfarm compare 1 --json --no-store >c1.json &&
	jq -e "length >= 2" c1.json &&
	jq -e "[.[].workload] | unique == [\"pipe-pingpong\"]" c1.json &&
	jq -e "all(.[]; .n_base > 0 and .n_new > 0)" c1.json &&
	schedfarm compare 1 --no-store >c1.txt &&
	! grep -q memchunk c1.txt &&
	grep_or_fail "question: plan=pp@" c1.txt &&
	grep_or_fail "(the patch'"'"'s own)" c1.txt
'

test_expect_success 'compare PLM# --plan of a plan the patch never ran is refused' '
	! schedfarm compare 1 --plan mc >c2.txt 2>&1 &&
	grep_or_fail "PLM#1 never ran the plan '"'"'mc'"'"' (it ran '"'"'pp'"'"')" c2.txt
'

test_expect_success 'the answer'"'"'s verdicts are stored as the planned question' '
	test "$(q "SELECT count(*) FROM latest_comparisons c JOIN kernels k ON k.id = c.new_kernel_id WHERE k.name = '"'"'v-fix'"'"' AND NOT c.planned")" = 0 &&
	test "$(q "SELECT count(*) FROM latest_comparisons c JOIN kernels k ON k.id = c.new_kernel_id WHERE k.name = '"'"'v-fix'"'"' AND c.planned")" -ge 2 &&
	q "SELECT id, verdict FROM latest_comparisons ORDER BY id" >shown.before &&
	schedfarm regressions --json >reg.before
'

test_expect_success 'the plain form and a --tau asked by hand store their own questions; what is shown stays' '
	schedfarm compare --base v-base --new v-fix >/dev/null &&
	schedfarm compare --base v-base --new v-fix --metric round_trip_us >/dev/null &&
	schedfarm compare 1 --tau 1 >/dev/null &&
	test "$(q "SELECT count(DISTINCT question) FROM comparisons WHERE is_latest")" = 3 &&
	q "SELECT id, verdict FROM latest_comparisons ORDER BY id" >shown.after &&
	cmp shown.before shown.after &&
	schedfarm regressions --json >reg.after &&
	cmp reg.before reg.after &&
	test "$(q "SELECT count(*) FROM comparisons WHERE is_latest AND question = '"'"''"'"' AND workload = '"'"'memchunk'"'"'")" = 0
'

test_expect_success '--workload and --metric filter the shown rows, never the family' '
	schedfarm compare 1 --json --no-store >all.json &&
	schedfarm compare 1 --json --no-store --metric round_trip_us >one.json &&
	jq -e "length == 1" one.json &&
	test "$(jq ".[0].family" one.json)" = \
		"$(jq "[.[] | select(.metric == \"round_trip_us\")][0].family" all.json)" &&
	test "$(jq ".[0].family" one.json)" -ge 2 &&
	schedfarm compare --base v-base --new v-fix --json --no-store >plain.json &&
	schedfarm compare --base v-base --new v-fix --json --no-store \
		--workload pipe-pingpong >plainw.json &&
	jq -e "[.[].workload] | unique == [\"pipe-pingpong\"]" plainw.json &&
	test "$(jq "[.[] | select(.metric == \"round_trip_us\")][0].family" plainw.json)" = \
		"$(jq "[.[] | select(.metric == \"round_trip_us\")][0].family" plain.json)"
'

test_done
