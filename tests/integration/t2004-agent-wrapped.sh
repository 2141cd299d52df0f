#!/bin/sh
# t2004: the wrapped programs, run for real and parsed: sysbench cpu,
# threads and mutex, sysbench OLTP on a PostgreSQL the agent starts itself
# (initdb + pg_ctl as postgres, removed afterwards) and on one the spec
# names, hackbench, perf stat with standard errors, kernbench (make -jN of
# a small tree, clean between iterations, inside a cgroup), and re-aim /
# volanomark, which Debian does not ship: absent, they fail clearly.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

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
cgroups_usable && CG_OK=1

if command -v sysbench >/dev/null; then
test_expect_success 'sysbench cpu, threads and mutex' '
	run "{\"run_id\":1,\"workload\":\"sysbench\",\"params\":{\"test\":\"cpu\",\"time\":\"1s\",\"threads\":2}}" sc &&
	positive "$(metric events_per_s sc)" && positive "$(metric latency_avg_ms sc)" &&
	run "{\"run_id\":1,\"workload\":\"sysbench\",\"params\":{\"test\":\"threads\",\"time\":\"1s\"}}" st &&
	positive "$(metric events st)" &&
	run "{\"run_id\":1,\"workload\":\"sysbench\",\"params\":{\"test\":\"mutex\",\"time\":\"1s\"}}" sm &&
	positive "$(metric total_time_s sm)"
'
else
	test_skip 'sysbench cpu, threads and mutex' "sysbench not installed"
fi

if [ -n "$CG_OK" ] && command -v sysbench >/dev/null; then
test_expect_success 'a wrapped program runs inside its cgroup from the start' '
	run "{\"run_id\":2004002,\"workload\":\"sysbench\",\"params\":{\"test\":\"cpu\",\"time\":\"1s\",\"threads\":1,\"cgroup\":\"/sb\"}}" scg &&
	u=$(jq -r -s "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/sb\")][0].value" scg) &&
	say "sysbench in /sb: $u ns" &&
	awk -v u="$u" "BEGIN { exit !(u > 3e8) }"
'
else
	test_skip 'a wrapped program runs inside its cgroup' \
		"${CG_WHY:-sysbench not installed (make deps)}"
fi

if command -v sysbench >/dev/null && [ -x "$(pg_bindir)/initdb" ]; then
test_expect_success 'sysbench oltp_read_only on a PostgreSQL the agent starts' '
	ls -d /tmp/schedfarm-pg-* 2>/dev/null | sort >pg.before;
	run "{\"run_id\":3,\"workload\":\"sysbench\",\"iterations\":2,\"params\":{\"test\":\"oltp_read_only\",\"time\":\"1s\",\"threads\":2,\"table_size\":500}}" so &&
	test "$(jq -s "[.[] | select(.type == \"result\" and .metric == \"transactions_per_s\")] | length" so)" = 2 &&
	positive "$(metric transactions_per_s so)" && positive "$(metric queries_per_s so)" &&
	ls -d /tmp/schedfarm-pg-* 2>/dev/null | sort >pg.after;
	cmp pg.before pg.after
'

test_expect_success 'sysbench oltp_read_write on the PostgreSQL the spec names' '
	pg_test_start pg &&
	run "{\"run_id\":4,\"workload\":\"sysbench\",\"params\":{\"test\":\"oltp_read_write\",\"time\":\"1s\",\"threads\":2,\"table_size\":500,\"pg_conninfo\":\"host=$PG_SOCKDIR port=5432 user=postgres dbname=postgres\"}}" sw &&
	positive "$(metric transactions_per_s sw)" &&
	"$(pg_bindir)/psql" -h "$PG_SOCKDIR" -U postgres -d postgres -At -c "SELECT count(*) FROM pg_tables WHERE tablename LIKE \$\$sbtest%\$\$" >left &&
	test "$(cat left)" = 0
'

test_expect_success 'a bad pg_conninfo is a clear failure' '
	printf "{\"run_id\":5,\"workload\":\"sysbench\",\"params\":{\"test\":\"oltp_read_only\",\"pg_conninfo\":\"sslmode=disable\"}}" |
		"$AGENT_BIN" run - >sbad; test $? = 2 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"is not one of host, port\")" sbad &&
	jq -e -s "[.[] | select(.type == \"done\")][0].status == \"bad-spec\"" sbad
'
else
	test_skip 'sysbench oltp' "sysbench or PostgreSQL server programs not installed"
fi

if command -v hackbench >/dev/null; then
test_expect_success 'hackbench as processes on sockets and threads on pipes' '
	run "{\"run_id\":6,\"workload\":\"hackbench\",\"params\":{\"groups\":2,\"loops\":50}}" hb &&
	positive "$(metric time_s hb)" &&
	run "{\"run_id\":6,\"workload\":\"hackbench\",\"params\":{\"groups\":2,\"loops\":50,\"mode\":\"thread\",\"pipe\":true}}" hb2 &&
	positive "$(metric time_s hb2)"
'
else
	test_skip 'hackbench' "rt-tests not installed"
fi

if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
test_expect_success 'perf-stat: counters with standard errors, unsupported ones said so' '
	run "{\"run_id\":7,\"workload\":\"perf-stat\",\"params\":{\"command\":\"sleep 0.01\",\"repeat\":3,\"events\":\"task-clock,context-switches,instructions\",\"pin_cpu\":0}}" ps &&
	positive "$(metric task-clock ps)" &&
	test "$(metric task-clock.stderr_pct ps)" != null &&
	positive "$(metric context-switches ps)" &&
	if perf stat -e instructions true 2>&1 | grep -q "not supported"; then
		test "$(metric instructions ps)" = null &&
		jq -e -s "[.[] | select(.type == \"counter\" and .name == \"instructions\")][0].available == false" ps
	else
		positive "$(metric instructions ps)"
	fi
'
else
	test_skip 'perf-stat' "perf not usable here"
fi

test_expect_success 'kernbench builds a tree with make -jN, cleaning between iterations' '
	mkdir tree && for i in 1 2 3 4; do
		printf "int f$i(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * $i; return s; }\n" >tree/f$i.c || return 1
	done &&
	printf "%s\n" "OBJS = f1.o f2.o f3.o f4.o" "vmlinux: \$(OBJS)" \
		"	ld -r -o \$@ \$(OBJS)" "%.o: %.c" "	cc -O2 -c \$< -o \$@" \
		"clean:" "	rm -f *.o vmlinux" >tree/Makefile &&
	cg=; [ -n "$CG_OK" ] && cg=",\"cgroup\":\"/kb\"";
	run "{\"run_id\":2004008,\"workload\":\"kernbench\",\"iterations\":2,\"params\":{\"tree\":\"$SCRATCH/tree\",\"jobs\":2$cg}}" kb &&
	test -f tree/vmlinux &&
	test "$(jq -s "[.[] | select(.type == \"result\" and .metric == \"elapsed_s\")] | length" kb)" = 2 &&
	positive "$(metric user_s kb)" && positive "$(metric cpu_pct kb)" &&
	jq -e -s "[.[] | select(.type == \"result\" and .metric == \"user_s\")] | all(.[]; .value > 0)" kb
'

test_expect_success 'kernbench refuses a folder that is not a tree' '
	printf "{\"run_id\":9,\"workload\":\"kernbench\",\"params\":{\"tree\":\"$SCRATCH\"}}" |
		"$AGENT_BIN" run - >kbad; test $? = 1 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"has no Makefile\")" kbad
'

test_expect_success 'a failing build fails the run with the output tail' '
	rm -f tree/vmlinux &&
	printf "vmlinux:\n\t@echo kaboom-from-make; false\nclean:\n" >tree/Makefile &&
	printf "{\"run_id\":10,\"workload\":\"kernbench\",\"params\":{\"tree\":\"$SCRATCH/tree\",\"clean\":false}}" |
		"$AGENT_BIN" run - >kfail; test $? = 1 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"^make exited with status 2\") and test(\"kaboom-from-make\")" kfail &&
	tail -n 1 kfail | jq -e ".status == \"failed\""
'

test_expect_success 're-aim and volanomark, not installed, fail clearly' '
	printf "{\"run_id\":11,\"workload\":\"reaim\",\"params\":{\"program\":\"/nonexistent/reaim\"}}" |
		"$AGENT_BIN" run - >ra; test $? = 1 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"not packaged by Debian\")" ra &&
	printf "{\"run_id\":12,\"workload\":\"volanomark\"}" | "$AGENT_BIN" run - >vm; test $? = 1 &&
	jq -e -s "[.[] | select(.type == \"error\")][0].message | test(\"loopclient.sh\")" vm
'

# Stand-ins for the user-provided programs: they check how the agent calls
# them (argv, environment) and print the seed-shaped lines captured in
# tests/data/agent; they are not re-aim or VolanoMark.
test_expect_success 'reaim is called with -s -e -i -f and its JPM is read' '
	cat >fake-reaim <<-EOF &&
	#!/bin/sh
	echo "\$*" >"$SCRATCH/reaim.args"
	cat "$TOP/tests/data/agent/reaim-seed003.txt"
	EOF
	chmod +x fake-reaim &&
	run "{\"run_id\":13,\"workload\":\"reaim\",\"params\":{\"program\":\"$SCRATCH/fake-reaim\",\"users\":8,\"start_users\":2,\"increment\":2,\"workfile\":\"workfile.new_dbase\"}}" ra2 &&
	test "$(cat reaim.args)" = "-s 2 -e 8 -i 2 -f workfile.new_dbase" &&
	test "$(metric max_jpm ra2)" = 1467.06
'

test_expect_success 'volanomark gets LOOP_CLIENT_COUNT and its throughput is averaged' '
	cat >fake-loopclient <<-EOF &&
	#!/bin/sh
	echo "\$LOOP_CLIENT_COUNT" >"$SCRATCH/vm.env"
	cat "$TOP/tests/data/agent/volanomark-seed001.txt"
	EOF
	chmod +x fake-loopclient &&
	run "{\"run_id\":14,\"workload\":\"volanomark\",\"params\":{\"program\":\"$SCRATCH/fake-loopclient\",\"clients\":250}}" vm2 &&
	test "$(cat vm.env)" = 250 &&
	awk -v v="$(metric messages_per_s vm2)" "BEGIN { exit !(v > 112901 && v < 112902) }"
'

test_done
