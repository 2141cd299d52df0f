#!/bin/sh
# t4003: what `plan expand --json` gives is what the agent runs.  Each run
# of plans/smoke.yaml becomes a run spec (doc/PROTOCOL.md) with the plan's
# params object, iterations, warm-up and cgroup layout, and the real agent
# runs it to a `done` line with status ok and one result line per metric
# per iteration -- in a few seconds, as the queue tests need.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed"

test_expect_success 'smoke expands to specs the agent runs to done/ok' '
	schedfarm plan expand --json "$TOP/plans/smoke.yaml" >runs.json &&
	test "$(jq length runs.json)" = 2 &&
	start=$(date +%s) &&
	for i in 0 1; do
		jq --argjson i $i --arg out "$SCRATCH/run$i.jsonl" \
			"{run_id: (\$i + 1), workload: .[\$i].workload,
			  params: .[\$i].params, iterations: 2, warmup: 1,
			  cgroups: [], results_file: \$out, deadline_s: 60}" \
			runs.json >spec$i.json &&
		"$AGENT_BIN" run spec$i.json >lines$i 2>err$i ||
			{ echo "agent failed on run $i:"; cat err$i lines$i; return 1; }
		grep -q "\"type\":\"done\".*\"status\":\"ok\"" lines$i ||
			{ echo "run $i did not end ok:"; cat lines$i; return 1; }
		jq -r "select(.type == \"result\") | .iteration" lines$i | sort -u >iters$i &&
		printf "0\n1\n2\n" >want &&
		diff -u want iters$i || return 1
	done &&
	grep -q "\"metric\":\"records_per_s\"" lines0 &&
	grep -q "\"metric\":\"round_trip_us\"" lines1 &&
	test $(( $(date +%s) - start )) -le 20
'

test_done
