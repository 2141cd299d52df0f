#!/bin/sh
# t7003: kernel builds that must not start: a patch that does not apply to
# Debian's linux-source stops the build before make, with the rejected hunk
# in the log, the kernel row 'failed' with its error, and the base tarball
# unpacked once and left pristine for the next build.  (A full build takes
# minutes: it is in tests/kernel/, `make check-kernel`.)
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$SRC" ] || skip_all "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
command -v patch >/dev/null 2>&1 || skip_all "patch not installed"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=$SCRATCH/kcache
mkdir -p "$SCHEDFARM_HOME"
embedded_stop_at_exit "$SCHEDFARM_HOME"

test_expect_success 'a patch that does not apply fails the build with the reject shown' '
	! schedfarm kernel build --name stale --base "$SRC" \
		--patch "$TOP/tests/data/kernel-stale.patch" >out 2>err &&
	cat err &&
	grep_or_fail "patch 1 of 1 does not apply (" err &&
	grep_or_fail "kernel-stale.patch" err &&
	grep_or_fail "FAILED" err &&
	grep_or_fail "--- rejected hunks: kernel/sched/fair.c.rej" err &&
	grep_or_fail "+unsigned int sysctl_sched_min_granularity			= 500000ULL;" err &&
	! grep -q "^\$ make" err
'

test_expect_success 'the kernel row says failed and keeps the log with the reject' '
	schedfarm kernel list >list &&
	grep -E "^ *[0-9]+ +failed .* stale( |$)" list &&
	schedfarm kernel show --log stale >show &&
	grep_or_fail "build_error    patch 1 of 1 does not apply" show &&
	grep_or_fail "rejected hunks: kernel/sched/fair.c.rej" show
'

test_expect_success 'the unpacked base stays pristine (hard links broken by patch, not written)' '
	base=$(ls -d "$SCHEDFARM_KERNEL_CACHE"/bases/*/linux-source-*) &&
	! test -e "$base/kernel/sched/fair.c.rej" &&
	! test -e "$base/kernel/sched/fair.c.orig" &&
	grep -q "= 750000ULL;" "$base/kernel/sched/fair.c"
'

test_expect_success 'the example scheduler patch applies to the same base' '
	key_dir=$SCRATCH/apply && mkdir "$key_dir" &&
	cp -al "$(ls -d "$SCHEDFARM_KERNEL_CACHE"/bases/*/linux-source-*)" "$key_dir/src" &&
	(cd "$key_dir/src" && patch -p1 --dry-run --batch \
		-i "$TOP/kernels/patches/0001-sched-cap-cgroup-weight.patch") >dry &&
	grep_or_fail "kernel/sched/core.c" dry && ! grep -q FAILED dry
'

test_expect_success 'a base that is not a kernel source is refused before anything runs' '
	! schedfarm kernel build --base "$SCRATCH/nothing-here" 2>err &&
	grep_or_fail "is not a tarball, a git repository or a source directory" err
'

test_done
