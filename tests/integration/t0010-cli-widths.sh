#!/bin/sh
# t0010: text output fits 80 columns (issue 31).  On data with long
# kernel names, a long host and workload name, long params and long
# metric names (imports), a run on the local host and a queued patch job
# with a long name, every listing verb's text form -- compare, results,
# regressions, queue, patch list, rerun --help -- has no line over 80
# columns and no "warning:"; Holm's correction is said once under the
# compare table, not on every row; --wide gives one line a row (compare,
# results, regressions); --json is still one JSON document.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home

BASE=v6.8-rc3-sched-eevdf-lag-based-placement-baseline-for-the-farm
NEW=v6.8-rc3-sched-eevdf-lag-based-placement-with-lag-clamp-and-slice-fix
HOST=lab-box-with-a-rather-long-host-name-01
WL=hackbench-process-pipe-long-workload-name
PARAMS="groups=16;loops=10000;datasize=4096;cgroup=/sys/fs/cgroup/schedfarm/a/very/deep/path;affinity=numa-node-0-cpus-0-63;mode=process"

# Ten boots a side of four metrics; two of them move by 10% (a regression
# and an improvement, past Holm's correction).
{
	echo "kernel,host,workload,params,metric,unit,better,value,boot"
	for k in "$BASE" "$NEW"; do
		b=1
		for v in 100 101 99 100.5 99.5 100.2 100.7 99.1 99.8 100.4; do
			if [ "$k" = "$NEW" ]; then w=$(awk "BEGIN { print $v * 1.1 }"); else w=$v; fi
			echo "$k,$HOST,$WL,\"$PARAMS\",time_s,s,lower,$w,$b"
			echo "$k,$HOST,$WL,\"$PARAMS\",context_switches_per_second_total,switches/s,higher,$w,$b"
			echo "$k,$HOST,$WL,\"$PARAMS\",ops,ops/s,higher,$v,$b"
			echo "$k,$HOST,$WL,\"$PARAMS\",migrations,migrations/s,lower,$v,$b"
			b=$((b + 1))
		done
	done
} >long.csv

cat >quick.yaml <<'EOF'
name: quick-with-a-long-plan-name-for-the-queue-listing
workload: pipe-pingpong
params:
  round_trips: [100, 200]
iterations: 1
warmup: 0
EOF
PATCH=0001-sched-fair-clamp-the-lag-of-a-waking-task-to-its-slice-so-that-placement-stays-fair.patch
printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >"$PATCH"

test_expect_success 'setup: a host, a run, imports, a comparison, a queued patch job' '
	schedfarm host add here --kind local >/dev/null &&
	schedfarm run quick.yaml --host here --kernel v6.1 >run.out 2>&1 &&
	schedfarm import long.csv >/dev/null &&
	schedfarm compare --base "$BASE" --new "$NEW" >/dev/null &&
	schedfarm submit "$PATCH" --base v6.1 --plan quick.yaml --host here \
		--kernel "$NEW-queued-kernel-label" --json >sub.json
'

JOB=$(schedfarm db psql -- -At -c "SELECT min(job_id) FROM runs WHERE status = 'done'" 2>/dev/null)

# fits NAME CMD...: run CMD into NAME.txt (stdout and stderr); fail on a
# line over 80 columns, on "warning:", or on no output.
fits() {
	_n=$1
	shift
	"$@" >"$_n.txt" 2>&1 || { echo "failed: $*"; cat "$_n.txt"; return 1; }
	test -s "$_n.txt" || { echo "no output: $*"; return 1; }
	if awk "length > 80" "$_n.txt" | grep -q .; then
		echo "lines over 80 columns in: $*"
		awk "length > 80 { print length \": \" \$0 }" "$_n.txt"
		return 1
	fi
	if grep -q "warning:" "$_n.txt"; then
		echo "warning in: $*"
		cat "$_n.txt"
		return 1
	fi
}

test_expect_success 'compare fits 80 columns; Holm said once, under the table' '
	fits cmp schedfarm compare --base "$BASE" --new "$NEW" &&
	cat cmp.txt &&
	test "$(grep -c "Holm" cmp.txt)" = 1 &&
	tr "\n" " " <cmp.txt | tr -s " " | grep -q "Holm.s correction over the 4 deciding metrics on $HOST: p shown unadjusted" &&
	! grep -q "note: Holm" cmp.txt &&
	grep -q "^params affinity=numa" cmp.txt &&
	grep -q "regression (p=.*, adj\." cmp.txt
'

test_expect_success 'compare --wide: one line a row; --json unchanged' '
	schedfarm compare --base "$BASE" --new "$NEW" --no-store --wide >w.txt &&
	schedfarm compare --base "$BASE" --new "$NEW" --no-store --json >c.json &&
	test "$(jq length c.json)" = 4 &&
	test "$(grep -cE " [0-9]+/[0-9]+ +[a-z_]+ \(" w.txt)" = 4 &&
	grep -q "  params affinity=numa" w.txt &&
	jq -e "all(.[]; .note == null or (.note | test(\"Holm\")))" c.json
'

test_expect_success 'results fit 80 columns; --wide one line a row' '
	fits res1 schedfarm results --kernel "$NEW" &&
	fits res2 schedfarm results "$JOB" &&
	cat res1.txt &&
	grep -q "^PARAMS " res1.txt &&
	schedfarm results --kernel "$NEW" --json >r.json &&
	schedfarm results --kernel "$NEW" --wide >rw.txt &&
	test "$(($(wc -l <rw.txt) - 1))" = "$(jq length r.json)" &&
	awk "length > 80" rw.txt | grep -q .
'

test_expect_success 'regressions fit 80 columns; --wide one line a row' '
	fits reg schedfarm regressions &&
	cat reg.txt &&
	schedfarm regressions --json >g.json &&
	schedfarm regressions --wide >gw.txt &&
	test "$(jq length g.json)" -ge 1 &&
	test "$(($(wc -l <gw.txt) - 1))" = "$(jq length g.json)" &&
	tr -d "\n " <reg.txt | grep -q -- "metrictime_sbase$BASE"
'

test_expect_success 'queue keeps its columns with a long kernel name, fits 80' '
	fits q schedfarm queue &&
	cat q.txt &&
	head -1 q.txt | grep -q "^STP  *STATE  *PRIO  *PATCH" &&
	tr -d "\n " <q.txt | grep -q -- "KERNEL$NEW-queued-kernel-label" &&
	schedfarm queue --json | jq -e "length == 1" >/dev/null
'

test_expect_success 'patch list: a header, names wrapped at word ends, fits 80' '
	fits pl schedfarm patch list &&
	cat pl.txt &&
	head -1 pl.txt | grep -q "^PLM  *STATE  *NAME" &&
	tr -d "\n " <pl.txt | grep -q -- "$PATCH" &&
	grep -q -- "-$" pl.txt &&
	schedfarm patch list --json | jq -e "length == 1" >/dev/null
'

test_expect_success 'rerun --help and every verb help fit 80 columns' '
	fits rh schedfarm rerun --help &&
	fits top schedfarm help &&
	fits top2 schedfarm --help &&
	schedfarm help >verbs.txt 2>&1 &&
	verbs=$(awk "/^  [a-z]/ { print \$1 }" verbs.txt) &&
	test "$(echo "$verbs" | wc -w)" -ge 20 &&
	for v in $verbs; do
		fits h schedfarm help $v || return 1
	done
'

test_expect_success 'the demo plan runs clean: no line over 80, no warning' '
	fits demo schedfarm run "$TOP/plans/demo-aa.yaml" --host here \
		--kernel "$BASE-demo" &&
	grep -q "done" demo.txt
'

test_expect_success 'changes, patch show, job show, host list, kernel list fit 80' '
	PLM=$(jq -r .patch sub.json) &&
	fits ch schedfarm changes &&
	fits cst schedfarm changes --suggest-tau &&
	fits ps schedfarm patch show "$PLM" &&
	fits js schedfarm job show "$JOB" &&
	fits hl schedfarm host list &&
	fits kl schedfarm kernel list &&
	cat hl.txt kl.txt &&
	head -1 hl.txt | grep -q "^KIND  *STATE  *HEALTH" &&
	tr -d "\n " <hl.txt | grep -q -- "$HOST" &&
	tr -d "\n " <kl.txt | grep -q -- "$NEW-queued-kernel-label"
'

test_expect_success 'cancelled: kernel list says so, and kernel rm takes a mistyped --kernel label' '
	SJOB=$(jq -r .job sub.json) &&
	PLM=$(jq -r .patch sub.json) &&
	ssh-keygen -q -t ed25519 -N "" -f vmkey </dev/null && : >vmkh &&
	schedfarm host add vm-of-the-queue --kind libvirt --address 127.0.0.1 \
		--port 2222 --user root --key "$SCRATCH/vmkey" \
		--known-hosts "$SCRATCH/vmkh" --libvirt-uri qemu:///system \
		>/dev/null &&
	schedfarm submit "$PATCH" --base v6.1 --plan quick.yaml \
		--host vm-of-the-queue --json >sub2.json &&
	PLM2=$(jq -r .patch sub2.json) &&
	schedfarm kernel list >kl2.txt &&
	grep -A1 -E "^ *[0-9]+ +queued " kl2.txt | grep -q "NAME v6\.1+PLM$PLM2$" &&
	schedfarm job cancel "$(jq -r .job sub2.json)" >/dev/null &&
	schedfarm job cancel "$SJOB" >/dev/null &&
	schedfarm kernel list >kl3.txt &&
	cat kl3.txt &&
	grep -A1 -E "^ *[0-9]+ +cancelled " kl3.txt | grep -q "NAME v6\.1+PLM$PLM2$" &&
	! grep -E "^ *[0-9]+ +queued " kl3.txt &&
	! schedfarm kernel rm v6.1 >rm1.txt 2>&1 &&
	cat rm1.txt &&
	grep_or_fail "kernel v6.1 is still used: job " rm1.txt &&
	grep -q "(done)" rm1.txt &&
	schedfarm kernel rm "$NEW-queued-kernel-label" >rm2.txt 2>&1 &&
	cat rm2.txt &&
	grep_or_fail "removed, with what only its cancelled jobs held: job $SJOB; patch PLM#$PLM no longer names it" rm2.txt &&
	schedfarm kernel list >kl4.txt &&
	! tr -d "\n " <kl4.txt | grep -q -- "$NEW-queued-kernel-label" &&
	fits ps2 schedfarm patch show "$PLM"
'

test_done
