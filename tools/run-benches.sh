#!/bin/sh
# run-benches.sh - `make bench`: every executable bench/* in turn, its
# output as it comes, then which ran and which were skipped.
#
# A bench that cannot run on this machine (not root, a tool missing) prints
# "NAME: skipped (WHY)" and exits 0 (bench/lib.sh); one that skipped a part
# of itself printed "PART: skipped (WHY)".  Both are listed at the end, so a
# skipped bench is never read as a figure that was met.  The first bench
# that exits non-zero stops the run (after the list so far), and so does
# make.
set -u
cd "$(dirname "$0")/.." || exit 1
t=$(mktemp -d "${TMPDIR:-/tmp}/schedfarm-bench.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
trap 'exit 130' INT TERM
: >"$t/skips"
ran=0 skipped=0

summary() {
	echo "== benches: $ran ran, $skipped skipped"
	sed 's/^/   /' "$t/skips"
}

for b in bench/*; do
	if [ ! -f "$b" ] || [ ! -x "$b" ]; then
		continue
	fi
	name=${b#bench/}
	echo "== $b"
	{
		"$b"
		echo $? >"$t/rc"
	} | tee "$t/out"
	rc=$(cat "$t/rc")
	if [ "$rc" != 0 ]; then
		summary
		echo "== $b failed (exit status $rc)"
		exit 1
	fi
	if grep -q "^$name: skipped (" "$t/out"; then
		skipped=$((skipped + 1))
		grep "^$name: skipped (" "$t/out" | head -n 1 >>"$t/skips"
	else
		ran=$((ran + 1))
		grep ": skipped (" "$t/out" | sed "s|^|$name, in part: |" >>"$t/skips"
	fi
done
summary
