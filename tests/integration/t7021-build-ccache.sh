#!/bin/sh
# t7021: the compiler cache (issues 29 and 36).  Every build's make runs
# CC="ccache gcc"; the cache lives in the kernel cache (CACHE/ccache/store,
# the farm user's, below a root-only CACHE/ccache) and only the farm's
# builds of a base alone write it.  A base build fills it; a hostile
# patch whose recipe writes a marked file into the cache folder and runs
# ccache with CCACHE_READONLY unset leaves the folder as it was (the list
# of its files and the sha256 of each), and the next clean patch's image
# carries no marker and equals its fresh build.  A second build of the
# same sources in other folders (a copy of the base built afresh in
# builds/KEY/ where the first was built in trees/TKEY/, and the base with
# one more config fragment) hits the cache for every object.  The farm's
# user cannot reach the folder outside a sandbox.  Without ccache a build
# still works and its log says so.  The tree is a small stand-in for a
# kernel's whose objects are compiled by $(CC), as the kernel's are.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed (make deps)"
command -v bwrap >/dev/null 2>&1 || skip_all "bubblewrap not installed (make deps)"
command -v ccache >/dev/null 2>&1 || skip_all "ccache not installed (make deps)"
command -v gcc >/dev/null 2>&1 || skip_all "gcc not installed (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root: overlay mounts and the build user"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
FRESH=$SCRATCH/fresh-cache
STORE=$SCHEDFARM_KERNEL_CACHE/ccache/store
mkdir -p "$SCHEDFARM_HOME" "$FRESH"
embedded_stop_at_exit "$SCHEDFARM_HOME"
test_atexit "grep -o ' $SCRATCH/[^ ]*' /proc/self/mountinfo | sort -r | while read -r m; do umount -l \"\$m\"; done"

# The base: objects compiled by $(CC) (make's CC=, ccache gcc), rebuilt
# when their source is newer; vmlinux an ELF with the objects appended.
mkdir -p base/scripts/kconfig
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
	@$(CC) -O2 -c -o $@ $<
$(O)/vmlinux: $(OBJS)
	@echo '  LD      vmlinux'
	@cp /usr/bin/true $@.tmp && cat $(OBJS) >>$@.tmp && mv $@.tmp $@
vmlinux: $(O)/vmlinux
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot && cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo 6.1.0-t7021
EOF
cat >base/scripts/kconfig/merge_config.sh <<'EOF'
#!/bin/sh
set -e
[ "$1" = -m ] && shift
[ "$1" = -O ] && { out=$2; shift 2; }
tmp=$(mktemp ./.tmp.config.XXXXXXXXXX)
cat "$@" >"$tmp"
mv "$tmp" "$out/.config"
EOF
chmod 755 base/scripts/kconfig/merge_config.sh
printf 'int core_base(void) { return 1; }\n' >base/core.c
printf 'int fair_base(void) { return 2; }\n' >base/fair.c
printf 'CONFIG_FRAGMENT_T7021=y\n' >"$SCRATCH/frag.config"

mkpatch() {
	(diff -ruN base mod >"$1.patch"; [ $? -le 1 ])
}
# The hostile patch: its recipe writes a marked file into the cache's
# folder, by the path its environment names and by the kernel cache's,
# and compiles a marked object with CCACHE_READONLY unset (and
# CCACHE_NOREADONLY set), so that ccache would store it if it could.
rm -rf mod && cp -r base mod &&
printf 'int fair_hostile(void) { return 3; }\n' >>mod/fair.c &&
printf 'const char marker[] = "T7021-MARKER";\n' >mod/evil.c &&
cat >>mod/Makefile <<EOF
\$(O)/vmlinux: poison
.PHONY: poison
poison:
	@echo "T7021-TRIED CCACHE_DIR=\$\$CCACHE_DIR"
	-@printf 'T7021-MARKER\n' >"\$\$CCACHE_DIR/marker"
	-@printf 'T7021-MARKER\n' >"$STORE/marker2"
	-@mkdir -p "\$\$CCACHE_DIR/0/0" && printf 'T7021-MARKER\n' >"\$\$CCACHE_DIR/0/0/planted"
	-@env -u CCACHE_READONLY CCACHE_NOREADONLY=1 \$(CC) -O2 -c -o \$(O)/evil.o evil.c
	-@env -u CCACHE_READONLY CCACHE_NOREADONLY=1 CCACHE_TEMPDIR="\$\$CCACHE_DIR/tmp" \$(CC) -O2 -c -o \$(O)/evil2.o evil.c
	-@cat \$(O)/evil.o >>\$(O)/core.o
EOF
mkpatch hostile
rm -rf mod && cp -r base mod &&
printf 'int fair_clean(void) { return 4; }\n' >>mod/fair.c && mkpatch clean

# Every file of the cache's folder: path, type, size, mode, owner, date,
# content.
store_sum() {
	(cd "$STORE" && find . -printf '%p %y %s %m %U:%G %T@\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
image() {
	tail -n 1 "$1" | awk '{ print $4 }'
}
# The cache's counters: "hits misses files".
counters() {
	schedfarm kernel list --cache --json >stats.json &&
	python3 -c 'import json,sys; d=json.load(open("stats.json")); print(d["hits"], d["misses"], d["files"])'
}

test_expect_success 'a base build fills the cache, which only a sandbox reaches' '
	schedfarm kernel build --incremental --name base --config tinyconfig \
		--base "$SCRATCH/base" >out 2>err || { cat out err; false; } &&
	schedfarm kernel show --log base >log &&
	grep_or_fail "compiler cache $STORE: read and written" log &&
	grep_or_fail "CC=ccache gcc" log &&
	test "$(stat -c %U:%a "$SCHEDFARM_KERNEL_CACHE/ccache")" = root:700 &&
	test "$(stat -c %U:%a "$STORE")" = schedfarm:700 &&
	test -n "$(find "$STORE" -type f -name "*R")" &&
	counters >c && read -r hits misses files <c &&
	test "$hits" = 0 && test "$misses" = 2 && test "$files" -ge 2 &&
	! setpriv --reuid=schedfarm --regid=schedfarm --clear-groups \
		ls "$STORE" >/dev/null 2>&1 &&
	store_sum >sum.before
'

test_expect_success 'kernel list --cache shows the folder, its use and its cap' '
	schedfarm kernel list --cache >list &&
	grep_or_fail "compiler cache $STORE" list &&
	grep_or_fail "of 5120.0 MiB" list &&
	grep_or_fail "misses  2" list &&
	python3 -c "import json; d=json.load(open(\"stats.json\")); assert d[\"installed\"] and d[\"max_bytes\"] == 5 << 30 and d[\"size_bytes\"] > 0, d"
'

test_expect_success 'a hostile patch tries to write the cache and cannot' '
	schedfarm kernel build --incremental --name hostile --config tinyconfig \
		--base "$SCRATCH/base" --patch hostile.patch >out 2>err ||
		{ cat out err; false; } &&
	schedfarm kernel show --log hostile >log &&
	grep_or_fail "compiler cache $STORE: read-only" log &&
	grep_or_fail "T7021-TRIED CCACHE_DIR=$STORE" log &&
	grep -qa T7021-MARKER "$(image out)" &&
	store_sum >sum.after && cmp sum.before sum.after ||
		{ diff sum.before sum.after; false; }
'

test_expect_success 'the next clean patch has no marker and equals its fresh build' '
	schedfarm kernel build --incremental --name clean --config tinyconfig \
		--base "$SCRATCH/base" --patch clean.patch >out 2>err ||
		{ cat out err; false; } &&
	inc=$(image out) &&
	! grep -qa T7021-MARKER "$inc" &&
	schedfarm kernel build --name clean-fresh --config tinyconfig \
		--base "$SCRATCH/base" --patch clean.patch --cache "$FRESH" \
		>out 2>err || { cat out err; false; } &&
	cmp "$inc" "$(image out)" &&
	store_sum >sum.after && cmp sum.before sum.after
'

test_expect_success 'the same sources in another folder hit the cache' '
	cp -r base base2 &&
	schedfarm kernel build --name base2 --config tinyconfig \
		--base "$SCRATCH/base2" >out 2>err || { cat out err; false; } &&
	schedfarm kernel show --log base2 >log &&
	grep_or_fail "compiler cache $STORE: read and written" log &&
	counters >c && read -r hits misses files <c &&
	{ test "$hits" = 2 && test "$misses" = 2 || { cat c log; false; }; }
'

test_expect_success 'and a config with one more fragment hits it too' '
	schedfarm kernel build --name base-frag \
		--config "tinyconfig+$SCRATCH/frag.config" \
		--base "$SCRATCH/base" >out 2>err || { cat out err; false; } &&
	counters >c && read -r hits misses files <c &&
	test "$hits" = 4 && test "$misses" = 2
'

test_expect_success 'without ccache a build still works, and says so' '
	SCHEDFARM_CCACHE=no-such-ccache schedfarm kernel build --name base-nocc \
		--config tinyconfig --base "$SCRATCH/base" \
		--cache "$SCRATCH/nocc" >out 2>err || { cat out err; false; } &&
	SCHEDFARM_CCACHE=no-such-ccache schedfarm kernel show --log base-nocc >log &&
	grep_or_fail "ccache is not installed: building without a compiler cache" log &&
	! grep -q "CC=" log &&
	test ! -e "$SCRATCH/nocc/ccache/store" &&
	SCHEDFARM_CCACHE=no-such-ccache schedfarm kernel list --cache >list &&
	grep_or_fail "ccache is not installed" list
'

test_done
