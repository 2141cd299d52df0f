#!/bin/sh
# t8004: when a series regresses, the answer starts a bisection unless
# something says not to, and its mail says which: `submit --no-bisect`,
# `[bisect] auto = no` in the farm's settings, a host that cannot boot the
# series' prefixes.  Then `schedfarm bisect PLM# --metric M` started by
# hand: the points (base, each prefix, the whole series) with their
# kernels, and the first step's job queued on the middle prefix; a second
# one of the same patch, metric and host refused while it runs.
#
# The numbers are real runs on this machine (a local host) of a command
# workload whose score is a level read from a file plus noise: the base's
# runs see 100, the series' 80, so every series here regresses by about
# 20% without a kernel being built.  For the manual start the host is
# then registered as a libvirt host and the base kernel given a source
# folder (rows a real lab would have); nothing is built or booted: the
# steps themselves are tests/kernel/t7102 (make check-kernel).
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
smtp_config "$SCRATCH/noauto.conf" "$SCRATCH" "
[bisect]
auto = no"
export SCHEDFARM_CONFIG=$SCRATCH/farm.conf
M=$SCRATCH/smtp

q() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}

# The workload: "score: LEVEL + [0, 1)", LEVEL from $SCRATCH/level.
cat >"$SCRATCH/level.sh" <<EOF
#!/bin/sh
exec awk -v seed="\$\$" -v f="$SCRATCH/level" 'BEGIN {
	srand(seed); getline v < f; printf "score: %.4f\n", v + rand() }'
EOF
chmod +x "$SCRATCH/level.sh"
cat >"$SCRATCH/level.yaml" <<EOF
name: t8004-level
commands:
  level:
    command: ["$SCRATCH/level.sh"]
    timeout: 30s
    parse: {format: keyvalue}
    metrics:
      score: {unit: points, direction: higher}
workload: level
iterations: 2
warmup: 0
boots: 3
metrics:
  score: {tau: 2%, decides: true}
EOF
# A series of three.
for i in 1 2 3; do
	cat >"$SCRATCH/000$i.patch" <<EOF
From: Dev Eloper <dev@example.org>
Subject: [PATCH $i/3] sched/fair: change $i

---
--- a/kernel/sched/f$i.c
+++ b/kernel/sched/f$i.c
@@ -1 +1 @@
-a
+b
EOF
done

# mail_of PLM#: the file of the one mail that names it.
mail_of() {
	grep -l "^Subject: \[schedfarm\] PLM#$1 " "$M"/mail/*.eml
}

test_expect_success 'the base measured at level 100 on a local host' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	echo 100 >level &&
	schedfarm run level.yaml --host here --kernel v-base >run0 2>&1 ||
		{ cat run0; false; } &&
	test "$(q "SELECT count(*) FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.name = \$\$v-base\$\$ AND r.status = \$\$done\$\$")" = 3
'

test_expect_success 'submit --no-bisect: the answer is a regression, no bisection' '
	echo 80 >level &&
	schedfarm submit 0001.patch 0002.patch 0003.patch --base v-base \
		--kernel v-s1 --host here --plan level.yaml --no-bisect >sub1 &&
	grep_or_fail "PLM#1: 3 patches on v-base" sub1 &&
	schedfarm run >run1 2>&1; cat run1 &&
	grep_or_fail "PLM#1 answered: score -" run1 &&
	schedfarm patch show 1 --json >p1 &&
	jq -e ".auto_bisect == false and .answer.state == \"answered\" and .answer.verdict == \"regression\"" p1 &&
	wait_for "test \"\$(smtp_count $M)\" = 1" 30 &&
	m=$(mail_of 1) && cat "$m" &&
	grep_or_fail "Bisection: not started (submitted with --no-bisect)" "$m" &&
	test "$(q "SELECT count(*) FROM bisections")" = 0
'

test_expect_success '[bisect] auto = no in the settings: no bisection either' '
	schedfarm --config noauto.conf config >cfg &&
	grep_or_fail "bisect.auto = no" cfg &&
	schedfarm submit 0001.patch 0002.patch 0003.patch --base v-base \
		--kernel v-s2 --host here --plan level.yaml >sub2 &&
	SCHEDFARM_CONFIG=$SCRATCH/noauto.conf schedfarm run >run2 2>&1;
	cat run2 &&
	grep_or_fail "PLM#2 answered: score -" run2 &&
	schedfarm patch show 2 --json >p2 &&
	jq -e ".auto_bisect == true and .answer.verdict == \"regression\"" p2 &&
	wait_for "test \"\$(smtp_count $M)\" = 2" 30 &&
	m=$(mail_of 2) &&
	grep_or_fail "Bisection: not started ([bisect] auto = no)" "$m" &&
	test "$(q "SELECT count(*) FROM bisections")" = 0
'

test_expect_success 'switched on, on a host that cannot boot the prefixes: the mail says so' '
	schedfarm submit 0001.patch 0002.patch 0003.patch --base v-base \
		--kernel v-s3 --host here --plan level.yaml >sub3 &&
	schedfarm run >run3 2>&1; cat run3 &&
	grep_or_fail "PLM#3 answered: score -" run3 &&
	wait_for "test \"\$(smtp_count $M)\" = 3" 30 &&
	m=$(mail_of 3) &&
	grep_or_fail "Bisection: not started: here cannot boot the kernels of the series" "$m" &&
	test "$(q "SELECT count(*) FROM bisections")" = 0 &&
	! schedfarm bisect 3 --metric score 2>err &&
	grep_or_fail "host here is a local host: it runs the kernel it has" err
'

test_expect_success 'bisect PLM# by hand: the points, and the middle prefix queued first' '
	q "UPDATE hosts SET kind = \$\$libvirt\$\$ WHERE name = \$\$here\$\$" &&
	! schedfarm bisect 3 --metric score 2>err &&
	grep_or_fail "the base kernel v-base has no source to build the series" err &&
	mkdir src &&
	q "UPDATE kernels SET base = \$\$$SCRATCH/src\$\$ WHERE name = \$\$v-base\$\$" &&
	! schedfarm bisect 3 --metric no_such_metric 2>err &&
	grep_or_fail "PLM#3 has no results of no_such_metric on here" err &&
	schedfarm bisect 3 --metric score >b1 && cat b1 &&
	grep -E "^bisect #1: PLM#3, 3 patches, score \([^)]*\) on here: regression -(19|20|21)\.[0-9]% for the whole series" b1 &&
	grep -E "^bisect #1 step 1: queued STP#[0-9]+, v-base\+PLM3\.[12] \(point [12] of 3\), [0-9]+ boots? on here" b1 &&
	schedfarm bisect show 1 --json >b.json &&
	jq -e ".patch == 3 and .auto == false and .metric == \"score\" and .direction == \"regression\" and .n == 3 and .state == \"running\"" b.json &&
	jq -e "[.points[] | .kernel] == [\"v-base\", \"v-base+PLM3.1\", \"v-base+PLM3.2\", \"v-s3\"]" b.json &&
	jq -e "[.points[] | .mark] == [\"good\", \"untested\", \"untested\", \"bad\"]" b.json &&
	jq -e "[.points[1:3][] | .label] == [\"sched/fair: change 1\", \"sched/fair: change 2\"]" b.json &&
	jq -e ".steps | length == 1 and .[0].step == 1 and (.[0].jobs | length) == 1" b.json &&
	k=$(jq -r ".steps[0].kernel" b.json) &&
	test "$(q "SELECT series_patch_id || \$\$ \$\$ || series_count || \$\$ \$\$ || build_state || \$\$ \$\$ || build_mode FROM kernels WHERE name = \$\$$k\$\$")" = "3 ${k##*.} queued incremental" &&
	test "$(q "SELECT state || \$\$ \$\$ || host_constraint FROM jobs WHERE bisect_step_id IS NOT NULL")" = "queued here" &&
	! schedfarm bisect 3 --metric score 2>err &&
	grep_or_fail "PLM#3 is being bisected for score on here already: bisect #1 is running" err &&
	test "$(q "SELECT count(*) FROM bisections")" = 1 &&
	schedfarm bisect cancel 1 >c && grep_or_fail "bisect #1: cancelled" c &&
	test "$(q "SELECT state FROM jobs WHERE bisect_step_id IS NOT NULL")" = cancelled
'

# A copy of bisect #1's row: running, same patch, host and metric.
twin="INSERT INTO bisections (patch_id, host_id, plan_id, metric, n_points, max_boots) SELECT patch_id, host_id, plan_id, metric, n_points, max_boots FROM bisections WHERE id = 1 RETURNING id"

test_expect_success 'the database holds one running bisection per patch, host and metric (schema 013)' '
	t1=$(q "$twin") &&
	! q "$twin" 2>err &&
	grep_or_fail "bisections_running_once" err &&
	q "UPDATE bisections SET state = \$\$done\$\$ WHERE id = $t1" &&
	t2=$(q "$twin") &&
	test "$t2" -gt "$t1" &&
	! schedfarm bisect 3 --metric score 2>err &&
	grep_or_fail "PLM#3 is being bisected for score on here already: bisect #$t2 is running" err
'

test_expect_success 'migration 013 on a database with running twins: the first runs on, the later are cancelled saying why' '
	# in one psql call: every schedfarm command migrates first
	q "DROP INDEX bisections_running_once; DELETE FROM schema_migrations WHERE version = 13; $twin; $twin" >ids &&
	t3=$(sed -n 1p ids) && t4=$(sed -n 2p ids) &&
	test "$t4" -gt "$t3" &&
	schedfarm db migrate >m && cat m &&
	t2=$(q "SELECT id FROM bisections WHERE state = \$\$running\$\$") &&
	test "$t2" -lt "$t3" &&
	test "$(q "SELECT state FROM bisections WHERE id = $t3")" = cancelled &&
	test "$(q "SELECT state FROM bisections WHERE id = $t4")" = cancelled &&
	q "SELECT result FROM bisections WHERE id = $t4" >r &&
	grep_or_fail "cancelled when the database was upgraded: bisect #$t2 bisects the same patch, host and metric" r &&
	test "$(q "SELECT count(*) FROM pg_indexes WHERE indexname = \$\$bisections_running_once\$\$")" = 1
'

test_done
