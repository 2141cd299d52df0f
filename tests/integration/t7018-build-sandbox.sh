#!/bin/sh
# t7018: a submitted patch's build runs confined (lab/sandbox.c): the
# recipe a hostile patch adds to the tree's Makefile prints `id -u` and
# its environment and tries to write to a world-writable folder, /tmp,
# the state folder and the tree itself.  What it printed shows the farm's
# build user, not root, and none of three secrets the controller holds in
# its environment; nothing it tried to write outside make's output folder
# exists afterwards.  Without bubblewrap a patch's build is refused unless
# the operator says --trust-submitters; a base alone builds, unconfined,
# with a warning, its environment scrubbed all the same.  The tree is a
# small stand-in for a kernel's (its Makefile knows the targets the farm
# asks for); tests/kernel/ builds real ones.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed (make deps)"
command -v bwrap >/dev/null 2>&1 || skip_all "bubblewrap not installed (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root: the build user is switched to"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
mkdir -p "$SCHEDFARM_HOME"
embedded_stop_at_exit "$SCHEDFARM_HOME"
# Three secrets in the controller's environment.
export SCHEDFARM_SMTP_PASSWORD=sekrit-smtp-t7018
export IPMI_PASSWORD=sekrit-ipmi-t7018
export PGPASSWORD=sekrit-pg-t7018
DROP=$SCRATCH/drop
mkdir -p "$DROP" && chmod 1777 "$DROP"
TMPMARK=/tmp/schedfarm-t7018-$$
test_atexit "rm -f '$TMPMARK'"

# The base: a tree whose Makefile makes an ELF "vmlinux" under O=.
mkdir -p base
cat >base/Makefile <<'EOF'
O ?= .
.PHONY: tinyconfig olddefconfig vmlinux bzImage kernelrelease
tinyconfig:
	@echo CONFIG_SCHED=y >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
olddefconfig:
	@cat $(O)/.config >$(O)/.config.new && mv $(O)/.config.new $(O)/.config
vmlinux:
	@echo '  CC      kernel/sched/core.o'
	@cp /usr/bin/true $(O)/vmlinux
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot && cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo 6.1.0-t7018
EOF
printf 'int sched;\n' >base/core.c
# merge_config.sh as the kernel's: its temporary file in its folder.
mkdir -p base/scripts/kconfig
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
printf 'CONFIG_FRAGMENT_T7018=y\n' >"$SCRATCH/frag.config"

# The hostile patch: its recipe shows who it is and what it sees, and
# writes wherever it can.
mkdir -p mod && cp -r base/* mod/
cat >>mod/Makefile <<EOF
vmlinux: hostile
.PHONY: hostile
hostile:
	@echo "HOSTILE uid=\$\$(id -u) gid=\$\$(id -g)"
	@env | sed 's/^/HOSTILE-ENV /'
	-@echo "uid \$\$(id -u)" >$DROP/pwned
	-@touch $TMPMARK
	-@touch $SCHEDFARM_HOME/pwned
	-@touch \$(CURDIR)/planted
	-@cat /etc/shadow >\$(O)/shadow-copy
EOF
(diff -ruN base mod >hostile.patch; [ $? -le 1 ])
CONFIG="tinyconfig+$SCRATCH/frag.config"
sed 's/^\(+.*HOSTILE uid\)/\1/; s/HOSTILE uid/HOSTILE2 uid/' hostile.patch >hostile2.patch

test_expect_success 'a hostile patch builds as the farm user, without the secrets' '
	schedfarm kernel build --fresh --name hostile --config "$CONFIG" \
		--base "$SCRATCH/base" --patch hostile.patch >out 2>err ||
		{ cat out err; false; } &&
	schedfarm kernel show --log hostile >log &&
	grep_or_fail "HOSTILE uid=" log &&
	uid=$(sed -n "s/^HOSTILE uid=\([0-9]*\) .*/\1/p" log) &&
	echo "the recipe ran as uid $uid" &&
	test -n "$uid" && test "$uid" != 0 &&
	test "$uid" = "$(id -u schedfarm)" &&
	! grep -q "sekrit" log &&
	! grep -E "^HOSTILE-ENV (SCHEDFARM_|IPMI|PG|SSH_|DBUS)" log &&
	grep -q "^HOSTILE-ENV PATH=" log &&
	grep -q "^CONFIG_FRAGMENT_T7018=y" "$SCHEDFARM_KERNEL_CACHE"/builds/*/out/.config
'

test_expect_success 'nothing outside the output folder was written' '
	test -z "$(ls -A "$DROP")" &&
	! test -e "$TMPMARK" &&
	! test -e "$SCHEDFARM_HOME/pwned" &&
	! find "$SCHEDFARM_KERNEL_CACHE" -name planted | grep . &&
	shadow=$(find "$SCHEDFARM_KERNEL_CACHE" -name shadow-copy) &&
	{ test -z "$shadow" || ! test -s "$shadow"; } &&
	! find "$SCRATCH" -user schedfarm ! -path "*/out" ! -path "*/out/*" | grep .
'

test_expect_success 'the built images are the controller'"'"'s own files' '
	dir=$(ls -d "$SCHEDFARM_KERNEL_CACHE"/builds/*/ | head -n 1) &&
	test "$(stat -c %U "$dir/vmlinux")" = "$(id -un)" &&
	test "$(stat -c %U "$dir/out")" = schedfarm &&
	test "$(stat -c %a "$dir/out")" = 700
'

test_expect_success 'an incremental build (the tree kept for the next) is confined the same' '
	sed "s/HOSTILE uid/HOSTILE3 uid/" hostile.patch >hostile3.patch &&
	schedfarm kernel build --incremental --name hostile3 --config "$CONFIG" \
		--base "$SCRATCH/base" --patch hostile3.patch >out 2>err ||
		{ cat out err; false; } &&
	schedfarm kernel show --log hostile3 >log3 &&
	grep_or_fail "incremental build of key" log3 &&
	grep_or_fail "HOSTILE3 uid=$(id -u schedfarm) " log3 &&
	! grep -q "sekrit" log3 &&
	test -z "$(ls -A "$DROP")" && ! test -e "$TMPMARK" &&
	tree=$(ls -d "$SCHEDFARM_KERNEL_CACHE"/trees/*/ | head -n 1) &&
	test "$(stat -c %U:%a "$tree/out")" = schedfarm:700 &&
	test "$(stat -c %U:%G:%a "$tree/src")" = root:schedfarm:750 &&
	! find "$tree/src" -name planted | grep .
'

test_expect_success 'without bubblewrap a patch is refused, and says how to opt in' '
	! SCHEDFARM_BWRAP=/nonexistent/bwrap schedfarm kernel build \
		--name hostile2 --config tinyconfig --base "$SCRATCH/base" \
		--patch hostile2.patch >out 2>err &&
	cat err &&
	grep_or_fail "refusing to build submitted patches without the sandbox" err &&
	grep_or_fail "bubblewrap (/nonexistent/bwrap) is not installed" err &&
	grep_or_fail "trust-submitters" err
'

test_expect_success 'a base alone builds unconfined then, its environment scrubbed' '
	SCHEDFARM_BWRAP=/nonexistent/bwrap schedfarm kernel build \
		--name plain --config tinyconfig --base "$SCRATCH/base" \
		>out 2>err || { cat out err; false; } &&
	grep_or_fail "kernel builds run unconfined" err
'

test_expect_success '--trust-submitters builds the patch unconfined, still without secrets' '
	SCHEDFARM_BWRAP=/nonexistent/bwrap schedfarm --trust-submitters \
		kernel build --name hostile2 --config tinyconfig \
		--base "$SCRATCH/base" --patch hostile2.patch >out 2>err ||
		{ cat out err; false; } &&
	grep_or_fail "trust-submitters says so" err &&
	schedfarm kernel show --log hostile2 >log2 &&
	grep_or_fail "HOSTILE2 uid=0" log2 &&
	! grep -q "sekrit" log2 &&
	rm -f "$DROP/pwned" "$TMPMARK" "$SCHEDFARM_HOME/pwned"
'

test_done
