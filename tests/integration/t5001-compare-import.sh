#!/bin/sh
# t5001: schedfarm import - observation and summary CSVs from the seed
# threads are stored as imported runs; bad rows are refused with FILE:LINE
# and the reason, and nothing of a refused file is stored; the same file
# is imported once.
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

test_expect_success 'import an observations file from seed 003' '
	schedfarm import "$D/seed003-reaim.csv" >out 2>err &&
	grep_or_fail "seed003-reaim.csv: imported 10 observation rows as 10 runs (import #" out &&
	test "$(q "SELECT count(*) FROM runs WHERE imported AND status = \$\$imported\$\$")" = 10 &&
	test "$(q "SELECT count(*) FROM results")" = 10 &&
	test "$(q "SELECT count(*) FROM kernels")" = 4
'

test_expect_success 'imported hosts are kind imported and never schedulable' '
	q "SELECT name, kind, health FROM hosts ORDER BY name" >hosts &&
	grep_or_fail "akpm-4way|imported|retired" hosts &&
	grep_or_fail "osdl-4cpu|imported|retired" hosts &&
	q "SELECT reason FROM host_events" >ev &&
	grep_or_fail "created by import of" ev
'

test_expect_success 'params become a JSON object with numbers as numbers' '
	q "SELECT DISTINCT params::text FROM runs WHERE workload = \$\$reaim\$\$ ORDER BY 1" >params &&
	grep_or_fail "{\"start\": 4, \"workfile\": \"new_dbase\", \"increment\": 4}" params
'

test_expect_success 'the same file is imported once' '
	! schedfarm import "$D/seed003-reaim.csv" >out 2>err &&
	grep_or_fail "already imported (import #1 of" err &&
	test "$(q "SELECT count(*) FROM runs")" = 10
'

test_expect_success 'a summaries file (seed 004 perf stat) is stored with n and stddev' '
	schedfarm import "$D/seed004-perf-stat.csv" >out &&
	grep_or_fail "imported 6 summary rows as 6 runs" out &&
	q "SELECT s.metric, s.n, round(s.stddev::numeric, 2) FROM results s JOIN runs r ON r.id = s.run_id JOIN kernels k ON k.id = r.kernel_id WHERE k.name = \$\$v2.6.39-rc4\$\$ AND s.metric = \$\$instructions\$\$" >inst &&
	grep_or_fail "instructions|5000|93486672.15" inst
'

test_expect_success 'boot groups rows into one run per boot' '
	schedfarm import "$D/boots-harmonic.csv" >out &&
	grep_or_fail "imported 30 observation rows as 10 runs" out &&
	q "SELECT boot, count(*), string_agg(iteration::text, \$\$,\$\$ ORDER BY iteration) FROM runs r JOIN results s ON s.run_id = r.id JOIN kernels k ON k.id = r.kernel_id WHERE k.name = \$\$synthetic-base\$\$ GROUP BY r.id, boot ORDER BY boot" >boots &&
	grep_or_fail "1|3|0,1,2" boots &&
	grep_or_fail "5|3|0,1,2" boots
'

test_expect_success 'boot 0 is a boot, as the farm numbers them; -1 is refused' '
	printf "%s\n" "kernel,host,workload,params,metric,unit,better,value,boot" \
		"z-zero,hz,reaim,users=4,jpm,jobs per minute,higher,10,0" \
		"z-zero,hz,reaim,users=4,jpm,jobs per minute,higher,11,1" >zero.csv &&
	schedfarm import zero.csv >out &&
	grep_or_fail "imported 2 observation rows as 2 runs" out &&
	q "SELECT string_agg(boot::text, \$\$,\$\$ ORDER BY boot) FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.name = \$\$z-zero\$\$" >b &&
	test "$(cat b)" = "0,1" &&
	sed "s/,0\$/,-1/" zero.csv | sed "s/z-zero/z-neg/" >neg.csv &&
	! schedfarm import neg.csv 2>err &&
	grep_or_fail "expected 0..1000000" err
'

cat >"$SCRATCH/bad.csv" <<'EOF'
# two good rows, then bad ones
kernel,host,workload,params,metric,unit,better,value
k-good,h1,reaim,users=4,jpm,jobs per minute,higher,1467.06
k-good,h1,reaim,users=4,jpm,jobs per minute,higher,1478.82
k-bad,h1,reaim,users=4,jpm,jobs per minute,sideways,1.0
k-bad,h1,reaim,users=4,jpm,jobs per minute,higher,12abc
k-bad,h1,reaim,users,jpm,jobs per minute,higher,3
k-bad,,reaim,users=4,jpm,jobs per minute,higher,3
k-bad,h1,reaim,users=4,jpm,jobs per minute,higher
k-bad,h1,reaim,users=4,jpm,jobs per minute,higher,nan
k-bad,h1,reaim,"users=4,jpm,jobs per minute,higher,3
EOF

test_expect_success 'bad rows are refused with file:line and the reason' '
	! schedfarm import "$SCRATCH/bad.csv" >out 2>err &&
	grep_or_fail "bad.csv:5: better is '\''sideways'\'', expected higher, lower or none" err &&
	grep_or_fail "bad.csv:6: value '\''12abc'\'' is not a number" err &&
	grep_or_fail "bad.csv:7: params entry '\''users'\'' is not key=value" err &&
	grep_or_fail "bad.csv:8: host is empty" err &&
	grep_or_fail "bad.csv:9: 7 fields, the header has 8" err &&
	grep_or_fail "bad.csv:10: value '\''nan'\'' is not a number" err &&
	grep_or_fail "bad.csv:11: a quoted field is not closed on its line" err &&
	grep_or_fail "refused, nothing stored (7 bad rows)" err
'

test_expect_success 'nothing of the refused file is stored, not even its good rows' '
	test "$(q "SELECT count(*) FROM kernels WHERE name LIKE \$\$k-%\$\$")" = 0 &&
	test "$(q "SELECT count(*) FROM hosts WHERE name = \$\$h1\$\$")" = 0 &&
	test "$(q "SELECT count(*) FROM imports WHERE file LIKE \$\$%bad.csv\$\$")" = 0
'

test_expect_success 'a good file beside a bad one is still stored, exit 1' '
	! schedfarm import "$SCRATCH/bad.csv" "$D/seed001-volanomark.csv" >out 2>err &&
	grep_or_fail "seed001-volanomark.csv: imported 19 observation rows" out &&
	grep_or_fail "bad.csv: refused" err
'

test_expect_success 'header problems are named' '
	printf "kernel,host,workload,params,metric,unit,better,value,n\n" >h1.csv &&
	! schedfarm import h1.csv 2>err &&
	grep_or_fail "h1.csv:1: header mixes value with n/mean/stddev" err &&
	printf "kernel,host,workload,params,metric,unit,better,colour\n" >h2.csv &&
	! schedfarm import h2.csv 2>err &&
	grep_or_fail "h2.csv:1: unknown column '\''colour'\''" err &&
	printf "kernel,host,workload,params,metric,unit,better,n,mean\nk,h,w,,m,u,lower,3,1.5\n" >h3.csv &&
	! schedfarm import h3.csv 2>err &&
	grep_or_fail "h3.csv:1: header lacks column '\''stddev'\''" err &&
	printf "# only a comment\n" >h4.csv &&
	! schedfarm import h4.csv 2>err &&
	grep_or_fail "h4.csv:1: no header line" err
'

test_expect_success 'summary rows are range-checked' '
	cat >s.csv <<-EOF &&
	kernel,host,workload,params,metric,unit,better,n,mean,stddev
	k,h,w,,m,u,lower,0,1.5,0.1
	k,h,w,,m,u,lower,3,1.5,-0.1
	k,h,w,,m,u,lower,1,1.5,0.1
	EOF
	! schedfarm import s.csv 2>err &&
	grep_or_fail "s.csv:2: n '\''0'\'' is out of range" err &&
	grep_or_fail "s.csv:3: stddev '\''-0.1'\'' is out of range" err &&
	grep_or_fail "(a standard deviation is 0 or more)" err &&
	grep_or_fail "s.csv:4: n is 1 but stddev is not 0" err
'

test_expect_success 'a file that is not text is refused' '
	printf "kernel,host\001\n" >ctl.csv &&
	! schedfarm import ctl.csv 2>err &&
	grep_or_fail "ctl.csv:1: not UTF-8 text" err &&
	! schedfarm import "$SCRATCH/no-such.csv" 2>err &&
	grep_or_fail "no-such.csv: cannot read" err
'

test_expect_success 'import without a file is a usage error' '
	schedfarm import 2>err; test $? = 2
'

test_done
