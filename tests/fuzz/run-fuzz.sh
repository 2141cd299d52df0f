#!/bin/sh
# run-fuzz.sh [SECONDS] - build the libFuzzer targets with clang
# (-fsanitize=fuzzer,address,undefined) and run each for SECONDS (default
# 60), two at a time, printing each target's exec count.  Exit status 1 if
# any target crashed, leaked or timed out; its reproducer is kept under
# build-fuzz/.
#
# Targets: json (common/json.c), spec (the agent's run spec checker), and
# one per agent parser: schedstat, procstat (+ per-task files), sysbench,
# hackbench, perf_csv, perf_table, kernbench, time, reaim, volanomark,
# numabench, cyclictest, perf_bench, command (the parsers of plan-defined
# command workloads), grouped (seed 000's digit grouping).  New inputs libFuzzer
# finds go to tests/fuzz/corpus-NAME/ (ignored by git); the seeds are the
# captured outputs in tests/data/agent and tests/fuzz/seeds-*.
set -eu
SECS=${1:-60}
cd "$(dirname "$0")/../.."
TOP=$(pwd)
OUT=${FUZZ_BUILD:-$TOP/build-fuzz}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "run-fuzz: $CC not installed (make deps)"; exit 1; }
mkdir -p "$OUT/obj"
CFLAGS="-std=gnu17 -g -O1 -D_GNU_SOURCE -Icommon -Iagent -fno-omit-frame-pointer"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

# The agent's and common code, once, instrumented for coverage.
objs=
for src in common/*.c agent/*.c; do
	[ "$src" = agent/main.c ] && continue
	o=$OUT/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find common agent -name '*.h' -newer "$o" 2>/dev/null)" ]; then
		$CC $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$src" -o "$o"
	fi
	objs="$objs $o"
done

PARSERS="schedstat procstat sysbench hackbench perf_csv perf_table kernbench time reaim volanomark numabench cyclictest perf_bench command grouped"
targets="json spec"
$CC $CFLAGS $SAN -fsanitize=fuzzer tests/fuzz/fuzz-json.c $objs -o "$OUT/fuzz-json" -lm -lpthread
$CC $CFLAGS $SAN -fsanitize=fuzzer tests/fuzz/fuzz-agent-spec.c $objs -o "$OUT/fuzz-spec" -lm -lpthread
for p in $PARSERS; do
	$CC $CFLAGS $SAN -fsanitize=fuzzer -DFUZZ_PARSER="$p" tests/fuzz/fuzz-agent-parser.c \
		$objs -o "$OUT/fuzz-$p" -lm -lpthread
	targets="$targets $p"
done

# seeds_for NAME: folders of starting inputs
seeds_for() {
	case $1 in
	json) echo tests/fuzz/seeds-json ;;
	spec) echo tests/fuzz/seeds-spec ;;
	*) echo tests/data/agent ;;
	esac
}

run_one() {
	t=$1
	corpus=tests/fuzz/corpus-$t
	mkdir -p "$corpus" "$OUT/crash-$t"
	if ASAN_OPTIONS=detect_leaks=1 "$OUT/fuzz-$t" -max_total_time="$SECS" \
		-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$OUT/crash-$t/" "$corpus" $(seeds_for "$t") \
		>"$OUT/fuzz-$t.log" 2>&1; then
		echo "ok $t"
	else
		echo "FAILED $t"
	fi >"$OUT/fuzz-$t.status"
}

set -- $targets
while [ $# -gt 0 ]; do
	run_one "$1" &
	a=$!
	b=
	if [ $# -gt 1 ]; then
		run_one "$2" &
		b=$!
	fi
	wait $a
	[ -n "$b" ] && wait $b
	shift
	[ $# -gt 0 ] && shift
done

failed=0
printf "%-12s %-6s %14s %10s\n" target status execs "execs/s"
for t in $targets; do
	st=$(cut -d" " -f1 "$OUT/fuzz-$t.status")
	runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$OUT/fuzz-$t.log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$OUT/fuzz-$t.log" | tail -n 1)
	printf "%-12s %-6s %14s %10s\n" "$t" "$st" "${runs:-?}" "${rate:-?}"
	if [ "$st" != ok ]; then
		failed=1
		echo "--- $t (log: $OUT/fuzz-$t.log)"
		grep -E "ERROR|SUMMARY|artifact" "$OUT/fuzz-$t.log" | head -n 10
	fi
done
exit $failed
