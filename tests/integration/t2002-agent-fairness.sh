#!/bin/sh
# t2002: fairness-loop reproduces seed 001 - 5 busy loops in /a and 2 in /b
# with equal weights on a 2-CPU machine give about 20% per /a task and 50%
# per /b task (+-10 points) - and weights, quotas (cpu_max_pct) and
# cpusets (cpus) move the split as they should.
# Needs root and a cgroup cpu controller (v1 here, v2 in guests; mounted
# by the agent itself where none is, as t2014 checks); the run's
# own parent group gets a high weight so other work on a shared machine does
# not take the CPUs the test measures.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
# Where no cgroup hierarchy is mounted the agent mounts its own (root).
need_cgroups
[ "$(nproc)" = 2 ] || skip_all "the seed's figures are for 2 CPUs; this machine has $(nproc)"

# metric NAME FILE: the value of result NAME
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\")][0].value" "$2"
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

test_expect_success '5 loops in /a and 2 in /b: about 20% and 50% per task' '
	cat >spec.json <<-EOF &&
	{"run_id": 2002001, "workload": "fairness-loop",
	 "params": {"groups": "/a:5,/b:2", "duration": "6s", "sample_interval": "200ms"},
	 "cgroups": [{"path": "/a", "weight": 100}, {"path": "/b", "weight": 100}],
	 "parent_weight": 10000}
	EOF
	"$AGENT_BIN" run spec.json >out 2>err &&
	tail -n 1 out | jq -e ".status == \"ok\"" &&
	a=$(metric share_per_task./a out) && b=$(metric share_per_task./b out) &&
	say "per task: /a $a%, /b $b% (seed 001: 20%, 50%)" &&
	within "$a" 20 10 && within "$b" 50 10 &&
	for t in 0 1 2 3 4; do within "$(metric share./a/task$t out)" 20 10 || return 1; done &&
	for t in 5 6; do within "$(metric share./b/task$t out)" 50 10 || return 1; done &&
	within "$(metric jain_index out)" 1 0.05
'

test_expect_success 'the loops really ran in the groups (cgroup usage = their CPU time)' '
	ua=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/a\")][0].value" out) &&
	ta=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"task\" and (.scope | startswith(\"/a/\")) and .name == \"run_ns\")] | map(.value) | add" out) &&
	say "cgroup /a usage $ua ns, its tasks $ta ns" &&
	awk -v u="$ua" -v t="$ta" "BEGIN { exit !(u > 0 && u >= 0.9 * t && u <= 1.1 * t) }"
'

test_expect_success 'time series: per task and per group, about 30 samples' '
	n=$(jq -s "[.[] | select(.type == \"sample\" and .series == \"share./b\")] | length" out) &&
	test "$n" -ge 25 && test "$n" -le 31 &&
	jq -e -s "[.[] | select(.type == \"sample\" and .series == \"share./a/task4\")] | length == $n" out &&
	jq -e -s "[.[] | select(.type == \"sample\")] | all(.[]; .t > 0 and .t <= 6.5 and .value >= 0)" out &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"converge_s\")][0].value < 6.5" out
'

test_expect_success 'the run left no cgroup behind' '
	test -z "$(leftovers 2002001)"
'

test_expect_success 'weights split the CPUs: 200 vs 100 gives 2:1' '
	cat >spec2.json <<-EOF &&
	{"run_id": 2002002, "workload": "fairness-loop",
	 "params": {"groups": "/hi:2:200,/lo:2:100", "duration": "5s", "sample_interval": "1s"},
	 "parent_weight": 10000}
	EOF
	"$AGENT_BIN" run spec2.json >out2 2>err &&
	hi=$(metric share_per_task./hi out2) && lo=$(metric share_per_task./lo out2) &&
	say "per task: /hi $hi%, /lo $lo% (expected 66.7%, 33.3%)" &&
	within "$hi" 66.7 10 && within "$lo" 33.3 10 &&
	test -z "$(leftovers 2002002)"
'

test_expect_success 'cpu_max_pct caps a group: one loop at 30% of a CPU' '
	cat >spec3.json <<-EOF &&
	{"run_id": 2002003, "workload": "fairness-loop",
	 "params": {"groups": "/q:1", "duration": "3s", "sample_interval": "1s"},
	 "cgroups": [{"path": "/q", "cpu_max_pct": 30}], "parent_weight": 10000}
	EOF
	"$AGENT_BIN" run spec3.json >out3 2>err &&
	q=$(metric share./q out3) && say "capped group: $q%" &&
	within "$q" 30 5 &&
	test -z "$(leftovers 2002003)"
'

test_expect_success 'cpus pins a group: two loops on CPU 0 share it, 50% each' '
	cat >spec4.json <<-EOF &&
	{"run_id": 2002004, "workload": "fairness-loop",
	 "params": {"groups": "/p:2", "duration": "3s", "sample_interval": "1s"},
	 "cgroups": [{"path": "/p", "cpus": "0"}], "parent_weight": 10000}
	EOF
	"$AGENT_BIN" run spec4.json >out4 2>err &&
	p=$(metric share./p out4) && say "pinned group: $p%" &&
	within "$p" 100 15 &&
	within "$(metric share./p/task0 out4)" 50 10 &&
	test -z "$(leftovers 2002004)"
'

test_done
