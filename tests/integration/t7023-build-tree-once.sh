#!/bin/sh
# t7023: two builds on one base build its tree once (issue 29).  Two
# `kernel build` processes of two single patches on a base whose tree
# does not exist yet, started together, as a root controller builds them
# by default (no --incremental): the first makes the base's tree (all of
# its steps), the second waits on the tree's lock and says so, for whom
# ("waiting for the tree of BASE (another build holds it: kernel a1,
# ...)"), then finds the base's tree built and builds only its layer.
# Each image is the one a fresh build of its patch makes, and
# kernels.build_mode says how each was built.  Then a third patch on the
# built tree rebuilds only the file it changes, and equals its fresh
# build; two builds of one kernel at once wait on its key's lock the same
# way, and the second finds the first's.  The tree is t7020's small
# stand-in for a kernel's (make rebuilds by dates), with six objects and
# a slow link, so that the second build surely comes while the first
# holds the tree.  Its objects rebuild, as kbuild's do, when the command
# line that made them named other folders: a layer must show the build
# its merged folders at the tree's own paths, or every object is
# compiled again (bench/patch-build found a one-line patch recompiling
# the whole kernel so).
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed (make deps)"
command -v bwrap >/dev/null 2>&1 || skip_all "bubblewrap not installed (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root: overlay mounts and the build user"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
FRESH=$SCRATCH/fresh-cache
mkdir -p "$SCHEDFARM_HOME" "$FRESH"
embedded_stop_at_exit "$SCHEDFARM_HOME"
test_atexit "grep -o ' $SCRATCH/[^ ]*' /proc/self/mountinfo | sort -r | while read -r m; do umount -l \"\$m\"; done"

mkdir -p base
cat >base/Makefile <<'EOF'
O ?= .
OBJS = $(O)/core.o $(O)/fair.o $(O)/rt.o $(O)/deadline.o $(O)/idle.o $(O)/topology.o
# As kbuild's if_changed: an object whose recorded command line (which
# names the source and output folders, as gcc's -I and -o do) differs
# from this make's is compiled again, whatever the dates say.
CMD = cc $(CURDIR) $(O) $*
.PHONY: tinyconfig olddefconfig bzImage kernelrelease FORCE
tinyconfig:
	@echo CONFIG_SCHED=y >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
olddefconfig:
	@cat $(O)/.config >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
$(O)/%.o: %.c FORCE
	@if [ ! -e $@ ] || [ $< -nt $@ ] || \
	    [ "$$(cat $(O)/.$*.o.cmd 2>/dev/null)" != '$(CMD)' ]; then \
		echo '  CC      $*.o' && cp $< $@ && echo '$(CMD)' >$(O)/.$*.o.cmd; fi
$(O)/vmlinux: $(OBJS)
	@if [ ! -e $@ ] || [ -n "$$(find $(OBJS) -newer $@)" ]; then \
		echo '  LD      vmlinux' && sleep 3 && \
		cp /usr/bin/true $@.tmp && cat $(OBJS) >>$@.tmp && mv $@.tmp $@; fi
vmlinux: $(O)/vmlinux
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot && cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo 6.1.0-t7023
EOF
for f in core fair rt deadline idle topology; do
	printf 'int %s_base;\n' "$f" >"base/$f.c"
done

# onepatch NAME FILE: a one-line change of FILE.c into NAME.patch.
onepatch() {
	rm -rf mod && cp -r base mod &&
	printf 'int %s_%s;\n' "$2" "$1" >>"mod/$2.c" &&
	(diff -ruN base mod >"$1.patch"; [ $? -le 1 ])
}
onepatch a1 fair
onepatch a2 core
onepatch a3 rt

# grep_or_fail with a basic regular expression.
grep_re_or_fail() {
	grep -q -- "$1" "$2" && return 0
	echo "expected /$1/ in $2, which holds:"
	sed 's/^/    /' "$2"
	return 1
}
q() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}
image() {
	tail -n 1 "$1" | awk '{ print $4 }'
}
# NAME's image equals the image of a fresh build of NAME.patch (bytes,
# size and .config), and its row says it was built incrementally.
equals_fresh() {
	inc=$(image "$1.out") &&
	schedfarm kernel build --fresh --name "$1-fresh" --config tinyconfig \
		--base "$SCRATCH/base" --patch "$1.patch" --cache "$FRESH" \
		>"$1-fresh.out" 2>"$1-fresh.err" ||
		{ cat "$1-fresh.out" "$1-fresh.err"; return 1; }
	fresh=$(image "$1-fresh.out") &&
	cmp "$inc" "$fresh" &&
	test "$(size "$inc" | tail -n 1 | cut -f1-3)" = \
		"$(size "$fresh" | tail -n 1 | cut -f1-3)" &&
	cmp "$SCHEDFARM_KERNEL_CACHE"/trees/*/out/.config \
		"$(dirname "$fresh")/out/.config" &&
	test "$(q "SELECT build_mode FROM kernels WHERE name = '$1'")" = incremental &&
	test "$(q "SELECT build_mode FROM kernels WHERE name = '$1-fresh'")" = fresh
}

test_expect_success 'two patches on a base not built yet: the second waits for the first' '
	schedfarm db migrate >/dev/null &&
	"$SCHEDFARM_BIN" kernel build --name a1 --config tinyconfig \
		--base "$SCRATCH/base" --patch a1.patch >a1.out 2>a1.err &
	p1=$!
	wait_for "grep -qs \"^who=kernel a1\$\" $SCHEDFARM_KERNEL_CACHE/trees/*.lock" 60
	held=$?
	"$SCHEDFARM_BIN" kernel build --name a2 --config tinyconfig \
		--base "$SCRATCH/base" --patch a2.patch >a2.out 2>a2.err &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	cat a1.err a2.err &&
	test $held = 0 && test $r1 = 0 && test $r2 = 0 &&
	schedfarm kernel show --log a1 >a1.log &&
	schedfarm kernel show --log a2 >a2.log
'

test_expect_success 'the first built the base'"'"'s tree, all of it, then its layer' '
	grep_re_or_fail "the base.s tree .* built (7 steps)" a1.log &&
	grep_or_fail "builds on a layer over the base" a1.log &&
	! grep -q "waiting for" a1.log
'

test_expect_success 'the second waited, saying for whom, found the tree built and built only its layer' '
	grep_re_or_fail "^build: waiting for the tree of $SCRATCH/base (another build holds it: kernel a1, pid [0-9]*" a2.err &&
	grep_or_fail "waiting for the tree of $SCRATCH/base (another build holds it: kernel a1" a2.log &&
	test "$(grep -c "^build: waiting for the tree of" a2.err)" -ge 2 &&
	test "$(grep -c "waiting for the tree of" a2.log)" = 1 &&
	grep_re_or_fail "^waited [0-9.]*s for the tree of" a2.log &&
	grep_re_or_fail "the base.s tree .* is built" a2.log &&
	! grep "base.s tree .* built (" a2.log &&
	grep_or_fail "builds on a layer over the base" a2.log &&
	grep_or_fail "(a reused tree, 2 steps)" a2.log &&
	test "$(ls -d "$SCHEDFARM_KERNEL_CACHE"/trees/*/ | wc -l)" = 1
'

test_expect_success 'each equals its fresh build' '
	equals_fresh a1 && equals_fresh a2
'

test_expect_success 'a patch on the built tree rebuilds only what it changes, equals its fresh build' '
	schedfarm kernel build --name a3 --config tinyconfig \
		--base "$SCRATCH/base" --patch a3.patch >a3.out 2>a3.err ||
		{ cat a3.out a3.err; false; } &&
	schedfarm kernel show --log a3 >a3.log &&
	grep_re_or_fail "the base.s tree .* is built" a3.log &&
	grep_or_fail "(a reused tree, 2 steps)" a3.log &&
	grep_or_fail "CC      rt.o" a3.log &&
	! grep "CC      fair.o" a3.log &&
	equals_fresh a3
'

test_expect_success 'unconfined (no sandbox, --trust-submitters), a patch on the tree still rebuilds only what it changes' '
	onepatch a5 deadline &&
	SCHEDFARM_BWRAP=/nonexistent/bwrap schedfarm --trust-submitters \
		kernel build --name a5 --config tinyconfig \
		--base "$SCRATCH/base" --patch a5.patch >a5.out 2>a5.err ||
		{ cat a5.out a5.err; false; } &&
	schedfarm kernel show --log a5 >a5.log &&
	grep_or_fail "builds on a layer over the base" a5.log &&
	grep_or_fail "(a reused tree, 2 steps)" a5.log &&
	grep_or_fail "CC      deadline.o" a5.log &&
	! grep -q " $SCHEDFARM_KERNEL_CACHE/" /proc/self/mountinfo &&
	equals_fresh a5
'

test_expect_success 'two builds of one kernel at once: the second waits for the same kernel, then finds it built' '
	onepatch a4 idle &&
	"$SCHEDFARM_BIN" kernel build --name a4 --config tinyconfig \
		--base "$SCRATCH/base" --patch a4.patch >a4.out 2>a4.err &
	p1=$!
	wait_for "grep -qs \"^who=kernel a4\$\" $SCHEDFARM_KERNEL_CACHE/builds/*.lock" 60
	held=$?
	"$SCHEDFARM_BIN" kernel build --name a4b --config tinyconfig \
		--base "$SCRATCH/base" --patch a4.patch >a4b.out 2>a4b.err &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	test $held = 0 && test $r1 = 0 && test $r2 = 0 &&
	grep_re_or_fail "^build: waiting for the same kernel (key [0-9a-f]*) (another build holds it: kernel a4, pid [0-9]*" a4b.err &&
	grep_or_fail "cache hit: a4b" a4b.out &&
	cmp "$(image a4.out)" "$(image a4b.out)"
'

test_expect_success 'kernel build --fresh builds from scratch, recorded as fresh' '
	schedfarm kernel build --fresh --name f3 --config tinyconfig \
		--base "$SCRATCH/base" --patch a3.patch --cache "$SCRATCH/c3" \
		>f3.out 2>f3.err || { cat f3.out f3.err; false; } &&
	schedfarm kernel show --log f3 >f3.log &&
	! grep -q "incremental build" f3.log &&
	test ! -e "$SCRATCH/c3/trees" &&
	test "$(q "SELECT build_mode FROM kernels WHERE name = '"'"'f3'"'"'")" = fresh
'

test_done
