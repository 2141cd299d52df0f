#!/bin/sh
# run-tests.sh [unit|integration|kernel|faults|all|/ABS/PATH/tNNNN.sh...] -
# one prove run over the suite (`all`: unit and integration; kernel and
# faults are the long ones, run by `make check-kernel` and `make
# check-faults`), or over the test scripts named by absolute path.
#
# Unit tests are cmocka binaries under $SCHEDFARM_BUILD/tests/unit (TAP
# output through CMOCKA_MESSAGE_OUTPUT); integration tests are the TAP
# scripts tests/integration/t*.sh.  prove prints the summary CI reads; after
# it comes the list of skipped tests (file, test, reason: tests that skip
# record themselves through tests/lib/test-lib.sh), the failed tests with
# the end of their output, then prove's summary again, so the last lines
# are still prove's.
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
BUILD=${SCHEDFARM_BUILD:-build-san}
export SCHEDFARM_BUILD=$BUILD
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
files=
if [ "$what" = unit ] || [ "$what" = all ]; then
	for t in "$BUILD"/tests/unit/test-*; do
		[ -x "$t" ] && files="$files $t"
	done
fi
if [ "$what" = integration ] || [ "$what" = all ]; then
	for t in tests/integration/t[0-9]*.sh; do
		[ -f "$t" ] && files="$files $t"
	done
fi
if [ "$what" = kernel ]; then
	for t in tests/kernel/t[0-9]*.sh; do
		[ -f "$t" ] && files="$files $t"
	done
fi
if [ "$what" = faults ]; then
	for t in tests/faults/t[0-9]*.sh; do
		[ -f "$t" ] && files="$files $t"
	done
fi
case $what in
/*) files="$*" ;;
esac
[ -n "$files" ] || { echo "no tests found for '$what'"; exit 1; }
# The run's scratch: the skips the tests record (tests/lib/test-lib.sh)
# and prove's output, for the list printed at the end.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/schedfarm-run-tests.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
: >"$scratch/skips"
: >"$scratch/fails"
chmod 666 "$scratch/skips" "$scratch/fails"
chmod 755 "$scratch"
export SCHEDFARM_SKIP_LOG="$scratch/skips"
export SCHEDFARM_FAIL_LOG="$scratch/fails"
# shellcheck disable=SC2086
{
	rc=0
	prove --timer ${PROVE_OPTS:-} --exec '' $files || rc=$?
	echo "$rc" >"$scratch/rc"
} | tee "$scratch/prove.out"
rc=$(cat "$scratch/rc" 2>/dev/null || echo 1)
# Every skip, then prove's summary again, so that its last lines stay
# what CI reads (Files=..., Result: ...).
echo
n=$(wc -l <"$scratch/skips")
if [ "$n" -eq 0 ]; then
	echo "Skipped: none"
else
	echo "Skipped: $n (file, test, reason)"
	sort "$scratch/skips" |
		awk -F '\t' '{ printf "  %s  %s: %s\n", $1, $2, $3 }'
fi
# A failed test's last lines again, here where CI's tail shows them.
if [ -s "$scratch/fails" ]; then
	echo
	echo "Failed tests, with the end of their output:"
	cat "$scratch/fails"
fi
echo
sed -n '/^All tests successful\.$/,$p;/^Test Summary Report/,$p' \
	"$scratch/prove.out"
exit "$rc"
