#!/bin/sh
# t2008: any command as a workload.  A plan defines it (argv, timeout,
# parser, metrics with unit and direction), `plan expand --json` turns it
# into the spec the agent gets, and the real agent runs it: sysbench cpu
# through the regex parser of plans/workloads/sysbench-cpu-regex.yaml
# reports the same metrics as the built-in sysbench wrapper; made-up
# scripts printing JSON lines, key: value lines and CSV give their
# numbers; hostile output (an oversized line, NaN, a missing field, not
# JSON, a ragged CSV row, too much output, a failing exit) fails the run
# cleanly with the line quoted; a command past its timeout is killed with
# everything it started, and the run fails saying so.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

# script NAME BODY: an executable shell script in the scratch folder
script() {
	printf '#!/bin/sh\n%s\n' "$2" >"$SCRATCH/$1" && chmod 755 "$SCRATCH/$1"
}
# spec PLAN INDEX RUN_ID: the spec of run INDEX of PLAN, as the queue makes it
spec() {
	schedfarm plan expand --json "$1" >runs.json &&
	jq -c --argjson i "$2" --argjson id "$3" '.[$i].spec + {run_id: $id}' runs.json
}
# results FILE: "metric value unit direction" lines, sorted
results() {
	jq -r 'select(.type == "result") | "\(.metric) \(.unit) \(.direction)"' "$1" | sort
}

if command -v sysbench >/dev/null; then
test_expect_success 'sysbench cpu through the regex parser: the built-in wrapper metrics' '
	cp -r "$TOP/plans/workloads" . &&
	cat >sb.yaml <<-EOF &&
	include: [workloads/sysbench-cpu-regex.yaml]
	workloads:
	  - workload: sysbench-cpu-regex
	    params: {threads: 1, time: 2s}
	  - workload: sysbench
	    params: {test: cpu, threads: 1, time: 2s}
	EOF
	spec sb.yaml 0 1 >cmd.json &&
	spec sb.yaml 1 2 >builtin.json &&
	jq -e ".command.argv == [\"sysbench\",\"cpu\",\"--threads=1\",\"--time=2\",\"run\"]" cmd.json &&
	"$AGENT_BIN" run cmd.json >cmd.out 2>err &&
	"$AGENT_BIN" run builtin.json >builtin.out 2>err &&
	tail -n 1 cmd.out | jq -e ".status == \"ok\"" &&
	results cmd.out >a && results builtin.out >b &&
	diff -u b a &&
	test "$(wc -l <a)" = 7 &&
	c=$(jq -r "select(.type == \"result\" and .metric == \"events_per_s\") | .value" cmd.out) &&
	w=$(jq -r "select(.type == \"result\" and .metric == \"events_per_s\") | .value" builtin.out) &&
	say "events/s: command $c, built-in $w" &&
	awk -v c="$c" -v w="$w" "BEGIN { exit !(c > 0 && w > 0 && c / w > 0.2 && c / w < 5) }"
'
else
	test_skip 'sysbench cpu through the regex parser' "sysbench not installed (make deps)"
fi

test_expect_success 'a made-up script printing JSON lines, with a parameter' '
	script jl "for i in 1 2 \$1; do echo \"{\\\"ops\\\": \$i.5, \\\"lat\\\": {\\\"x\\\": 1}, \\\"p99\\\": 2\$i}\"; done" &&
	cat >jl.yaml <<-EOF &&
	commands:
	  jl:
	    command: ["$SCRATCH/jl", "{n}"]
	    timeout: 30s
	    params:
	      n: {type: integer, min: 1, max: 100, default: 3}
	    parse: {format: jsonl}
	    metrics:
	      ops_per_s: {key: ops, unit: 1/s, direction: higher}
	      p99_us: {key: p99, unit: us, direction: lower}
	workload: jl
	params: {n: [7, 9]}
	EOF
	spec jl.yaml 1 3 >jl.json &&
	"$AGENT_BIN" run jl.json >jl.out 2>err &&
	tail -n 1 jl.out | jq -e ".status == \"ok\"" &&
	jq -e -s "[.[] | select(.type == \"result\")] | map({(.metric): [.value, .unit, .direction]}) | add == {\"ops_per_s\": [9.5, \"1/s\", \"higher\"], \"p99_us\": [29, \"us\", \"lower\"]}" jl.out
'

test_expect_success 'key: value lines and CSV with a header' '
	script kv "echo noise; echo \"rate : 12.5 ops/s\"; echo \"lat: 3\"" &&
	script csv "printf \"name,rate,lat\\na,1,2\\nb, 3 ,\\\"4\\\"\\n\"" &&
	cat >kv.yaml <<-EOF &&
	commands:
	  kv:
	    command: ["$SCRATCH/kv"]
	    parse: {format: keyvalue}
	    metrics: {rate: {direction: higher}, lat: {unit: ms, direction: lower}}
	  csv:
	    command: ["$SCRATCH/csv"]
	    parse: {format: csv}
	    metrics: {rate: {direction: higher}, lat: {direction: lower}}
	workloads:
	  - workload: kv
	  - workload: csv
	EOF
	spec kv.yaml 0 4 >kv.json && spec kv.yaml 1 5 >csv.json &&
	"$AGENT_BIN" run kv.json >kv.out && "$AGENT_BIN" run csv.json >csv.out &&
	jq -e -s "[.[] | select(.type == \"result\") | .value] == [12.5, 3]" kv.out &&
	jq -e -s "[.[] | select(.type == \"result\") | .value] == [3, 4]" csv.out
'

# hostile NAME FORMAT BODY EXPECT: the run fails, its error says EXPECT
hostile() {
	script "$1" "$3" &&
	cat >"$1.yaml" <<-EOF &&
	commands:
	  h:
	    command: ["$SCRATCH/$1"]
	    parse: {format: $2}
	    metrics: {rate: {direction: higher}, lat: {direction: lower}}
	workload: h
	EOF
	spec "$1.yaml" 0 9 >"$1.json" &&
	{ "$AGENT_BIN" run "$1.json" >"$1.out" 2>"$1.err"; test $? = 1; } &&
	tail -n 1 "$1.out" | jq -e ".status == \"failed\"" &&
	test "$(jq -s "[.[] | select(.type == \"result\")] | length" "$1.out")" = 0 &&
	jq -r "select(.type == \"error\") | .message" "$1.out" >"$1.msg" &&
	grep_or_fail "$4" "$1.msg"
}

test_expect_success 'hostile output fails the run cleanly, the line quoted' '
	hostile nan jsonl "echo {\\\"rate\\\": 1}; echo {\\\"rate\\\": \\\"NaN\\\", \\\"lat\\\": 2}" \
		"h: bad output: line 2: \"{\"rate\": \"NaN\", \"lat\": 2}\": field '"'"'rate'"'"' is a string, not a number" &&
	hostile kvnan keyvalue "echo rate: NaN; echo lat: 1" \
		"line 1: \"rate: NaN\": the value of '"'"'rate'"'"' is not a finite number" &&
	hostile missing keyvalue "echo rate: 5" \
		"the output gives no value for metric '"'"'lat'"'"'" &&
	hostile notjson jsonl "echo {\\\"rate\\\": 1, \\\"lat\\\": 1}; echo oops" \
		"line 2: \"oops\": not a JSON object" &&
	hostile ragged csv "printf \"rate,lat\\n1\\n\"" \
		"line 2: \"1\": 1 fields where the header has 2" &&
	hostile long keyvalue "head -c 100000 /dev/zero | tr \"\\\\0\" x; echo" \
		"line 1: \"xxxxxxxx" &&
	grep_or_fail "a line of 100000 bytes, more than 65536" long.msg &&
	hostile huge keyvalue "yes rate: 1 | head -c 20000000" \
		"printed more than the 16 MiB a command may" &&
	hostile exit keyvalue "echo rate: 1; echo lat: 2; exit 3" \
		"exited with status 3"
'

# slow NAME BODY MAX_S: a command running BODY under the smallest timeout
# a plan allows (1s) is killed: the run fails within MAX_S seconds with an
# error naming the timeout and no results, and no process whose command
# line holds this scratch folder's t2008- marker is left.  BODY starts two
# $SCRATCH/t2008-sleeper (a copy of sleep, so the marker is in its command
# line), one in the background; both are seen running before the timeout,
# so the last check cannot pass on a marker that never matched.
slow() {
	script "t2008-$1" "$2" &&
	cat >"$1.yaml" <<-EOF &&
	commands:
	  slow:
	    command: ["$SCRATCH/t2008-$1"]
	    timeout: 1s
	    parse: {format: keyvalue}
	    metrics: {rate: {direction: higher}}
	workload: slow
	EOF
	spec "$1.yaml" 0 11 >"$1.json" &&
	jq -e ".command.timeout_ms == 1000" "$1.json" >/dev/null &&
	start=$(date +%s) &&
	{ "$AGENT_BIN" run "$1.json" >"$1.out" 2>"$1.err" & } &&
	pid=$! &&
	wait_for "test \$(pgrep -c -f \"$SCRATCH/t2008-sleeper\") = 2" 5 &&
	{ wait $pid; test $? = 1; } &&
	took=$(( $(date +%s) - start )) &&
	say "$1: the run ended after ${took}s" &&
	test "$took" -le "$3" &&
	tail -n 1 "$1.out" | jq -e ".status == \"failed\"" &&
	test "$(jq -s "[.[] | select(.type == \"result\")] | length" "$1.out")" = 0 &&
	jq -r "select(.type == \"error\") | .message" "$1.out" >"$1.msg" &&
	grep_or_fail "$SCRATCH/t2008-$1 timed out after 1 s" "$1.msg" &&
	# An orphan killed with the group may still be exiting as the agent
	# returns; it has seconds, not the 60 it asked for.
	wait_for "! pgrep -f \"$SCRATCH/t2008-\"" 3 || {
		pgrep -a -f "$SCRATCH/t2008-"
		false
	}
}

test_expect_success 'a command past its timeout is killed, with what it started' '
	cp "$(command -v sleep)" "$SCRATCH/t2008-sleeper" &&
	"$SCRATCH/t2008-sleeper" 0 &&
	slow term "\"$SCRATCH/t2008-sleeper\" 60 & \"$SCRATCH/t2008-sleeper\" 60; echo rate: 1" 6 &&
	slow stubborn "trap \"\" TERM; \"$SCRATCH/t2008-sleeper\" 60 & \"$SCRATCH/t2008-sleeper\" 60; echo rate: 1" 8
'

test_expect_success 'a command that is not installed: the run says so, nothing runs' '
	cat >nope.yaml <<-EOF &&
	commands:
	  nope:
	    command: [no-such-benchmark-program, --fast]
	    parse: {format: keyvalue}
	    metrics: {x: {direction: higher}}
	workload: nope
	EOF
	spec nope.yaml 0 10 >nope.json &&
	"$AGENT_BIN" run nope.json >nope.out;
	test $? = 1 &&
	jq -e -s "[.[] | select(.type == \"error\")][0] | .field == \"workload\" and (.message | test(\"nope: no-such-benchmark-program is not installed\"))" nope.out
'

test_expect_success 'a hostile spec command is refused before anything runs' '
	printf "{\"run_id\":1,\"command\":{\"name\":\"x\",\"argv\":[\"true\"],\"format\":\"regex\",\"patterns\":[\"(?=x)\"],\"metrics\":[{\"name\":\"a\",\"key\":\"a\",\"unit\":\"\",\"direction\":\"higher\"}]}}" >bad.json &&
	"$AGENT_BIN" run bad.json >bad.out; test $? = 2 &&
	jq -e -s ".[0].field == \"command.patterns[0]\" and (.[0].message | test(\"unsupported construct\"))" bad.out
'

test_done
