#!/bin/sh
# t0008: tools/check-layers, the layering rules of doc/DESIGN.md checked
# on the code, passes on the tree as it is and fails, naming FILE:LINE and
# the rule, on each break it is there for: an include up the documented
# folder order, a cycle between two files of controller/ (by includes, or
# by calls through a shared -int.h), a file of more than 100 lines the doc
# does not name, a function over 150 lines or a file over 1000, an SQL statement
# in a verb file.  Every exception the doc lists is needed (the check fails
# without it) and one that matches nothing, or allows more statements than
# its file holds, is refused, so the list only shrinks.  Each case works on its own copy of controller/, common/,
# agent/, doc/DESIGN.md and the script, never on the tree.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed (make deps)"

mkdir -p "$SCRATCH/tree/doc" "$SCRATCH/tree/tools"
cp -R "$TOP/controller" "$TOP/common" "$TOP/agent" "$SCRATCH/tree/" &&
	cp "$TOP/doc/DESIGN.md" "$SCRATCH/tree/doc/" &&
	cp "$TOP/tools/check-layers" "$SCRATCH/tree/tools/" || exit 1
# Only sources are read: built objects would only slow the copy's walk.
find "$SCRATCH/tree" -name '*.[od]' -delete
rm -f "$SCRATCH/tree/controller/schedfarm" "$SCRATCH/tree/agent/schedfarm-agent"

# fresh NAME: a copy of the tree to break, in $SCRATCH/NAME.
fresh() {
	rm -rf "$SCRATCH/$1" && cp -R "$SCRATCH/tree" "$SCRATCH/$1"
}

# append LINE FILE: add LINE at the end of FILE; prints its line number.
append() {
	printf '%s\n' "$1" >>"$2" && wc -l <"$2" | tr -d ' '
}

# layers DIR: run the check on DIR, its output in out, its status in rc.
layers() {
	(cd "$1" && python3 tools/check-layers) >out 2>err
	echo $? >rc
}

test_expect_success 'the tree as it is passes, silently' '
	layers "$SCRATCH/tree" &&
	{ [ "$(cat rc)" = 0 ] || { cat out err; false; }; } &&
	! test -s out
'

test_expect_success 'an include up the order fails, naming file:line and the rule' '
	fresh up &&
	n=$(append "#include \"cmd/builtin.h\"" up/controller/store/jobs.c) &&
	layers "$SCRATCH/up" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "controller/store/jobs.c:$n: up: controller/store/jobs.c includes controller/cmd/builtin.h: controller/store may not include controller/cmd" out &&
	grep_or_fail "cycle: a cycle between units: " out &&
	grep_or_fail " -> controller/cmd (controller/store/jobs.c:$n)" out
'

test_expect_success 'so does common/ including the controller, and the agent it' '
	fresh agent &&
	n=$(append "#include \"store/db.h\"" agent/common/strbuf.c) &&
	m=$(append "#include \"../controller/store/db.h\"" agent/agent/main.c) &&
	layers "$SCRATCH/agent" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "common/strbuf.c:$n: up: common/strbuf.c includes controller/store/db.h: common may not include controller/store" out &&
	grep_or_fail "agent/main.c:$m: up: agent/main.c includes controller/store/db.h: agent may not include controller/store" out
'

test_expect_success 'a cycle of calls between two files of one folder fails, with both arrows (an include alone does not)' '
	fresh file &&
	n=$(append "#include \"store/queue.h\"" file/controller/store/answers.c) &&
	layers "$SCRATCH/file" &&
	{ [ "$(cat rc)" = 0 ] || { echo "an include for types alone drew an arrow"; cat out; false; }; } &&
	append "int zz_call(void);" file/controller/store/answers.c >/dev/null &&
	append "int zz_call(void) { return queue_submit(NULL, NULL, NULL, NULL); }" file/controller/store/answers.c >/dev/null &&
	layers "$SCRATCH/file" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "file: a cycle between files: controller/store/answers -> controller/store/queue (controller/store/answers.c:$n (queue_submit)) -> controller/store/answers (controller/store/queue.c:" out
'

# mutual NAME CALLBACK: two files of lab/ sharing one -int.h; zz_a.c
# calls zz_b(), and zz_b.c calls zz_a() when CALLBACK is 1.
mutual() {
	fresh "$1" &&
	printf '%s\n' "int zz_a(void);" "int zz_b(void);" >"$1/controller/lab/zz-int.h" &&
	printf '%s\n' "#include \"lab/zz-int.h\"" "int zz_a(void)" "{" \
		"	return zz_b() + 1;" "}" >"$1/controller/lab/zz_a.c" &&
	if [ "$2" = 1 ]; then body="return zz_a() - 1;"; else body="return 1;"; fi &&
	printf '%s\n' "#include \"lab/zz-int.h\"" "int zz_b(void)" "{" \
		"	$body" "}" >"$1/controller/lab/zz_b.c"
}

test_expect_success 'two files calling each other through a shared -int.h are a cycle' '
	mutual callcycle 1 &&
	layers "$SCRATCH/callcycle" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "file: a cycle between files: controller/lab/zz_a -> controller/lab/zz_b (controller/lab/zz_a.c:1 (zz_b)) -> controller/lab/zz_a (controller/lab/zz_b.c:1 (zz_a))" out
'

test_expect_success 'but one calling the other through it is a one-way arrow' '
	mutual oneway 0 &&
	layers "$SCRATCH/oneway" &&
	{ [ "$(cat rc)" = 0 ] || { cat out err; false; }; }
'

test_expect_success 'an SQL statement in a verb file fails, even split over literals' '
	fresh sql &&
	n=$(append "static const char *q = \"SELECT id \"" sql/controller/cmd/cmd_db.c) &&
	append "	\"FROM jobs WHERE id = \$1\";" sql/controller/cmd/cmd_db.c >/dev/null &&
	layers "$SCRATCH/sql" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "controller/cmd/cmd_db.c:$n: sql: an SQL statement outside controller/store/ (\"SELECT id FROM\"): ask a store/ function" out
'

test_expect_success 'but not prose, a comment or lower case' '
	fresh prose &&
	cat >>prose/controller/cmd/cmd_db.c <<-\EOF &&
	/* SELECT id FROM jobs WHERE id = $1: a comment is no statement */
	static const char *p1 = "select a host from the list";
	static const char *p2 = "SELECT: pick the host WHERE it is cheapest? no FROM";
	static const char *p3 = "UPDATE the kernel, then SET it";
	EOF
	layers "$SCRATCH/prose" &&
	{ [ "$(cat rc)" = 0 ] || { cat out err; false; }; }
'

test_expect_success 'a file of weight the doc does not name fails' '
	fresh doc &&
	for i in $(seq 1 120); do echo "int zz_unnamed_$i;"; done >doc/controller/lab/zz_unnamed.c &&
	layers "$SCRATCH/doc" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "controller/lab/zz_unnamed.c: doc: 120 lines, and doc/DESIGN.md does not name it" out &&
	echo "| zz | \`zz_unnamed.c\` (a test file) |" >>doc/doc/DESIGN.md &&
	layers "$SCRATCH/doc" &&
	{ [ "$(cat rc)" = 0 ] || { cat out err; false; }; }
'

test_expect_success 'a function over 150 lines, or a file over 1000, fails' '
	fresh size &&
	{
		echo "int zz_long(void)" && echo "{" && echo "	int x = 0;" &&
		for i in $(seq 1 148); do echo "	x += $i;"; done &&
		echo "	return x;" && echo "}"
	} >size/controller/lab/zz_long.c &&
	echo "| zz | \`zz_long.c\` (a test file) |" >>size/doc/DESIGN.md &&
	layers "$SCRATCH/size" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "controller/lab/zz_long.c:1: size: zz_long is 153 lines, over 150" out &&
	for i in $(seq 1 900); do echo "int zz_pad_$i;"; done >>size/controller/lab/zz_long.c &&
	layers "$SCRATCH/size" &&
	grep_or_fail "controller/lab/zz_long.c: size: 1053 lines, over 1000" out
'

test_expect_success 'each exception the doc lists is needed' '
	sed -n "/^\`\`\`layers-exceptions/,/^\`\`\`\$/p" tree/doc/DESIGN.md |
		grep -v "^\`\`\`" | sed "s/#.*//" | grep -v "^[[:space:]]*\$" >exceptions || true
	while read -r kind rest; do
		rm -rf one && mkdir -p one/doc &&
		for d in controller common agent tools; do
			ln -s "$SCRATCH/tree/$d" one/$d || return 1
		done &&
		grep -v -F -x -e "$kind $rest" tree/doc/DESIGN.md >one/doc/DESIGN.md &&
		layers "$SCRATCH/one" &&
		{ [ "$(cat rc)" = 1 ] ||
			{ echo "exception not needed: $kind $rest"; return 1; }; } &&
		grep -q ": $kind: " out ||
		{ echo "no $kind break without: $kind $rest"; cat out; return 1; }
	done <exceptions
'

test_expect_success 'an exception that matches nothing is refused' '
	fresh stale &&
	sed "s/^\`\`\`layers-exceptions\$/&\nsql controller\/cmd\/cmd_nothing.c 1/" \
		tree/doc/DESIGN.md >stale/doc/DESIGN.md &&
	layers "$SCRATCH/stale" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "doc/DESIGN.md:$(grep -n "^sql controller/cmd/cmd_nothing.c 1\$" stale/doc/DESIGN.md | cut -d: -f1): stale: the exception '"'"'sql controller/cmd/cmd_nothing.c 1'"'"' matches nothing: remove it" out
'

test_expect_success 'and so is a count above what the file holds' '
	fresh count &&
	append "static const char *zz_q = \"SELECT id FROM jobs\";" count/controller/cmd/cmd_db.c >/dev/null &&
	sed "s/^\`\`\`layers-exceptions\$/&\nsql controller\/cmd\/cmd_db.c 2/" \
		tree/doc/DESIGN.md >count/doc/DESIGN.md &&
	layers "$SCRATCH/count" &&
	[ "$(cat rc)" = 1 ] &&
	grep_or_fail "stale: the exception '"'"'sql controller/cmd/cmd_db.c 2'"'"' allows more than the 1 statements there: lower it" out &&
	sed "s/^\`\`\`layers-exceptions\$/&\nsql controller\/cmd\/cmd_db.c 1/" \
		tree/doc/DESIGN.md >count/doc/DESIGN.md &&
	layers "$SCRATCH/count" &&
	{ [ "$(cat rc)" = 0 ] || { cat out err; false; }; }
'

test_done
