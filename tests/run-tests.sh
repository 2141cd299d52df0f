#!/bin/sh
# run-tests.sh [unit|integration|kernel|faults|all] - one prove run over
# the suite (`all`: unit and integration; kernel and faults are the long
# ones, run by `make check-kernel` and `make check-faults`).
#
# Unit tests are cmocka binaries under $SCHEDFARM_BUILD/tests/unit (TAP
# output through CMOCKA_MESSAGE_OUTPUT); integration tests are the TAP
# scripts tests/integration/t*.sh.  prove prints the summary CI reads.
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
[ -n "$files" ] || { echo "no tests found for '$what'"; exit 1; }
# shellcheck disable=SC2086
exec prove --timer ${PROVE_OPTS:-} --exec '' $files
