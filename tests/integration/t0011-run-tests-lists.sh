#!/bin/sh
# t0011: the suite's runner (tests/run-tests.sh) ends with what CI reads: the
# skipped tests with their reasons, the failed tests with the end of their
# output (CI keeps only the end of a long run), then prove's summary again,
# last.  Run on small scripts of its own that use tests/lib/test-lib.sh the
# way the suite's do.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p "$SCRATCH/t/integration" "$SCRATCH/t/lib"
cp "$TOP/tests/lib/test-lib.sh" "$SCRATCH/t/lib/" || exit 1
cat >"$SCRATCH/t/integration/t1-skips.sh" <<'EOF'
#!/bin/sh
. "$(dirname "$0")/../lib/test-lib.sh"
skip_all "no frobnicator here"
EOF
cat >"$SCRATCH/t/integration/t2-fails.sh" <<'EOF'
#!/bin/sh
. "$(dirname "$0")/../lib/test-lib.sh"
test_expect_success 'the one that passes' 'true'
test_expect_success 'the one that fails' '
	seq 1 100 && echo "the reason it failed" && false
'
test_skip 'the one that cannot run' 'no widget attached'
test_done
EOF
cat >"$SCRATCH/t/integration/t3-passes.sh" <<'EOF'
#!/bin/sh
. "$(dirname "$0")/../lib/test-lib.sh"
test_expect_success 'it passes' 'true'
test_done
EOF
chmod +x "$SCRATCH"/t/integration/*.sh

runner() {
	sh "$TOP/tests/run-tests.sh" "$@" >out 2>err
	echo $? >rc
}

test_expect_success 'a run with a skip and a failure lists both, then ends with prove'"'"'s summary' '
	runner "$SCRATCH/t/integration/t1-skips.sh" "$SCRATCH/t/integration/t2-fails.sh" \
		"$SCRATCH/t/integration/t3-passes.sh" &&
	cat out &&
	test "$(cat rc)" -ne 0 &&
	grep_or_fail "Skipped: 2 (file, test, reason)" out &&
	grep_or_fail "  t1-skips.sh  (all): no frobnicator here" out &&
	grep_or_fail "  t2-fails.sh  the one that cannot run: no widget attached" out &&
	grep_or_fail "Failed tests, with the end of their output:" out &&
	grep_or_fail "t2-fails.sh: not ok 2 - the one that fails" out &&
	grep_or_fail "    the reason it failed" out &&
	! grep -q "^    61$" out && grep -q "^    62$" out &&
	! grep -q "the one that passes" out &&
	test "$(tail -n 1 out)" = "Result: FAIL" &&
	sed -n "/^Failed tests/,\$p" out | grep -q "^Test Summary Report"
'

test_expect_success 'a run that passes says "Skipped: none", lists no failure, ends with PASS' '
	runner "$SCRATCH/t/integration/t3-passes.sh" &&
	cat out &&
	test "$(cat rc)" -eq 0 &&
	grep -qx "Skipped: none" out &&
	! grep -q "Failed tests" out &&
	test "$(tail -n 1 out)" = "Result: PASS"
'

test_done
