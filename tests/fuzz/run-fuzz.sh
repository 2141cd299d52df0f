#!/bin/sh
# run-fuzz.sh [SECONDS] - build the libFuzzer targets with clang
# (-fsanitize=fuzzer,address,undefined) and run each for SECONDS (default
# 60), two at a time, printing each target's exec count.  With FUZZ_RUNS=N
# in the environment each target runs until it has executed N inputs
# (libFuzzer's -runs), SECONDS then being a cap per target (0, the default
# then: none): `make fuzz FUZZ_RUNS=10000000` is the 10-million check.  Two
# workers take the targets from one queue, slowest expected first, so a
# slow target does not hold the other core idle.  Exit status 1 if any
# target crashed, leaked or timed out; its reproducer is kept under
# build-fuzz/.
#
# Targets: json (common/json.c), spec (the agent's run spec checker), one
# per agent parser: schedstat, procstat (+ per-task files), sysbench,
# hackbench, perf_csv, perf_table, kernbench, time, reaim, volanomark,
# numabench, cyclictest, perf_bench, command (the parsers of plan-defined
# command workloads), grouped (seed 000's digit grouping); and three of
# the controller's, linked against its own code: plan (the plan language,
# libyaml), lines (every check an agent line goes through, store/
# ingest.c) and import (the CSV of `schedfarm import`).  New inputs
# libFuzzer finds go to tests/fuzz/corpus-NAME/ (ignored by git); the
# seeds are the captured outputs in tests/data/agent, the plans of plans/
# and tests/data/plans, tests/data/import, and tests/fuzz/seeds-*.
#
# FUZZ_TARGETS="plan lines" runs only those.
set -eu
RUNS=${FUZZ_RUNS:-}
case $RUNS in
'' | *[!0-9]*) [ -z "$RUNS" ] || { echo "run-fuzz: FUZZ_RUNS=$RUNS is not a count"; exit 2; } ;;
esac
if [ -n "$RUNS" ]; then SECS=${1:-0}; else SECS=${1:-60}; fi
case $SECS in
'' | *[!0-9]*) echo "run-fuzz: SECONDS=$SECS is not a number of seconds"; exit 2 ;;
esac
cd "$(dirname "$0")/../.."
TOP=$(pwd)
OUT=${FUZZ_BUILD:-$TOP/build-fuzz}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "run-fuzz: $CC not installed (make deps)"; exit 1; }
mkdir -p "$OUT/obj"
CFLAGS="-std=gnu17 -g -O2 -D_GNU_SOURCE -Icommon -Iagent -fno-omit-frame-pointer"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

# compile SRC EXTRA_FLAGS...: one object, instrumented for coverage, built
# again only when its source or a header is newer.
compile() {
	_src=$1
	shift
	_o=$OUT/obj/$(echo "$_src" | tr / _ | sed 's/\.c$/.o/')
	if [ ! -f "$_o" ] || [ "$_src" -nt "$_o" ] ||
		[ -n "$(find common agent controller "$OUT/obj" -name '*.h' -newer "$_o" 2>/dev/null | head -n 1)" ]; then
		$CC $CFLAGS $SAN -fsanitize=fuzzer-no-link "$@" -c "$_src" -o "$_o"
	fi
	echo "$_o"
}

# The agent's and common code, once.
common_objs=
for src in common/*.c; do
	common_objs="$common_objs $(compile "$src")"
done
agent_objs=
for src in agent/*.c; do
	[ "$src" = agent/main.c ] && continue
	agent_objs="$agent_objs $(compile "$src")"
done
objs="$common_objs $agent_objs"

# The controller's code in an archive: a target pulls in only what it
# reaches (plan/ needs libyaml, store/ libpq, ...).
PKGS="libpq yaml-0.1 libssh libvirt gsl libcurl"
CTL_CFLAGS="-Icontroller -I$OUT/obj $(pkg-config --cflags $PKGS)"
CTL_LIBS="$(pkg-config --libs $PKGS) -lm -lpthread"
sh tools/embed-schema.sh schema/[0-9][0-9][0-9]_*.sql >"$OUT/obj/schema-embed.c.tmp"
cmp -s "$OUT/obj/schema-embed.c.tmp" "$OUT/obj/schema-embed.c" ||
	mv "$OUT/obj/schema-embed.c.tmp" "$OUT/obj/schema-embed.c"
ctl_objs=$(compile "$OUT/obj/schema-embed.c" $CTL_CFLAGS)
for src in controller/*.c controller/*/*.c; do
	[ "$src" = controller/main.c ] && continue
	ctl_objs="$ctl_objs $(compile "$src" $CTL_CFLAGS)"
done
rm -f "$OUT/libcontroller.a"
ar rcs "$OUT/libcontroller.a" $ctl_objs

PARSERS="schedstat procstat sysbench hackbench perf_csv perf_table kernbench time reaim volanomark numabench cyclictest perf_bench command grouped"
targets="json spec"
$CC $CFLAGS $SAN -fsanitize=fuzzer tests/fuzz/fuzz-json.c $objs -o "$OUT/fuzz-json" -lm -lpthread
$CC $CFLAGS $SAN -fsanitize=fuzzer tests/fuzz/fuzz-agent-spec.c $objs -o "$OUT/fuzz-spec" -lm -lpthread
for p in $PARSERS; do
	$CC $CFLAGS $SAN -fsanitize=fuzzer -DFUZZ_PARSER="$p" tests/fuzz/fuzz-agent-parser.c \
		$objs -o "$OUT/fuzz-$p" -lm -lpthread
	targets="$targets $p"
done
for t in plan:fuzz-plan.c lines:fuzz-agent-lines.c import:fuzz-import.c; do
	$CC $CFLAGS $SAN -fsanitize=fuzzer $CTL_CFLAGS "tests/fuzz/${t#*:}" \
		"$OUT/libcontroller.a" $common_objs -o "$OUT/fuzz-${t%%:*}" $CTL_LIBS
	targets="$targets ${t%%:*}"
done
[ -n "${FUZZ_TARGETS:-}" ] && targets=$FUZZ_TARGETS

# seeds_for NAME: folders of starting inputs
seeds_for() {
	case $1 in
	json) echo tests/fuzz/seeds-json ;;
	spec) echo tests/fuzz/seeds-spec ;;
	plan) echo plans tests/data/plans ;;
	lines) echo tests/fuzz/seeds-lines ;;
	import) echo tests/data/import ;;
	*) echo tests/data/agent ;;
	esac
}

run_one() {
	t=$1
	corpus=tests/fuzz/corpus-$t
	mkdir -p "$corpus" "$OUT/crash-$t"
	# Small inputs: every rule of these readers is reached by a few lines
	# (an agent line or three, a plan, a CSV header and rows, a CPU's
	# schedstat), and small inputs are checked many times faster, which
	# is what makes millions of executions per target affordable.
	# FUZZ_MAX_LEN overrides.
	case $t in
	lines | import) maxlen=1024 ;;
	plan) maxlen=2048 ;;
	*) maxlen=4096 ;;
	esac
	maxlen=${FUZZ_MAX_LEN:-$maxlen}
	if ASAN_OPTIONS=detect_leaks=1 "$OUT/fuzz-$t" -max_total_time="$SECS" \
		${RUNS:+-runs=$RUNS} \
		-max_len=$maxlen -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$OUT/crash-$t/" "$corpus" $(seeds_for "$t") \
		>"$OUT/fuzz-$t.log" 2>&1; then
		echo "ok $t"
	else
		echo "FAILED $t"
	fi >"$OUT/fuzz-$t.status"
}

# The queue: the controller's targets and the agent's slowest parsers
# first (they run at 8-17 k execs/s, the fastest at 50-270 k), then the
# rest in the order given.
queue=$OUT/queue
: >"$queue"
for t in $targets; do
	case " perf_csv plan sysbench kernbench perf_table time " in
	*" $t "*) echo "$t" >>"$queue" ;;
	esac
done
for t in $targets; do
	grep -qx "$t" "$queue" || echo "$t" >>"$queue"
done
rm -rf "$OUT/queue.lock"

# next_target: the queue's first target, taken off it (mkdir as the lock)
next_target() {
	until mkdir "$OUT/queue.lock" 2>/dev/null; do sleep 0.1; done
	_t=$(head -n 1 "$queue")
	[ -n "$_t" ] && sed -i 1d "$queue"
	rmdir "$OUT/queue.lock"
	[ -n "$_t" ] && echo "$_t"
}

worker() {
	while w=$(next_target); do
		run_one "$w"
	done
}
worker &
w1=$!
worker &
w2=$!
wait $w1
wait $w2

failed=0
printf "%-12s %-6s %14s %10s\n" target status execs "execs/s"
for t in $targets; do
	st=$(cut -d" " -f1 "$OUT/fuzz-$t.status")
	runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$OUT/fuzz-$t.log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$OUT/fuzz-$t.log" | tail -n 1)
	printf "%-12s %-6s %14s %10s\n" "$t" "$st" "${runs:-?}" "${rate:-?}"
	if [ -n "$RUNS" ] && [ "${runs:-0}" -lt "$RUNS" ] && [ "$st" = ok ]; then
		echo "--- $t: $runs executions, short of FUZZ_RUNS=$RUNS (the SECONDS cap)"
		failed=1
	fi
	if [ "$st" != ok ]; then
		failed=1
		echo "--- $t (log: $OUT/fuzz-$t.log)"
		grep -E "ERROR|SUMMARY|artifact" "$OUT/fuzz-$t.log" | head -n 10
	fi
done
exit $failed
