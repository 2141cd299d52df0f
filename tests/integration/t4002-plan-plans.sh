#!/bin/sh
# t4002: every plan in plans/ passes `plan check` and expands to the runs
# its experiment needs; `plan expand` text and --json; usage errors.
. "$(dirname "$0")/../lib/test-lib.sh"

PLANS=$TOP/plans

# plan file, then the number of runs it must expand to per boot (plan
# check counts every boot's, as run does)
for pr in smoke:2 memchunk-thread-mix:3 sysbench-oltp-threads:18 \
	chat-rooms-cgroup:2 fairness-loop-5-2:1 kernbench-two-cgroups:2 \
	kernbench-numa:1 numa-bw-jobs:5 reaim-users:1 pipe-pingpong-counters:1 \
	latency-under-load:4 sysbench-cpu-command:4; do
	p=${pr%:*} n=${pr#*:}
	test_expect_success "plans/$p.yaml passes plan check ($n runs per boot)" "
		schedfarm plan check \"$PLANS/$p.yaml\" >out 2>err &&
		test ! -s err &&
		schedfarm plan check --json \"$PLANS/$p.yaml\" >j &&
		jq -e \".[0].ok and .[0].runs_per_boot == $n and .[0].runs == $n * .[0].boots\" j &&
		grep_or_fail \"$p.yaml: ok, \$(jq .[0].runs j) run\" out
	"
done

test_expect_success 'every plan in plans/ (those above and any added) checks' '
	ls "$PLANS"/*.yaml | wc -l >n &&
	test "$(cat n)" -ge 10 &&
	schedfarm plan check -q "$PLANS"/*.yaml >out 2>err &&
	test ! -s out && test ! -s err
'

test_expect_success 'sysbench sweep: 1..256 threads x (/, /foo), last key fastest' '
	schedfarm plan expand "$PLANS/sysbench-oltp-threads.yaml" >out &&
	head -1 out >head &&
	grep_or_fail "# plan sysbench-oltp-threads: 18 runs; per boot 1 warm-up + 3 iterations; 3 boots per kernel" head &&
	sed -n 2,5p out >first &&
	cat >expect <<-\EOT &&
	0 sysbench test=oltp_read_write threads=1 time=60s tables=1 table_size=100000 cgroup=/
	1 sysbench test=oltp_read_write threads=1 time=60s tables=1 table_size=100000 cgroup=/foo
	2 sysbench test=oltp_read_write threads=2 time=60s tables=1 table_size=100000 cgroup=/
	3 sysbench test=oltp_read_write threads=2 time=60s tables=1 table_size=100000 cgroup=/foo
	EOT
	diff -u expect first &&
	tail -1 out >last &&
	grep_or_fail "17 sysbench test=oltp_read_write threads=256 time=60s tables=1 table_size=100000 cgroup=/foo" last
'

test_expect_success 'variants: seed 000 thread mixes, params shared' '
	schedfarm plan expand "$PLANS/memchunk-thread-mix.yaml" >out &&
	cat >expect <<-\EOT &&
	# plan memchunk-thread-mix: 3 runs; per boot 1 warm-up + 5 iterations; 5 boots per kernel, more until decided (at most 20)
	0 memchunk duration=10s chunk_slots=256 sleep_every=2800 sleep_us=9000 short_threads=5 long_threads=5
	1 memchunk duration=10s chunk_slots=256 sleep_every=2800 sleep_us=9000 short_threads=4 long_threads=2
	2 memchunk duration=10s chunk_slots=256 sleep_every=2800 sleep_us=9000 short_threads=16 long_threads=0
	EOT
	diff -u expect out
'

test_expect_success 'expand --json: an array, every parameter typed, defaults in' '
	schedfarm plan expand --json "$PLANS/smoke.yaml" >out &&
	jq -c ".[]" out >runs &&
	test "$(wc -l <runs)" = 2 &&
	jq -e ".[0] | del(.spec) == {\"index\":0,\"workload\":\"memchunk\",\"params\":{\"cgroup\":\"/\",\"short_threads\":1,\"long_threads\":1,\"duration\":\"1s\",\"chunk_slots\":256,\"sleep_every\":2800,\"sleep_us\":9000}}" out &&
	jq -e ".[0].spec == {\"workload\":\"memchunk\",\"params\":.[0].params}" out &&
	jq -e ".[1].params.round_trips == 10000 and .[1].params.pin_cpu == -1" out
'

test_expect_success 'global --json works for expand too, booleans are booleans' '
	schedfarm --json plan expand "$PLANS/kernbench-two-cgroups.yaml" >out &&
	jq -e "length == 2 and .[0].params[\"a.clean\"] == true and .[1].params[\"b.jobs\"] == 13 and .[1].params[\"b.cgroup\"] == \"/b\"" out &&
	jq -e ".[1].spec.together[1] == {\"name\":\"b\",\"workload\":\"kernbench\",\"params\":{\"cgroup\":\"/b\",\"tree\":\"/var/lib/schedfarm/linux\",\"jobs\":13,\"target\":\"vmlinux\",\"clean\":true,\"objdir\":\"/var/lib/schedfarm/kb-b\"},\"background\":false}" out
'

test_expect_success 'expand of a bad plan prints the errors and exits 1' '
	schedfarm plan expand "$TOP/tests/data/plans/empty-sweep.yaml" >out 2>err
	test $? = 1 && test ! -s out &&
	grep_or_fail "empty-sweep.yaml:4:12: error:" err
'

test_expect_success 'usage errors exit 2' '
	schedfarm plan 2>err; test $? = 2 &&
	schedfarm plan frob 2>err; test $? = 2 &&
	schedfarm plan check 2>err; test $? = 2 &&
	schedfarm plan expand 2>err; test $? = 2 &&
	schedfarm plan expand a.yaml b.yaml 2>err; test $? = 2 &&
	schedfarm plan check --bogus x.yaml 2>err; test $? = 2
'

test_expect_success 'plan --help and help plan print the usage' '
	schedfarm plan --help >a &&
	schedfarm help plan >b &&
	cmp a b &&
	grep_or_fail "usage: schedfarm plan check" a
'

test_expect_success 'the man page has a plan section' '
	grep_or_fail ".B plan check" "$TOP/doc/schedfarm.1" &&
	grep_or_fail ".B plan expand" "$TOP/doc/schedfarm.1" &&
	MANWIDTH=80 man -l "$TOP/doc/schedfarm.1" >page 2>manerr &&
	grep_or_fail "plan expand" page
'

test_done
