#!/bin/sh
# t2007: together runs on this machine (cgroup v1): two fairness-style CPU
# hogs, 3 loops in /a and 1 in /b, started at one barrier and sampled in
# the same windows, get half the CPU each at equal weight and 2:1 at
# weights 200/100; seed 001's kernel compiles at the same time in two
# cgroups (plans/kernbench-two-cgroups.yaml, pointed by --set at a small
# tree: the agent's own sources) report both elapsed times and their
# ratio; a background neighbour runs until the measured
# member ends; a member that fails stops the others; nothing is left
# behind.  The guest half (cgroup v2) is t2010.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
# Where no cgroup hierarchy is mounted the agent mounts its own (root).
need_cgroups
[ "$(nproc)" = 2 ] || skip_all "the expected shares are for 2 CPUs; this machine has $(nproc)"

# metric NAME FILE: the value of result NAME (measured iteration)
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\" and .warmup == false)][0].value" "$2"
}
# within VALUE WANT TOL
within() {
	awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "$1 is not within $3 of $2"; return 1; }
}
leftovers() {
	for m in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpuacct /sys/fs/cgroup/cpuset /sys/fs/cgroup/unified /sys/fs/cgroup; do
		ls -d "$m"/schedfarm-"$1"-* 2>/dev/null
	done
}
# hogs RUN_ID WEIGHT_A WEIGHT_B: 3 loops in /a, 1 in /b, for 5 s
hogs() {
	cat <<-EOF
	{"run_id": $1, "parent_weight": 10000, "sample_ms": 500,
	 "together": [
	   {"name": "a", "workload": "cpu-hog", "params": {"tasks": 3, "duration": "5s", "cgroup": "/a"}},
	   {"name": "b", "workload": "cpu-hog", "params": {"tasks": 1, "duration": "5s", "cgroup": "/b"}}],
	 "cgroups": [{"path": "/a", "weight": $2}, {"path": "/b", "weight": $3}]}
	EOF
}

test_expect_success '3 loops in /a and 1 in /b at equal weight: half the CPU each' '
	hogs 2007001 100 100 >spec.json &&
	"$AGENT_BIN" run spec.json >out 2>err &&
	tail -n 1 out | jq -e ".status == \"ok\"" &&
	a=$(metric share.a out) && b=$(metric share.b out) &&
	say "shares: /a $a%, /b $b% (3 loops against 1)" &&
	within "$a" 50 10 && within "$b" 50 10 &&
	within "$(metric jain_index out)" 1 0.05 &&
	test "$(leftovers 2007001)" = ""
'

test_expect_success 'each member reports under its name, the run its cross-group figures' '
	for m in a.cpu_pct a.cpu_pct_per_task b.cpu_pct elapsed_s.a elapsed_s.b \
		cpu_pct.a cpu_pct.b elapsed_ratio window_s max_min_ratio; do
		v=$(metric $m out) && test "$v" != null ||
			{ echo "no result $m"; return 1; }
	done &&
	within "$(metric window_s out)" 5 1.5 &&
	awk -v a="$(metric a.cpu_pct out)" "BEGIN { exit !(a > 60 && a < 140) }"
'

test_expect_success 'both groups sampled in the same windows' '
	jq -r "select(.type == \"sample\") | .series" out | sort | uniq -c >series &&
	grep -q " cpu_pct.a$" series && grep -q " cpu_pct.b$" series &&
	jq -r "select(.type == \"sample\" and .series == \"cpu_pct.a\") | .t" out >ta &&
	jq -r "select(.type == \"sample\" and .series == \"cpu_pct.b\") | .t" out >tb &&
	diff ta tb && test "$(wc -l <ta)" -ge 8
'

test_expect_success 'weights 200/100 give about 2:1' '
	hogs 2007002 200 100 >spec2.json &&
	"$AGENT_BIN" run spec2.json >out2 2>err &&
	a=$(metric share.a out2) && b=$(metric share.b out2) &&
	say "shares: /a $a%, /b $b% (weights 200/100)" &&
	awk -v a="$a" -v b="$b" "BEGIN { exit !(b > 0 && a / b > 1.6 && a / b < 2.5) }" &&
	within "$(metric jain_index out2)" 1 0.05
'

test_expect_success 'plans/kernbench-two-cgroups.yaml: compiles in /a and /b at the same time, both elapsed times, their ratio' '
	for t in a b; do
		mkdir -p tree-$t obj-$t &&
		cp "$TOP"/agent/*.c "$TOP"/agent/*.h "$TOP"/common/*.h tree-$t/ || return 1
		printf "%s\n" "SRC := \$(wildcard *.c)" "OBJ := \$(SRC:.c=.o)" \
			"vmlinux: \$(OBJ)" "	touch \$@" "%.o: %.c" \
			"	\$(CC) -O0 -D_GNU_SOURCE -I. -c \$< -o \$@" \
			"clean:" "	rm -f *.o vmlinux" >tree-$t/Makefile
	done &&
	schedfarm plan expand --json --set iterations=1 --set warmup=0 \
		--set "workloads[0].together[0].params.tree=$SCRATCH/tree-a" \
		--set "workloads[0].together[0].params.objdir=$SCRATCH/obj-a" \
		--set "workloads[0].together[1].params.tree=$SCRATCH/tree-b" \
		--set "workloads[0].together[1].params.objdir=$SCRATCH/obj-b" \
		"$TOP/plans/kernbench-two-cgroups.yaml" >kb-runs.json &&
	jq -e "length == 2 and .[0].params[\"a.jobs\"] == 8 and .[0].params[\"b.jobs\"] == 16" kb-runs.json &&
	jq -c ".[0].spec + {run_id: 2007003, parent_weight: 10000, cgroups: [{path: \"/a\", weight: 100}, {path: \"/b\", weight: 100}]}" kb-runs.json >kb.json &&
	"$AGENT_BIN" run kb.json >kb 2>err &&
	tail -n 1 kb | jq -e ".status == \"ok\"" &&
	ea=$(metric a.elapsed_s kb) && eb=$(metric b.elapsed_s kb) &&
	r=$(metric elapsed_ratio kb) &&
	say "make -j8 in /a: $ea s, make -j16 in /b: $eb s, ratio $r" &&
	awk -v a="$ea" -v b="$eb" -v r="$r" -v ta="$(metric elapsed_s.a kb)" "BEGIN {
		m = a > b ? a / b : b / a
		exit !(a > 0 && b > 0 && r >= 1 && ta >= a && (r - m) / m < 0.5) }" &&
	test -f tree-a/vmlinux && test -f tree-b/vmlinux &&
	for m in a.user_s b.user_s a.cpu_pct b.cpu_pct share.a share.b jain_index; do
		test "$(metric $m kb)" != null || { echo "no $m"; return 1; }
	done &&
	# The CPU of each compile is its own (the members run in threads of one
	# process, whose RUSAGE_CHILDREN has both): user + system of each
	# within a third of the usage of its cgroup, which counts only it.
	for t in a b; do
		cg=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/$t\" and .name == \"usage_ns\")][0].value" kb) &&
		cpu=$(awk -v u="$(metric $t.user_s kb)" -v s="$(metric $t.system_s kb)" "BEGIN { print u + s }") &&
		say "/$t: user+system of make $cpu s, its cgroup $cg ns" &&
		awk -v c="$cpu" -v g="$cg" "BEGIN { g /= 1e9; exit !(g > 0 && c > g * 2 / 3 && c < g * 4 / 3) }" ||
			{ echo "/$t: $cpu s of CPU against a cgroup usage of $cg ns"; return 1; }
	done &&
	test "$(leftovers 2007003)" = ""
'

test_expect_success 'a background neighbour runs until the measured member ends' '
	cat >bg.json <<-EOF &&
	{"run_id": 2007004, "iterations": 2, "parent_weight": 10000,
	 "together": [
	   {"name": "m", "workload": "cpu-hog", "params": {"tasks": 1, "duration": "2s", "cgroup": "/m"}},
	   {"name": "n", "workload": "cpu-hog", "background": true, "params": {"tasks": 2, "duration": "1h", "cgroup": "/n"}}]}
	EOF
	start=$(date +%s) &&
	"$AGENT_BIN" run bg.json >bg 2>err &&
	test $(( $(date +%s) - start )) -lt 30 &&
	tail -n 1 bg | jq -e ".status == \"ok\"" &&
	test "$(jq -s "[.[] | select(.type == \"result\" and .metric == \"n.passes\")] | length" bg)" = 2 &&
	test "$(jq -s "[.[] | select(.type == \"result\" and (.metric | startswith(\"n.cpu\")))] | length" bg)" = 0 &&
	awk -v n="$(metric cpu_pct.n bg)" "BEGIN { exit !(n > 20) }" &&
	test "$(metric elapsed_s.n bg)" = null &&
	test "$(leftovers 2007004)" = ""
'

test_expect_success 'a single workload the agent samples (sample_ms)' '
	printf "{\"run_id\":2007005,\"parent_weight\":10000,\"sample_ms\":200,\"workload\":\"cpu-hog\",\"params\":{\"tasks\":1,\"duration\":\"2s\",\"cgroup\":\"/s\"}}" >one.json &&
	"$AGENT_BIN" run one.json >one 2>err &&
	tail -n 1 one | jq -e ".status == \"ok\"" &&
	test "$(jq -s "[.[] | select(.type == \"sample\" and .series == \"cpu_pct\")] | length" one)" -ge 8 &&
	test "$(metric cpu_pct one)" != null && test "$(metric share.s one)" = null
'

test_expect_success 'a member that fails fails the run, stops the others, says which' '
	cat >bad.json <<-EOF &&
	{"run_id": 2007006, "parent_weight": 10000,
	 "together": [
	   {"name": "ok", "workload": "cpu-hog", "params": {"tasks": 1, "duration": "30s", "cgroup": "/x"}},
	   {"name": "broken", "workload": "kernbench", "params": {"tree": "$SCRATCH/tree-a", "target": "no-such-target", "clean": false, "cgroup": "/y"}}]}
	EOF
	start=$(date +%s) &&
	"$AGENT_BIN" run bad.json >bad 2>err;
	test $? = 1 &&
	test $(( $(date +%s) - start )) -lt 20 &&
	tail -n 1 bad | jq -e ".status == \"failed\"" &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | contains(\"member broken (kernbench) failed: make exited\") and contains(\"no-such-target\")" bad &&
	test "$(leftovers 2007006)" = ""
'

test_expect_success 'interrupted: every member and its loops are gone, the groups removed' '
	hogs 2007007 100 100 | sed "s/5s/60s/g" >long.json &&
	"$AGENT_BIN" run long.json >long 2>err &
	pid=$! &&
	wait_for "pgrep -f \"schedfarm-agent __spin\"" 20 &&
	kill -TERM $pid && wait $pid;
	tail -n 1 long | jq -e ".status == \"interrupted\"" &&
	test "$(leftovers 2007007)" = "" &&
	! pgrep -f "schedfarm-agent __spin" >/dev/null
'

test_expect_success 'bad together specs are refused before anything runs' '
	printf "{\"run_id\":1,\"together\":[{\"name\":\"a\",\"workload\":\"cpu-hog\",\"params\":{\"cgroup\":\"/x\"}},{\"name\":\"b\",\"workload\":\"cpu-hog\",\"params\":{\"cgroup\":\"/x/y\"}}]}" >s1 &&
	"$AGENT_BIN" run s1 >o1; test $? = 2 &&
	jq -e -s ".[0].field == \"together[1].params.cgroup\"" o1 &&
	printf "{\"run_id\":1,\"together\":[{\"name\":\"share\",\"workload\":\"cpu-hog\"}]}" >s2 &&
	"$AGENT_BIN" run s2 >o2; test $? = 2 &&
	jq -e -s ".[0].field == \"together[0].name\"" o2 &&
	printf "{\"run_id\":1,\"together\":[{\"name\":\"a\",\"workload\":\"cpu-hog\",\"background\":true}]}" >s3 &&
	"$AGENT_BIN" run s3 >o3; test $? = 2 &&
	jq -e -s ".[0].message | test(\"at least one must be measured\")" o3
'

test_done
