#!/bin/sh
# t2001: the agent's command line - version, list (every workload, runnable
# or why not), info (one JSON object with the machine's facts), bad specs
# (one error line naming the field, status 2, nothing run), the results
# file and `cat`, and the lines' shape (strict JSON, run_id everywhere).
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
agent() { "$AGENT_BIN" "$@"; }

test_expect_success 'the agent is static and libc only' '
	file "$AGENT_BIN" >f && grep_or_fail "statically linked" f
'

test_expect_success 'version and usage' '
	agent version >v && grep_or_fail "schedfarm-agent " v &&
	! agent frobnicate 2>err && grep_or_fail "usage:" err &&
	agent frobnicate 2>/dev/null; test $? = 2
'

test_expect_success 'list names every workload with parameters and availability' '
	agent list >l &&
	for w in chat cpu-hog cyclictest fairness-loop hackbench kernbench memchunk numa-bw \
		perf-bench-sched perf-stat pipe-pingpong reaim schbench sysbench volanomark; do
		grep_or_fail "$w (" l || return 1
	done &&
	grep_or_fail "  metrics: latency_min_us, latency_avg_us, latency_p50_us, latency_p99_us" l &&
	grep_or_fail "  metrics: share.*, share_per_task.*, jain_index" l &&
	grep_or_fail "  groups           a string of at most 1024 bytes; default \"/a:5,/b:2\"" l &&
	grep_or_fail "duration         a duration in 1s..86400s" l &&
	grep_or_fail "tree             a string of at most 4096 bytes; default (required)" l &&
	sed -n "/^reaim/,/^[a-z]/p" l | grep_or_fail "runs here: no (reaim is not installed (not found in PATH))" /dev/stdin
'

test_expect_success 'list says when a wrapped program is missing' '
	PATH=/nonexistent "$AGENT_BIN" list >l2 &&
	sed -n "/^hackbench/,/^[a-z]/p" l2 >hb &&
	grep_or_fail "runs here: no (hackbench is not installed" hb
'

test_expect_success 'info is one JSON object with the machine facts' '
	agent info >info.json &&
	test "$(wc -l <info.json)" = 1 &&
	jq -e ".kernel.release == \"$(uname -r)\"" info.json &&
	jq -e ".cpus.online == $(nproc)" info.json &&
	jq -e ".cpus.sockets >= 1 and .cpus.cores >= 1 and .cpus.numa_nodes >= 1" info.json &&
	jq -e ".memory_kb > 0" info.json &&
	jq -e ".cgroup.mode | test(\"^(v1|v2|hybrid|none)$\")" info.json &&
	jq -e ".perf[\"context-switches\"] == \"supported\"" info.json &&
	jq -e ".perf.instructions | type == \"string\"" info.json &&
	if [ -r /proc/schedstat ]; then
		jq -e ".schedstat.available == true and .schedstat.version >= 15" info.json
	else
		jq -e ".schedstat.available == false and (.schedstat.note | test(\"CONFIG_SCHEDSTATS\"))" info.json
	fi
'

test_expect_success 'on a machine without a PMU hardware counters say unsupported' '
	if jq -e ".perf.cycles == \"supported\"" info.json >/dev/null; then
		echo "# this machine has a PMU: nothing to check"
	else
		jq -e ".perf.cycles | startswith(\"unsupported: \")" info.json
	fi
'

# bad_spec JSON FIELD MESSAGE: exit 2, one error line and a done line.
bad_spec() {
	printf "%s" "$1" >bad.json &&
	{ agent run bad.json >out; rc=$?; } ;
	test "$rc" = 2 || { echo "exit $rc"; cat out; return 1; }
	test "$(wc -l <out)" = 2 || { cat out; return 1; }
	head -n 1 out | jq -e ".type == \"error\" and (.field // \"\") == \"$2\"" >/dev/null || { cat out; return 1; }
	head -n 1 out | jq -r .message >msg && grep_or_fail "$3" msg &&
	tail -n 1 out | jq -e ".type == \"done\" and .status == \"bad-spec\"" >/dev/null
}

test_expect_success 'bad specs name the field and run nothing' '
	bad_spec "{\"run_id\":5,\"workload\":\"memchunk\",\"params\":{\"duration\":\"forever\"}}" params.duration "expected a duration" &&
	bad_spec "{\"run_id\":5,\"workload\":\"chat\",\"params\":{\"rooms\":-1}}" params.rooms "an integer in 1..1000" &&
	bad_spec "{\"run_id\":5,\"workload\":\"warp\"}" workload "no workload named" &&
	bad_spec "{\"workload\":\"chat\"}" run_id "required" &&
	bad_spec "{\"run_id\":5,\"workload\":\"chat\",\"cgroups\":[{\"path\":\"a\"}]}" "cgroups[0].path" "starting with" &&
	bad_spec "{\"run_id\":5,\"workload\":\"chat\"} trailing" "" "trailing characters" &&
	bad_spec "{\"run_id\":5,\"workload\":\"chat\",\"iterations\":NaN}" "" "unexpected character"
'

test_expect_success 'an unreadable spec is a bad-spec answer too' '
	agent run "$SCRATCH/nope.json" >out; test $? = 2 &&
	jq -e "select(.type == \"done\") | .status == \"bad-spec\"" out
'

test_expect_success 'a run writes strict JSON lines, the same to stdout and the file' '
	cat >spec.json <<-EOF &&
	{"run_id": 77, "workload": "memchunk", "iterations": 2, "warmup": 1,
	 "params": {"duration": "1s", "short_threads": 1, "long_threads": 1},
	 "results_file": "$SCRATCH/r.jsonl"}
	EOF
	agent run spec.json >out 2>err &&
	cmp out r.jsonl &&
	jq -e -s "all(.[]; .run_id == 77 and (.type | type == \"string\"))" out &&
	test "$(jq -s "[.[] | select(.type == \"hello\")] | length" out)" = 1 &&
	jq -e -s "[.[] | select(.type == \"hello\")][0].info.cpus.online >= 1" out &&
	test "$(jq -s "[.[] | select(.type == \"result\" and .metric == \"records_per_s\")] | length" out)" = 3 &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"records_per_s\")] | (.[0].warmup == true and .[0].iteration == 0 and .[1].warmup == false and .[2].iteration == 2)" out &&
	jq -e -s "[.[] | select(.type == \"result\")] | all(.[]; (.value | type == \"number\") and (.direction | test(\"^(higher|lower|none)$\")))" out &&
	tail -n 1 out | jq -e ".type == \"done\" and .status == \"ok\" and .agent_cpu_s >= 0 and .elapsed_s > 0"
'

test_expect_success 'cat prints the results file back; a second run appends' '
	agent cat r.jsonl >back && cmp back r.jsonl &&
	n=$(wc -l <r.jsonl) &&
	agent run spec.json >/dev/null &&
	test "$(wc -l <r.jsonl)" = $((2 * n)) &&
	! agent cat "$SCRATCH/missing.jsonl" 2>err && grep_or_fail "cannot open" err
'

test_expect_success 'without schedstat the counter line says unavailable and why' '
	if [ -r /proc/schedstat ]; then
		jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\" and .name == \"run_delay_ns\")] | length > 0" out
	else
		jq -e -s "[.[] | select(.type == \"counter\" and .source == \"schedstat\")] | length == 3 and all(.[]; .available == false and (.note | test(\"CONFIG_SCHEDSTATS\")))" out
	fi
'

test_expect_success '/proc/stat and children counters come with each iteration' '
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"stat\" and .name == \"ctxt\")] | length == 3" out &&
	jq -e -s "[.[] | select(.type == \"counter\" and .source == \"task\" and .scope == \"children\" and .name == \"user_s\")] | all(.[]; .value > 0)" out
'

test_done
