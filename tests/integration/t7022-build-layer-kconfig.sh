#!/bin/sh
# t7022: a patch that changes a Kconfig file, built on a layer over its
# base's tree (issue 29), is configured again as its fresh build is, so
# both make the same .config and the same kernel.  The stand-in tree's
# config targets behave as the kernel's do on the point that matters:
# `tinyconfig` answers no to every visible option (allnoconfig), while
# make's own sync at build time keeps the answers already in .config and
# gives a new option its default; a layer that only ran make would give
# the new option the default where a fresh build says no.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed (make deps)"
command -v bwrap >/dev/null 2>&1 || skip_all "bubblewrap not installed (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root: overlay mounts and the build user"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
mkdir -p "$SCHEDFARM_HOME" "$SCRATCH/fresh"
embedded_stop_at_exit "$SCHEDFARM_HOME"
test_atexit "grep -o ' $SCRATCH/[^ ]*' /proc/self/mountinfo | sort -r | while read -r m; do umount -l \"\$m\"; done"

# Kconfig: one option per line, "NAME DEFAULT".  vmlinux carries .config.
mkdir -p base
cat >base/Makefile <<'EOF'
O ?= .
.PHONY: tinyconfig olddefconfig bzImage kernelrelease sync
tinyconfig:
	@sed 's/^\([A-Z_]*\) .*/CONFIG_\1=n/' Kconfig >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
olddefconfig:
	@cat $(O)/.config >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
# make's own sync: options .config lacks get their default.
$(O)/auto.conf: $(O)/.config Kconfig
	@echo '  SYNC    auto.conf'
	@cp $(O)/.config $@.tmp && while read -r n d; do \
		grep -q "^CONFIG_$$n=" $@.tmp || echo "CONFIG_$$n=$$d" >>$@.tmp; \
	done <Kconfig && mv $@.tmp $@
$(O)/core.o: core.c $(O)/auto.conf
	@echo '  CC      core.o'
	@cat core.c $(O)/auto.conf >$@
$(O)/vmlinux: $(O)/core.o
	@echo '  LD      vmlinux'
	@cp /usr/bin/true $@.tmp && cat $(O)/core.o >>$@.tmp && mv $@.tmp $@
vmlinux: $(O)/vmlinux
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot && cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo 6.1.0-t7022
EOF
printf 'SCHED y\n' >base/Kconfig
printf 'int core_base;\n' >base/core.c
rm -rf mod && cp -r base mod && printf 'SCHED_NEW y\n' >>mod/Kconfig
(diff -ruN base mod >kconfig.patch; [ $? -le 1 ])

image() {
	tail -n 1 "$1" | awk '{ print $4 }'
}

test_expect_success 'the base builds its tree' '
	schedfarm kernel build --incremental --name base --config tinyconfig \
		--base "$SCRATCH/base" >out 2>err || { cat out err; false; } &&
	grep -qa "CONFIG_SCHED=n" "$(image out)"
'

test_expect_success 'a Kconfig patch on the layer is configured again' '
	schedfarm kernel build --incremental --name kpatch --config tinyconfig \
		--base "$SCRATCH/base" --patch kconfig.patch >out 2>err ||
		{ cat out err; false; } &&
	inc=$(image out) &&
	schedfarm kernel show --log kpatch >log &&
	grep_or_fail "builds on a layer over the base" log &&
	grep_or_fail "changes a Kconfig file: configuring again" log &&
	grep -qa "CONFIG_SCHED_NEW=n" "$inc" && cp "$inc" inc.image
'

test_expect_success 'and equals its fresh build, byte for byte' '
	schedfarm kernel build --name kpatch-fresh --config tinyconfig \
		--base "$SCRATCH/base" --patch kconfig.patch \
		--cache "$SCRATCH/fresh" >out 2>err || { cat out err; false; } &&
	cmp inc.image "$(image out)"
'

test_done
