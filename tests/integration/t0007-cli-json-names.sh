#!/bin/sh
# t0007: every verb answers the same way.  A loop over the verb table
# (`schedfarm help`) runs each synopsis that shows --json with --json
# after its arguments and again with the global --json before the verb:
# both must exit 0 and print valid JSON -- a new verb is covered by itself,
# and one whose synopsis names an operand this test has no example for
# fails until it gets one.  Names that do not exist are errors that name
# them (exit 1); typos get "did you mean"; compare --exit-code is 1 on an
# imported regression and 0 on an A/A pair.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
D=$TOP/tests/data/import

# exit_is N CMD...: run CMD; fail unless it exits N.
exit_is() {
	_want=$1
	shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_want" ] || { echo "exit $_rc, not $_want: $*"; return 1; }
}

cat >quick.yaml <<'EOF'
name: quick
workload: pipe-pingpong
params:
  round_trips: [100, 200]
iterations: 1
warmup: 0
EOF
printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >fix.patch

# An A/A pair: the same five observations under two names.
{
	echo "kernel,host,workload,params,metric,unit,better,value,boot"
	for k in aa-1 aa-2; do
		b=1
		for v in 100 101 99 100.5 99.5; do
			echo "$k,aa-box,loop,threads=1,ops,ops/s,higher,$v,$b"
			b=$((b + 1))
		done
	done
} >aa.csv
# A sweep over threads 1, 2, 16, 128: compare must list it in that order.
{
	echo "kernel,host,workload,params,metric,unit,better,value,boot"
	for k in sw-base sw-new; do
		for t in 128 16 1 2; do
			for b in 1 2 3; do
				echo "$k,sw-box,loop,threads=$t,ops,ops/s,higher,$((t * 10 + b)),$b"
			done
		done
	done
} >sweep.csv

test_expect_success 'setup: a host, a run, a patch job, imports and a comparison' '
	schedfarm host add here --kind local >/dev/null &&
	# A BMC host in maintenance (never contacted): a series without
	# --kernel has a host that could boot it, so submit queues it.
	schedfarm db psql -- -qc "INSERT INTO hosts (name, kind, address, bmc_address, health) VALUES ('"'"'bmc'"'"', '"'"'ipmi'"'"', '"'"'192.0.2.1'"'"', '"'"'192.0.2.2'"'"', '"'"'maintenance'"'"')" &&
	schedfarm run quick.yaml --host here --kernel k-json >run.out 2>&1 &&
	schedfarm run quick.yaml --host here --kernel v6.1 >run.out 2>&1 &&
	schedfarm submit fix.patch --base v6.1 --kernel k-json-fix --plan quick.yaml --host here --json >sub.json &&
	schedfarm run >drain.out 2>&1 &&
	schedfarm import "$D/seed004-perf-stat.csv" aa.csv sweep.csv >/dev/null &&
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight >/dev/null &&
	schedfarm report --out "$SCRATCH/report" >/dev/null
'

JOB=$(jq .job sub.json 2>/dev/null)
PLM=$(jq .patch sub.json 2>/dev/null)
RUN=$(schedfarm db psql -- -At -c "SELECT min(id) FROM runs WHERE status = 'done' AND job_id IS NOT NULL" 2>/dev/null)
# A finished bisection of the patch, as rows (bisect show needs one; the
# bisection itself is t8003's and t7102's).
BISECT=$(schedfarm db psql -- -qAt -v ON_ERROR_STOP=1 -c "
	INSERT INTO bisections (patch_id, host_id, plan_id, metric, direction,
		n_points, max_boots, state, result, finished_at)
	SELECT $PLM, j.host_id, j.plan_id, 'round_trip_us', 'regression', 1, 7,
		'done', 'patch 1/1 is the first bad patch', now()
	FROM jobs j WHERE j.patch_id = $PLM ORDER BY j.id LIMIT 1 RETURNING id" 2>/dev/null)
schedfarm db psql -- -qAt -c "
	INSERT INTO bisection_points (bisection_id, position, kernel_id, label, mark)
	SELECT $BISECT, 0, base_kernel_id, 'base', 'good' FROM patches WHERE id = $PLM
	UNION ALL
	SELECT $BISECT, 1, kernel_id, 'fix.patch', 'bad' FROM patches WHERE id = $PLM" \
	>/dev/null 2>&1

# The operands of the synopses, by name (filled longest first, in this
# order among equals: the first --base KERNEL wins); VERB:NAME is NAME in
# VERB's synopses only.
cat >examples <<EOF
bisect:ID	$BISECT
--base KERNEL	--base v2.6.39-rc4
--new KERNEL	--new v2.6.39-rc4-load-weight
--base KERNEL	--base v6.1
--plan FILE	--plan $SCRATCH/quick.yaml
--host NAME	--host here
--kernel NAME	--kernel k-json
--run RUN	--run $RUN
PLM#	$PLM
ID	$JOB
JOB	$JOB
NAME|ID	k-json
NAME	here
FILE...	$SCRATCH/quick.yaml
FILE	$SCRATCH/quick.yaml
PATCH...	$SCRATCH/fix.patch
PLAN	$SCRATCH/quick.yaml
EOF

# forms: for each verb of $VERBS, into f.VERB, the synopses of `help
# VERB` that show --json, with the optional [...] parts and --json taken
# out and the operands filled in from the examples; a synopsis with an
# operand it has no example for is written as "MISSING <synopsis>".
forms() {
	for v in $VERBS; do
		echo "@@ $v"
		schedfarm help "$v"
	done | python3 -c '
import re, sys
ex = [l.rstrip("\n").split("\t") for l in open("examples") if "\t" in l]
# Longest names first: NAME|ID before NAME and ID; order kept otherwise.
ex = sorted(ex, key=lambda e: -len(e[0]))
helps, verb = {}, None
for line in sys.stdin:
    if line.startswith("@@ "):
        verb = line[3:].strip()
        helps[verb] = []
    else:
        helps[verb].append(line.rstrip("\n"))
for verb, lines in helps.items():
    syn, cur, block = [], None, False
    for line in lines:
        if line.startswith("usage: "):
            block = True
            line = line[len("usage: "):]
        if not block:
            continue
        if not line.strip():
            break
        s = line.strip()
        if s.startswith("schedfarm "):
            cur = s
            syn.append(cur)
        elif cur is not None and s[:1] in "[-":
            syn[-1] = syn[-1] + " " + s
    with open("f." + verb, "w") as out:
        for s in syn:
            if "--json" not in s:
                continue
            t = s
            while True:
                # an optional part, with the "..." of a repeatable one
                u = re.sub(r"\[[^\[\]]*\](\.\.\.)?", "", t)
                if u == t:
                    break
                t = u
            t = " ".join(t.split()[2:])
            for k, v in ex:
                if ":" in k.split(" ")[0]:
                    kv, k = k.split(":", 1)
                    if kv != verb:
                        continue
                t = t.replace(k, v)
            left = [w for w in t.split()
                    if re.search(r"[A-Z]{2,}", w) and not w.startswith("/")]
            out.write(("MISSING " + s if left else t) + "\n")
'
}

VERBS=$(schedfarm help | sed -n "/^Verbs:/,/^$/p" | awk "NF > 1 { print \$1 }")

test_expect_success 'the verb table is read: every verb is looped over' '
	test "$(echo $VERBS | wc -w)" -ge 16 &&
	for v in compare host job kernel plan queue regressions report rerun results submit; do
		echo " $VERBS " | tr "\n" " " | grep -q " $v " || { echo "no $v"; return 1; }
	done
'

# refused_cancel FILE: the form was `job cancel` of a job cancelled by the
# form before: exit 1 (nothing cancelled), and its JSON says so.
refused_cancel() {
	[ "$v" = job ] && case $args in cancel*) true ;; *) false ;; esac &&
		jq -e ".cancelled == false" "$1" >/dev/null
}

test_expect_success 'every form documented with --json prints JSON, in both positions' '
	n=0 &&
	forms &&
	for v in $VERBS; do
		test -f f.$v || { echo "no synopses read for $v"; return 1; }
		while IFS= read -r args; do
			case $args in MISSING*) echo "$v: no example for: $args"; return 1 ;; esac
			n=$((n + 1))
			# shellcheck disable=SC2086
			schedfarm $v $args --json >a.json 2>a.err || refused_cancel a.json ||
				{ echo "schedfarm $v $args --json failed:"; cat a.err; return 1; }
			jq -e -s "length == 1" a.json >/dev/null ||
				{ echo "schedfarm $v $args --json: not JSON:"; head -c 400 a.json; return 1; }
			# shellcheck disable=SC2086
			schedfarm --json $v $args >b.json 2>b.err || refused_cancel b.json ||
				{ echo "schedfarm --json $v $args failed:"; cat b.err; return 1; }
			jq -e -s "length == 1" b.json >/dev/null ||
				{ echo "schedfarm --json $v $args: not JSON:"; head -c 400 b.json; return 1; }
			echo "ok: $v $args"
		done <f.$v
	done &&
	echo "$n forms" &&
	test "$n" -ge 20
'

test_expect_success 'the forms looped include those the issue named' '
	grep -q "^show k-json" f.kernel &&
	grep -q "^check " f.plan &&
	grep -q "^cancel $JOB" f.job &&
	test -s f.report &&
	grep -q "^$JOB" f.rerun
'

test_expect_success 'a verb without JSON refuses --json instead of printing text' '
	exit_is 2 schedfarm --json run quick.yaml --host here 2>err &&
	grep_or_fail "prints no JSON" err &&
	exit_is 2 schedfarm --json kernel boot k-json --host here 2>err
'

test_expect_success 'rerun of a plan under a kernel label says rerun_of null' '
	schedfarm rerun quick.yaml --host here --kernel k-rerun --json >r.json &&
	jq -e ".rerun_of == null and .host == \"here\" and (.job | type) == \"number\"" r.json
'

test_expect_success 'host show without --json is text with every field, not raw JSON' '
	schedfarm host show here >h.txt &&
	! grep -q "^{" h.txt &&
	grep -E "^name +here$" h.txt &&
	grep -E "^kind +local$" h.txt &&
	schedfarm host show here --json | jq -r "to_entries[] | select(.value != null) | .key" >keys &&
	while read -r k; do
		grep -q "^$k " h.txt || { echo "text lacks $k"; return 1; }
	done <keys
'

test_expect_success 'names that do not exist are errors that name them (exit 1)' '
	exit_is 1 schedfarm regressions --host nosuch 2>err &&
	grep_or_fail "no host named '\''nosuch'\''" err &&
	exit_is 1 schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --workload pipe-pingpnog 2>err &&
	grep_or_fail "no results of workload '\''pipe-pingpnog'\'' (their workloads: pipe-pingpong)" err &&
	exit_is 1 schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --host nosuch 2>err &&
	grep_or_fail "no host named '\''nosuch'\''" err &&
	exit_is 1 schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --host here 2>err &&
	grep_or_fail "no results on host '\''here'\'' (their hosts: ncrao-32bit)" err &&
	exit_is 1 schedfarm rerun 99999 --host here 2>err &&
	grep_or_fail "no job STP#99999" err &&
	exit_is 1 schedfarm rerun $JOB --host nosuch 2>err &&
	grep_or_fail "no host named '\''nosuch'\''" err &&
	exit_is 1 schedfarm host show nosuch 2>err && grep_or_fail "nosuch" err &&
	exit_is 1 schedfarm kernel show nosuch 2>err && grep_or_fail "nosuch" err &&
	exit_is 1 schedfarm job show 99999 2>err && grep_or_fail "99999" err &&
	exit_is 1 schedfarm changes --host nosuch 2>err &&
	grep_or_fail "no host named '\''nosuch'\''" err &&
	exit_is 1 schedfarm changes --host nosuch --suggest-tau 2>err
'

test_expect_success 'exit codes: cancelling a finished job fails, help --help is help' '
	exit_is 1 schedfarm job cancel $JOB >out 2>err &&
	grep_or_fail "had already finished: nothing to cancel" err &&
	test ! -s out &&
	exit_is 1 schedfarm job cancel $JOB --json >out 2>/dev/null &&
	jq -e ".cancelled == false" out &&
	exit_is 0 schedfarm help --help >out &&
	grep_or_fail "usage: schedfarm help" out
'

test_expect_success 'a mistyped verb or option: did you mean' '
	exit_is 2 schedfarm comapre 2>err &&
	grep_or_fail "did you mean '\''compare'\''" err &&
	exit_is 2 schedfarm results $JOB --metrci x 2>err &&
	grep_or_fail "did you mean '\''--metric'\''" err &&
	exit_is 2 schedfarm --jsno queue 2>err &&
	grep_or_fail "did you mean '\''--json'\''" err
'

test_expect_success 'kernel boot on a local host says why in words, no empty fields' '
	exit_is 1 schedfarm kernel boot k-json --host here >out 2>err &&
	grep_or_fail "only libvirt, ipmi and redfish hosts are booted" err &&
	! grep -q "health $" out &&
	test ! -s out
'

test_expect_success 'host check of a local host says it has nothing to boot, no --kernel advice' '
	exit_is 1 schedfarm host check here >out 2>err &&
	grep_or_fail "host here is of kind local: it runs the kernel it has" err &&
	grep_or_fail "schedfarm run plans/smoke.yaml --host here" err &&
	! grep -q -- "--kernel" err &&
	exit_is 1 schedfarm host check here --kernel k-json 2>err &&
	grep_or_fail "is of kind local" err
'

test_expect_success 'compare --exit-code: 1 on an imported regression, 0 on A/A' '
	exit_is 1 schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --exit-code >reg.txt &&
	grep -E "^summary: 1 regression, [0-9]+ improvements?, " reg.txt &&
	schedfarm compare --base aa-1 --new aa-2 --exit-code >aa.txt &&
	grep_or_fail "summary: 0 regressions, 0 improvements" aa.txt &&
	exit_is 0 schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight >plain.txt
'

test_expect_success 'compare --changes, --metric, --tau 2%, --no-store and --delete' '
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --changes --json >ch.json &&
	jq -e "length >= 1 and all(.[]; .verdict != \"no-change\")" ch.json &&
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --json >all.json &&
	test "$(jq length all.json)" -gt "$(jq length ch.json)" &&
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --metric "inst*" --json >m.json &&
	jq -e "length == 1 and .[0].metric == \"instructions\"" m.json &&
	exit_is 1 schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --metric "nosuch*" 2>err &&
	grep_or_fail "matches '\''nosuch*'\''" err &&
	schedfarm compare --base aa-1 --new aa-2 --tau 2% >/dev/null &&
	N=$(schedfarm db psql -- -At -c "SELECT count(*) FROM comparisons") &&
	schedfarm compare --base aa-1 --new aa-2 --no-store >/dev/null &&
	test "$(schedfarm db psql -- -At -c "SELECT count(*) FROM comparisons")" = "$N" &&
	schedfarm compare --delete --base aa-1 --new aa-2 >del.txt &&
	grep_or_fail "deleted 2 stored comparison rows" del.txt &&
	test "$(schedfarm db psql -- -At -c "SELECT count(*) FROM comparisons c JOIN kernels k ON k.id = c.new_kernel_id WHERE k.name = \$\$aa-2\$\$")" = 0 &&
	exit_is 1 schedfarm compare --delete --base aa-1 --new aa-2 2>err
'

test_expect_success 'compare lists a sweep in numeric order' '
	schedfarm compare --base sw-base --new sw-new --no-store --json >sw.json &&
	jq -e "[.[].params.threads] == [1, 2, 16, 128]" sw.json &&
	schedfarm compare --base sw-base --new sw-new --no-store >sw.txt &&
	grep "params threads=" sw.txt >order &&
	test "$(sed "s/.*threads=//" order | tr "\n" " ")" = "1 2 16 128 "
'

test_done
