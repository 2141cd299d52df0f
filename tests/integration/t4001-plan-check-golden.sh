#!/bin/sh
# t4001: `schedfarm plan check` on a folder of malformed plans, one defect
# each (tests/data/plans/NAME.yaml), prints exactly the errors in the
# golden file beside it (NAME.err): file:line:col, what was expected, in
# line order; exits 1; prints nothing on stdout.  A NAME.set beside a
# plan holds --set KEY=VALUE arguments, one a line, given with it.
. "$(dirname "$0")/../lib/test-lib.sh"

DATA=$TOP/tests/data/plans

# check NAME: plan check NAME.yaml in $DATA with NAME.set's --set options
check() {
	(
		cd "$DATA" || exit 99
		set -- "$1.yaml"
		if [ -f "${1%.yaml}.set" ]; then
			f=${1%.yaml}.set
			set --
			while IFS= read -r l; do set -- "$@" --set "$l"; done <"$f"
			set -- "$@" "${f%.set}.yaml"
		fi
		"$SCHEDFARM_BIN" plan check "$@"
	)
}

test_expect_success 'every malformed plan has a golden file and back' '
	n=0 &&
	for y in "$DATA"/*.yaml; do
		test -f "${y%.yaml}.err" || { echo "no golden file for $y"; return 1; }
		n=$((n + 1))
	done &&
	for e in "$DATA"/*.err; do
		test -f "${e%.err}.yaml" || { echo "golden file without plan: $e"; return 1; }
	done &&
	test "$n" -ge 40 || { echo "only $n malformed plans"; return 1; }
'

for y in "$DATA"/*.yaml; do
	name=$(basename "$y" .yaml)
	test_expect_success "plan check $name.yaml: golden errors, exit 1" "
		check $name >out 2>err
		rc=\$?
		test \$rc = 1 || { echo \"exit \$rc, not 1\"; return 1; }
		test ! -s out || { echo 'stdout not empty:'; cat out; return 1; }
		diff -u \"$DATA/$name.err\" err
	"
done

test_expect_success 'every error line has the file:line:col: error: form' '
	for y in "$DATA"/*.yaml; do
		check "$(basename "$y" .yaml)" 2>>all
	done
	grep -v -E "^[a-z0-9-]+\.yaml(:[0-9]+:[0-9]+)?: error: .+" all >bad
	test ! -s bad || { echo "lines without a position:"; cat bad; return 1; }
	grep -c -E "^[a-z0-9-]+\.yaml:[0-9]+:[0-9]+: error: " all >n &&
	test "$(cat n)" -ge 100
'

test_expect_success 'errors of several files are all reported, good ones too' '
	cp "$DATA/unknown-key.yaml" "$DATA/out-of-range.yaml" . &&
	cp "$TOP/plans/smoke.yaml" . &&
	schedfarm plan check unknown-key.yaml smoke.yaml out-of-range.yaml >out 2>err
	test $? = 1 &&
	grep_or_fail "smoke.yaml: ok, 2 runs" out &&
	grep_or_fail "unknown-key.yaml:3:1: error: plan: unknown key" err &&
	grep_or_fail "out-of-range.yaml:3:9: error: warmup:" err
'

test_expect_success 'a missing file is an error naming it' '
	schedfarm plan check no-such.yaml 2>err
	test $? = 1 &&
	grep_or_fail "no-such.yaml: error: cannot read: No such file" err
'

test_expect_success 'an include outside the plan folder, or no definition, is never quoted' '
	for y in "$DATA"/include-*.yaml; do
		check "$(basename "$y" .yaml)" 2>>inc.err
	done
	grep_or_fail "climbs out of the plan" inc.err &&
	grep_or_fail "a symbolic link out of the plan" inc.err &&
	! grep -n -e "hunter2" -e "root:" -e "nothing here is read" inc.err
'

test_expect_success 'a plan past the size cap is refused unread' '
	{ echo "workload: memchunk"; head -c 1100000 /dev/zero | tr "\0" "#"; } >big.yaml &&
	schedfarm plan check big.yaml 2>err
	test $? = 1 &&
	grep_or_fail "big.yaml: error: plan is more than the cap of 1048576 bytes" err
'

test_expect_success 'a billion-laughs plan is refused at its first alias' '
	cat >laughs.yaml <<-\EOT &&
	a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]
	b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
	c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
	d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]
	EOT
	schedfarm plan check laughs.yaml 2>err
	test $? = 1 &&
	grep_or_fail "laughs.yaml:2:8: error: YAML aliases" err
'

test_done
