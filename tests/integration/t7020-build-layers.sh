#!/bin/sh
# t7020: one submitter's build cannot change another's kernel (issue 36).
# The incremental tree of a base (trees/TKEY) is written only by the
# build of the base alone; a patch's build runs on an overlay layer over
# it and the layer is thrown away.  A hostile patch whose recipe plants
# a marked object dated 2035 in its output folder, then a clean patch on
# the same base: the clean kernel carries no marker and is byte for byte
# the kernel a fresh build of that patch makes, and the base's tree is
# unchanged (every file's path, size, mode, owner, date and sha256).  The
# same with a hostile build that kills its own make, and with a
# controller killed (SIGKILL) halfway through the hostile build: its
# layer is found mounted, and the next build sweeps it.  And a git base
# (its tree a worktree) the same, once.  The tree is a
# small stand-in for a kernel's whose make rebuilds by dates, as the
# kernel's does.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed (make deps)"
command -v bwrap >/dev/null 2>&1 || skip_all "bubblewrap not installed (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root: overlay mounts and the build user"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
FRESH=$SCRATCH/fresh-cache
mkdir -p "$SCHEDFARM_HOME" "$FRESH" "$SCRATCH/gfresh"
embedded_stop_at_exit "$SCHEDFARM_HOME"
# Whatever happens, no layer of ours stays mounted.
test_atexit "grep -o ' $SCRATCH/[^ ]*' /proc/self/mountinfo | sort -r | while read -r m; do umount -l \"\$m\"; done"

# The base: objects rebuilt by make when their source is newer; vmlinux
# is an ELF (size(1) reads it) with the objects appended.
mkdir -p base
cat >base/Makefile <<'EOF'
O ?= .
OBJS = $(O)/core.o $(O)/fair.o
.PHONY: tinyconfig olddefconfig bzImage kernelrelease
tinyconfig:
	@echo CONFIG_SCHED=y >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
olddefconfig:
	@cat $(O)/.config >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
$(O)/%.o: %.c
	@echo '  CC      $*.o'
	@cp $< $@
$(O)/vmlinux: $(OBJS)
	@echo '  LD      vmlinux'
	@cp /usr/bin/true $@.tmp && cat $(OBJS) >>$@.tmp && mv $@.tmp $@
vmlinux: $(O)/vmlinux
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot && cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo 6.1.0-t7020
EOF
printf 'int core_base;\n' >base/core.c
printf 'int fair_base;\n' >base/fair.c

# mkpatch NAME: diff base against mod/ into NAME.patch.
mkpatch() {
	(diff -ruN base mod >"$1.patch"; [ $? -le 1 ])
}
# The hostile recipe: plant a marked core.o dated 2035, then (with $1)
# kill its own make, or wait to be killed.
hostile() {
	rm -rf mod && cp -r base mod &&
	printf 'int core_hostile_%s;\n' "$2" >>mod/fair.c &&
	cat >>mod/Makefile <<EOF
\$(O)/vmlinux: plant
.PHONY: plant
plant: \$(O)/core.o
	@printf 'T7020-MARKER\n' >\$(O)/core.o && touch -d 2035-01-01 \$(O)/core.o
	$1
EOF
	mkpatch "$3"
}
# A clean patch: a one-line change of fair.c.
clean() {
	rm -rf mod && cp -r base mod &&
	printf 'int fair_clean_%s;\n' "$1" >>mod/fair.c && mkpatch "$2"
}
hostile '' 1 hostile
hostile '@kill -9 $$PPID' 2 killer
hostile '@sleep 600' 3 sleeper
clean 1 clean1
clean 2 clean2
clean 3 clean3

# Every file of the tree: path, type, size, mode, owner, date, content.
tree_sum() {
	t=$(ls -d "$SCHEDFARM_KERNEL_CACHE"/trees/*/) &&
	(cd "$t" && find . -printf '%p %y %s %m %U:%G %T@\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
image() {
	tail -n 1 "$1" | awk '{ print $4 }'
}
# The clean patch NAME built on the tree equals its fresh build, and the
# tree and the layers are as before.
clean_equals_fresh() {
	schedfarm kernel build --incremental --name "$1" --config tinyconfig \
		--base "$SCRATCH/base" --patch "$1.patch" >out 2>err ||
		{ cat out err; return 1; }
	schedfarm kernel show --log "$1" >log
	inc=$(image out)
	! grep -qa T7020-MARKER "$inc" || { echo "the marker is in $inc"; return 1; }
	grep_or_fail "builds on a layer over the base" log || return 1
	schedfarm kernel build --name "$1-fresh" --config tinyconfig \
		--base "$SCRATCH/base" --patch "$1.patch" --cache "$FRESH" \
		>out 2>err || { cat out err; return 1; }
	cmp "$inc" "$(image out)" || return 1
	tree_sum >sum.after && cmp sum.before sum.after ||
		{ diff sum.before sum.after; return 1; }
	! grep -q " $SCHEDFARM_KERNEL_CACHE/" /proc/self/mountinfo || return 1
	test -z "$(ls -A "$SCHEDFARM_KERNEL_CACHE/layers")"
}

test_expect_success 'the base builds its tree, root'"'"'s and closed to others' '
	schedfarm kernel build --incremental --name base --config tinyconfig \
		--base "$SCRATCH/base" >out 2>err || { cat out err; false; } &&
	tree=$(ls -d "$SCHEDFARM_KERNEL_CACHE"/trees/*/) &&
	test "$(stat -c %U:%a "$tree")" = root:700 &&
	test "$(stat -c %U "$tree/out/core.o")" = schedfarm &&
	tree_sum >sum.before && grep -q core.o sum.before
'

test_expect_success 'a hostile patch plants a marked object dated 2035' '
	schedfarm kernel build --incremental --name hostile --config tinyconfig \
		--base "$SCRATCH/base" --patch hostile.patch >out 2>err ||
		{ cat out err; false; } &&
	grep -qa T7020-MARKER "$(image out)"
'

test_expect_success 'the next patch on the base has no marker, equals its fresh build; the tree is unchanged' '
	clean_equals_fresh clean1
'

test_expect_success 'a hostile build that kills its own make fails' '
	! schedfarm kernel build --incremental --name killer --config tinyconfig \
		--base "$SCRATCH/base" --patch killer.patch >out 2>err
'

test_expect_success 'and leaves no trace: the next patch equals its fresh build' '
	clean_equals_fresh clean2
'

test_expect_success 'a controller killed halfway leaves its layer mounted' '
	"$SCHEDFARM_BIN" kernel build --incremental --name sleeper \
		--config tinyconfig --base "$SCRATCH/base" \
		--patch sleeper.patch >out 2>err &
	pid=$!
	wait_for "find $SCHEDFARM_KERNEL_CACHE/layers -path \"*/upper/core.o\" | grep -q ." 60
	found=$?
	kill -9 $pid
	wait $pid
	test $found = 0 &&
	grep -q " $SCHEDFARM_KERNEL_CACHE/layers/" /proc/self/mountinfo
'

test_expect_success 'the next build sweeps it: no marker, its fresh build, the tree unchanged' '
	clean_equals_fresh clean3 &&
	grep_or_fail "swept the layer" log
'

test_expect_success 'a git base: the patch builds on a layer over its worktree, equals its fresh build' '
	cp -r base repo &&
	git -C repo init -q && git -C repo add -A &&
	git -C repo -c user.name=t -c user.email=t@t commit -qm base &&
	git -C repo checkout -q -b clean && (cd repo && patch -sp1 <../clean1.patch) &&
	git -C repo -c user.name=t -c user.email=t@t commit -qam clean &&
	git -C repo format-patch -1 --stdout >gclean.patch &&
	git -C repo checkout -q - &&
	export SCHEDFARM_KERNEL_CACHE=$SCRATCH/gcache &&
	schedfarm kernel build --incremental --name gbase --config tinyconfig \
		--base "$SCRATCH/repo" --ref HEAD >out 2>err ||
		{ cat out err; false; } &&
	schedfarm kernel build --incremental --name ghostile --config tinyconfig \
		--base "$SCRATCH/repo" --ref HEAD --patch hostile.patch >out 2>err ||
		{ cat out err; false; } &&
	schedfarm kernel build --incremental --name gclean --config tinyconfig \
		--base "$SCRATCH/repo" --ref HEAD --patch gclean.patch >out 2>err ||
		{ cat out err; false; } &&
	schedfarm kernel show --log gclean >log &&
	grep_or_fail "builds on a layer over the base" log &&
	inc=$(image out) && ! grep -qa T7020-MARKER "$inc" &&
	schedfarm kernel build --name gclean-fresh --config tinyconfig \
		--base "$SCRATCH/repo" --ref HEAD --patch gclean.patch \
		--cache "$SCRATCH/gfresh" >out 2>err || { cat out err; false; } &&
	cmp "$inc" "$(image out)"
'

test_done
