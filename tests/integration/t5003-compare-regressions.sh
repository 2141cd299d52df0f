#!/bin/sh
# t5003: the regressions verb and the views of schema 002 -
# latest_comparisons, regressions, host_history - with --since, --host,
# --min-change and --json; only the latest comparison of a key and question
# counts, the plain question shown before one asked by hand (--tau).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"

H=$SCRATCH/home
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"
D=$TOP/tests/data/import

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

test_expect_success 'no comparisons: no regressions' '
	schedfarm regressions >out &&
	grep_or_fail "no regressions" out &&
	schedfarm regressions --json >out.json &&
	jq -e "length == 0" out.json
'

test_expect_success 'set up: seed 004 (a regression) and a synthetic one on another host' '
	schedfarm import "$D/seed004-perf-stat.csv" "$D/boots-harmonic.csv" \
		"$D/seed001-volanomark.csv" >/dev/null &&
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight >/dev/null &&
	schedfarm compare --base synthetic-base --new synthetic-new >/dev/null &&
	schedfarm compare --base 2.6.26-rc --new 2.6.26-rc-smp-group >/dev/null
'

test_expect_success 'regressions lists every latest regression verdict' '
	schedfarm regressions --json >r.json &&
	jq -e "length == 2" r.json &&
	jq -e "map(.metric) | sort == [\"instructions\", \"throughput\"]" r.json &&
	jq -e ".[] | select(.metric == \"instructions\") |
		.host == \"ncrao-32bit\" and .base_kernel == \"v2.6.39-rc4\" and
		.new_kernel == \"v2.6.39-rc4-load-weight\" and .patch == null and
		.workload == \"pipe-pingpong\" and .params.cpu == 0 and
		(.pct_change - 7.0971109872980165 | fabs) < 1e-9 and
		.ci_low < .pct_change and .ci_high > .pct_change and .p_value < 1e-15" r.json &&
	jq -e "all(.[]; keys_unsorted == [\"computed_at\",\"patch\",\"base_kernel\",\"new_kernel\",\"host\",\"workload\",\"params\",\"metric\",\"unit\",\"pct_change\",\"ci_low\",\"ci_high\",\"p_value\"])" r.json
'

test_expect_success 'the text listing names host, kernels, %change, CI and p (--wide: one line a row)' '
	schedfarm regressions --wide >r.txt &&
	grep -E "\+7\.1% +\[\+6\.8%, \+7\.4%\] +0 +instructions +v2\.6\.39-rc4 +v2\.6\.39-rc4-load-weight +ncrao-32bit +pipe-pingpong" r.txt &&
	grep -E "\-9\.8% .* throughput +synthetic-base +synthetic-new +lab1 +memchunk +\{\"long\": 2, \"short\": 4\}" r.txt &&
	schedfarm regressions >fit.txt &&
	grep -E "\+7\.1% +\[\+6\.8%, \+7\.4%\] +0$" fit.txt &&
	grep -A2 -E "\+7\.1% +\[\+6\.8%, \+7\.4%\] +0$" fit.txt | grep -q "^  metric instructions$" &&
	grep -q "^  new v2\.6\.39-rc4-load-weight$" fit.txt &&
	! awk "length > 80" fit.txt | grep .
'

test_expect_success '--host and --min-change filter' '
	schedfarm regressions --host lab1 --json >h.json &&
	jq -e "length == 1 and .[0].metric == \"throughput\"" h.json &&
	schedfarm regressions --min-change 8 --json >m.json &&
	jq -e "length == 1 and .[0].metric == \"throughput\"" m.json &&
	schedfarm regressions --min-change 10 --json >m2.json &&
	jq -e "length == 0" m2.json
'

test_expect_success '--since filters by when the verdict was computed' '
	schedfarm regressions --since yesterday --json >s.json &&
	jq -e "length == 2" s.json &&
	schedfarm regressions --since tomorrow --json >s2.json &&
	jq -e "length == 0" s2.json &&
	schedfarm regressions --since "not a date" 2>err; test $? = 2 &&
	grep_or_fail "is not a date or time" err &&
	schedfarm regressions --min-change x 2>err; test $? = 2 &&
	schedfarm regressions extra 2>err; test $? = 2
'

test_expect_success 'another question (--tau 10) is stored beside the plain one, which stays shown' '
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --tau 10 --json >p.json &&
	jq -e ".[] | select(.metric == \"instructions\") | .verdict == \"no-change\"" p.json &&
	jq -e ".[0].question == \"tau=10\"" p.json &&
	schedfarm regressions --json >r2.json &&
	jq -e "length == 2" r2.json &&
	test "$(q "SELECT count(*) FROM comparisons WHERE metric = \$\$instructions\$\$ AND is_latest")" = 2
'

test_expect_success 'a newer verdict of the same question replaces the older one' '
	schedfarm compare --base v2.6.39-rc4 --new v2.6.39-rc4-load-weight --json >p2.json &&
	jq -e ".[0].question == \"\"" p2.json &&
	test "$(q "SELECT count(*) FROM comparisons WHERE metric = \$\$instructions\$\$")" = 3 &&
	test "$(q "SELECT count(*) FROM comparisons WHERE metric = \$\$instructions\$\$ AND is_latest")" = 2 &&
	test "$(q "SELECT count(*) FROM latest_comparisons WHERE metric = \$\$instructions\$\$")" = 1 &&
	test "$(q "SELECT question FROM latest_comparisons WHERE metric = \$\$instructions\$\$")" = ""
'

test_expect_success 'the views answer psql users' '
	q "SELECT host, metric, verdict FROM latest_comparisons WHERE host = \$\$twins\$\$ AND params->>\$\$cgroup\$\$ = \$\$/foo\$\$ AND workload = \$\$volanomark\$\$" >lc &&
	grep_or_fail "twins|throughput|improvement" lc &&
	q "SELECT count(*) FROM regressions" >n && test "$(cat n)" = 2 &&
	q "SELECT kernel, value FROM host_history WHERE host = \$\$twins\$\$ AND workload = \$\$volanomark\$\$ AND params->>\$\$cgroup\$\$ = \$\$/foo\$\$ ORDER BY at, run_id" >hh &&
	test "$(wc -l <hh)" = 6 &&
	grep_or_fail "2.6.26-rc-smp-group|130208" hh
'

test_expect_success 'only one latest row per key, kept by the database' '
	! q "UPDATE comparisons SET is_latest = true" 2>err &&
	grep_or_fail "comparisons_latest_key" err
'

test_expect_success 'concurrent compares of the same kernels both store, one latest per key' '
	for i in 1 2 3 4; do
		schedfarm compare --base synthetic-base --new synthetic-new >c$i.out 2>c$i.err &
	done
	wait &&
	for i in 1 2 3 4; do grep_or_fail "regression" c$i.out || return 1; done &&
	test "$(q "SELECT count(*) FROM comparisons WHERE metric = \$\$throughput\$\$ AND workload = \$\$memchunk\$\$")" = 5 &&
	test "$(q "SELECT count(*) FROM latest_comparisons WHERE metric = \$\$throughput\$\$ AND workload = \$\$memchunk\$\$")" = 1
'

test_expect_success 'the regression query uses the partial index' '
	q "SET enable_seqscan = off; EXPLAIN SELECT * FROM regressions WHERE computed_at >= now() - interval \$\$1 day\$\$ ORDER BY computed_at DESC LIMIT 100" >plan &&
	grep_or_fail "comparisons_latest_regressions" plan
'

test_done
