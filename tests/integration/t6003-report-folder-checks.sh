#!/bin/sh
# t6003: the report folder is checked as the state folder's own folders
# are (home_check_owned): `report --out` that is, or links to, a folder
# others can write to (a world-writable one, its group's) or one of
# another user is refused before anything is written there; a link to a
# folder of the farm's user is fine.  Links planted inside the folder
# under the names of its pages and data files are replaced by the pages,
# never followed: the files they point at are neither made nor changed.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME="$SCRATCH/home"

test_expect_success 'setup: a host (so there are pages beyond the index), a first report' '
	schedfarm host add here --kind local --no-contact >/dev/null &&
	schedfarm --json report --out "$SCRATCH/r1" >r1.json &&
	jq -e ".files_written > 2" r1.json &&
	ls "$SCRATCH/r1" >names &&
	grep -q "^index.html$" names && grep -q "^host-" names
'

test_expect_success 'a link --out into a world-writable folder is refused, nothing written' '
	mkdir ww && chmod 0777 ww && ln -s "$SCRATCH/ww" rep-link &&
	! schedfarm report --out "$SCRATCH/rep-link" 2>err &&
	grep_or_fail "refusing the report folder $SCRATCH/rep-link (a link to $SCRATCH/ww): $SCRATCH/ww can be written by anyone (mode 0777" err &&
	test -z "$(ls -A ww)" &&
	chmod 1777 ww &&
	! schedfarm report --out "$SCRATCH/rep-link" 2>err &&
	grep_or_fail "can be written by anyone (mode 1777" err &&
	test -z "$(ls -A ww)"
'

test_expect_success 'so is a folder its group can write to, named directly' '
	mkdir gw && chmod 0775 gw &&
	! schedfarm report --out "$SCRATCH/gw" 2>err &&
	grep_or_fail "refusing the report folder $SCRATCH/gw: $SCRATCH/gw can be written by its group" err &&
	test -z "$(ls -A gw)"
'

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	test_expect_success 'and a folder of another user' '
		mkdir theirs && chown nobody theirs &&
		! schedfarm report --out "$SCRATCH/theirs" 2>err &&
		grep_or_fail "$SCRATCH/theirs belongs to nobody" err &&
		test -z "$(ls -A theirs)"
	'
else
	test_skip "and a folder of another user" "not root: cannot chown a folder to nobody"
fi

test_expect_success 'a link to a folder of the farm user is fine' '
	mkdir -m 0755 mine && ln -s "$SCRATCH/mine" mine-link &&
	schedfarm --json report --out "$SCRATCH/mine-link" >m.json &&
	jq -e ".out_dir == \"$SCRATCH/mine\"" m.json &&
	test -s mine/index.html
'

test_expect_success 'links planted under the names of its files are replaced, not followed' '
	mkdir -m 0755 r2 victims &&
	echo untouched >victims/index.html &&
	while read -r n; do
		ln -s "$SCRATCH/victims/$n" "r2/$n" || exit 1
	done <names &&
	schedfarm --json report --out "$SCRATCH/r2" >r2.json &&
	jq -e ".files_written > 2" r2.json &&
	test "$(ls victims)" = index.html &&
	test "$(cat victims/index.html)" = untouched &&
	while read -r n; do
		test -f "r2/$n" && ! test -L "r2/$n" || { echo "r2/$n is still a link"; exit 1; }
	done <names
'

test_done
