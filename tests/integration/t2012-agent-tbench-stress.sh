#!/bin/sh
# t2012: tbench (dbench's tbench_srv + tbench on loopback, a client count
# per metric) and stress-ng's scheduler stressors (--metrics --yaml), run
# for real and briefly by the agent; a stressor that is not a scheduler
# one is refused before anything runs; then both through the controller
# on the local host, twice under two kernel labels, their metrics stored
# and compared.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v tbench >/dev/null && command -v tbench_srv >/dev/null ||
	skip_all "tbench not installed (make deps: Debian package dbench)"
command -v stress-ng >/dev/null ||
	skip_all "stress-ng not installed (make deps)"

run() {
	printf "%s" "$1" | "$AGENT_BIN" run - >"$2" 2>"$2.err" ||
		{ cat "$2" "$2.err"; return 1; }
	tail -n 1 "$2" | jq -e ".type == \"done\" and .status == \"ok\"" >/dev/null ||
		{ cat "$2"; return 1; }
}
metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\")][0].value" "$2"
}
positive() {
	awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }' || { echo "not positive: $1"; return 1; }
}
CG_OK=
[ "$(id -u)" = 0 ] && [ "$("$AGENT_BIN" info | jq -r ".cgroup.used // \"none\"")" != none ] && CG_OK=1

test_expect_success 'tbench: one throughput per client count, the server stopped after' '
	run "{\"run_id\":1,\"workload\":\"tbench\",\"params\":{\"clients\":\"1,2\",\"duration\":\"2s\"}}" tb &&
	positive "$(metric throughput_mb_s.1 tb)" &&
	positive "$(metric throughput_mb_s.2 tb)" &&
	test "$(metric max_latency_ms.2 tb)" != null &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"throughput_mb_s.1\")][0] | .unit == \"MB/s\" and .direction == \"higher\"" tb &&
	# its per-connection children get the TERM with it and end just after
	wait_for "! pgrep -x tbench_srv" 5 || { pgrep -a -x tbench_srv; false; }
'

test_expect_success 'tbench: "auto" sweeps 1, 2, 4, ... up to 2 x CPUs' '
	n=$(nproc) && want=$(awk -v n="$n" "BEGIN { for (c = 1; c < 2 * n; c *= 2) printf \"%d \", c; print 2 * n }") &&
	echo "{\"run_id\":2,\"workload\":\"tbench\",\"params\":{\"duration\":\"2s\"}}" >spec &&
	if [ "$n" -le 4 ]; then
		run "$(cat spec)" ta &&
		got=$(jq -r -s "[.[] | select(.type == \"result\" and (.metric | startswith(\"throughput_mb_s.\"))) | .metric | ltrimstr(\"throughput_mb_s.\")] | join(\" \")" ta) &&
		test "$got" = "$want" || { echo "got $got, want $want"; false; }
	else
		say "$n CPUs: the auto sweep would take too long here; expected $want"
	fi
'

test_expect_success 'tbench refuses a bad client list before it starts anything' '
	printf "{\"run_id\":3,\"workload\":\"tbench\",\"params\":{\"clients\":\"1,,2\"}}" |
		"$AGENT_BIN" run - >tbad; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0] | .field == \"params.clients\" and (.message | test(\"auto\"))" tbad
'

test_expect_success 'tbench under a second a client count measures nothing: refused' '
	printf "{\"run_id\":4,\"workload\":\"tbench\",\"params\":{\"duration\":\"1s\"}}" |
		"$AGENT_BIN" run - >tshort; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].field == \"params.duration\"" tshort
'

for s in switch yield futex pipe affinity sched; do
test_expect_success "stress-ng --$s: bogo ops/s of real and of usr+sys time" "
	run '{\"run_id\":5,\"workload\":\"stress-ng\",\"params\":{\"stressor\":\"$s\",\"workers\":1,\"duration\":\"1s\"}}' sng-$s &&
	positive \"\$(metric bogo_ops_per_s sng-$s)\" &&
	positive \"\$(metric bogo_ops sng-$s)\" &&
	test \"\$(metric bogo_ops_per_s_cpu sng-$s)\" != null
"
done

test_expect_success 'stress-ng refuses a stressor that is not a scheduler one' '
	printf "{\"run_id\":6,\"workload\":\"stress-ng\",\"params\":{\"stressor\":\"cpu\"}}" |
		"$AGENT_BIN" run - >sbad; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"switch\\\\|yield\")" sbad
'

if [ -n "$CG_OK" ]; then
test_expect_success 'stress-ng runs in its cgroup' '
	run "{\"run_id\":2012007,\"workload\":\"stress-ng\",\"params\":{\"stressor\":\"yield\",\"workers\":1,\"duration\":\"1s\",\"cgroup\":\"/sng\"}}" scg &&
	u=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/sng\")][0].value" scg) &&
	say "stress-ng in /sng: $u ns" &&
	awk -v u="$u" "BEGIN { exit !(u > 3e8) }"
'
else
	test_skip 'stress-ng runs in its cgroup' "needs root and a cgroup cpu controller"
fi

# Through the controller: stored, then compared across two labels.
if command -v "$(pg_bindir)/initdb" >/dev/null 2>&1; then
H=$SCRATCH/home
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"
cat >"$SCRATCH/modern.yaml" <<'EOF2'
name: modern-short
workloads:
  - workload: tbench
    params: {clients: "1", duration: 2s}
  - workload: stress-ng
    params: {stressor: switch, workers: 1, duration: 1s}
iterations: 2
warmup: 0
EOF2

test_expect_success 'run on local twice: the metrics are stored' '
	{ schedfarm run "$SCRATCH/modern.yaml" --host local --kernel ka >o1 2>e1 ||
		{ cat o1 e1; false; }; } &&
	{ schedfarm run "$SCRATCH/modern.yaml" --host local --kernel kb >o2 2>e2 ||
		{ cat o2 e2; false; }; } &&
	for k in ka kb; do
		schedfarm results --kernel $k --json >r-$k.json &&
		for m in throughput_mb_s.1 bogo_ops_per_s; do
			jq -e "[.. | objects | select(.metric? == \"$m\")] | length >= 1" r-$k.json >/dev/null ||
				{ echo "$k: no $m"; head -c 3000 r-$k.json; return 1; }
		done || return 1
	done
'

test_expect_success 'compare: a row for each workload headline, both sides measured' '
	{ schedfarm compare --base ka --new kb --json >c.json ||
		{ cat c.json; false; }; } &&
	test -s c.json &&
	for m in throughput_mb_s.1 bogo_ops_per_s; do
		jq -e "[.. | objects | select(.metric? == \"$m\")][0] | .n_base >= 1 and .n_new >= 1 and .mean_base > 0 and .mean_new > 0 and .better == \"higher\" and (.pct_change | type == \"number\")" c.json ||
			{ head -c 3000 c.json; return 1; }
	done
'
else
	test_skip 'the controller stores and compares them' "PostgreSQL server programs not installed (make deps)"
fi

test_done
