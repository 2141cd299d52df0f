# lib.sh - what the bench/ scripts share; sourced, not a bench (`make
# bench` runs only the executable files here).
#
#   . "$TOP/bench/lib.sh"
#   bench_need jq                    # or skip: "jq not installed (make deps)"
#   bench_need_root "WHY"            # or skip: "needs root: WHY"
#   bench_need_pg                    # or skip: "PostgreSQL not installed ..."
#   bench_skip "WHY"                 # any other reason
#
# A bench that cannot run on this machine (not root, a tool or package
# missing) prints one line, "NAME: skipped (WHY)", and exits 0: a missing
# prerequisite is not a failed bench, and `make bench` (tools/run-benches.sh)
# lists the skipped ones at the end.  A bench that skips only a part of
# itself prints "PART: skipped (WHY)" and goes on.  A missing build output
# (make first) and a run that goes wrong still exit non-zero.

BENCH_NAME=${BENCH_NAME:-$(basename "$0")}

# bench_skip WHY: say why this bench cannot run here; exit 0.
bench_skip() {
	echo "$BENCH_NAME: skipped ($*)"
	exit 0
}

# bench_need PROGRAM...: skip unless each is in PATH.
bench_need() {
	for _p in "$@"; do
		command -v "$_p" >/dev/null 2>&1 || bench_skip "$_p not installed (make deps)"
	done
}

# bench_need_root WHY: skip unless root.
bench_need_root() {
	[ "$(id -u)" = 0 ] || bench_skip "needs root: $*"
}

# bench_need_pg: skip unless the PostgreSQL server programs are where the
# controller looks for them (SCHEDFARM_PG_BINDIR, /usr/lib/postgresql/N/bin,
# then PATH).
bench_need_pg() {
	if [ -n "${SCHEDFARM_PG_BINDIR:-}" ]; then
		[ -x "$SCHEDFARM_PG_BINDIR/initdb" ] && return 0
	else
		for _d in /usr/lib/postgresql/*/bin; do
			[ -x "$_d/initdb" ] && return 0
		done
		command -v initdb >/dev/null 2>&1 && return 0
	fi
	bench_skip "PostgreSQL not installed (make deps)"
}
