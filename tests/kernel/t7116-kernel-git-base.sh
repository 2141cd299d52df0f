#!/bin/sh
# t7116 (make check-kernel): a base given as a git revision, not a source
# folder or a tarball.  Debian's linux-source becomes a small git
# repository (one commit of the tree, tagged base-6.x, then one commit
# with kernels/patches/0001 on top); the farm builds the tagged revision
# with tinyconfig + its fragments, the kernel boots in a libvirt guest, and
# the cache is keyed by (revision, series, config): the same revision named
# by its full commit id, and the same commit seen through a git worktree of
# the repository, are cache hits; the kernel row keeps the ref.
#
# Debian's tarball ignores its whole top level in .gitignore (its own
# packaging), hence `git add -f`.
#
# The repository and the build are cached across runs ($SCHEDFARM_TEST_CACHE
# and $SCHEDFARM_KERNEL_CACHE); the first run takes a full kernel build
# (about 15 minutes on 2 idle cores) plus about 2 minutes to make the
# repository.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/boot-lib.sh"

SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$SRC" ] || skip_all "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)"
for p in flex bison bc make gcc git; do
	command -v $p >/dev/null 2>&1 || skip_all "$p not installed (make deps)"
done
boot_prereqs
libvirt_up || skip_all "libvirtd would not start"

export SCHEDFARM_HOME=$SCRATCH/home
export SCHEDFARM_KERNEL_CACHE=${SCHEDFARM_KERNEL_CACHE:-/var/tmp/schedfarm-kernel-cache}
mkdir -p "$SCHEDFARM_HOME" "$SCHEDFARM_KERNEL_CACHE"
embedded_stop_at_exit "$SCHEDFARM_HOME"
PATCH=$TOP/kernels/patches/0001-sched-cap-cgroup-weight.patch
REPO=$TEST_CACHE/linux-git-$(basename "$SRC" .tar.xz)-$(stat -c %s "$SRC")
G=$SCRATCH/guest
mkdir -p "$G"
PORT=$(free_port)

# git for the repository only: no user configuration, fixed identity.
g() {
	git -C "$REPO" -c user.name=schedfarm-test -c user.email=test@schedfarm.invalid \
		-c gc.auto=0 "$@"
}

test_expect_success 'a git repository made from linux-source: the tree, then the scheduler patch' '
	if ! g rev-parse --verify -q base-tree >/dev/null; then
		rm -rf "$REPO" "$REPO.tmp" && mkdir -p "$REPO.tmp" &&
		tar -C "$REPO.tmp" --strip-components=1 -xf "$SRC" &&
		git init -q "$REPO.tmp" && mv "$REPO.tmp" "$REPO" &&
		g add -f -A . >/dev/null && g commit -q -m "linux-source as shipped" &&
		g tag base-tree &&
		g apply --index "$PATCH" && g commit -q -m "sched: cap cgroup weight" &&
		g tag patched-tree
	fi &&
	test "$(g rev-list --count patched-tree)" = 2
'

test_expect_success 'the tagged revision builds (or is found built), and the row keeps the ref' '
	start=$(date +%s) &&
	schedfarm kernel build --name git-base --base "$REPO" --ref base-tree >out 2>err &&
	say "git-base: $(head -n 1 out) after $(($(date +%s) - start)) s" &&
	schedfarm kernel show git-base >show &&
	grep -E "^build_state +built" show && grep -E "^release +6\\." show &&
	test "$(sql "SELECT base_ref FROM kernels WHERE name = \$\$git-base\$\$")" = base-tree
'

test_expect_success 'the same revision by its commit id is a cache hit' '
	rev=$(g rev-parse base-tree^{commit}) &&
	start=$(date +%s) &&
	schedfarm kernel build --name git-base-sha --base "$REPO" --ref "$rev" >out 2>err &&
	grep_or_fail "cache hit: git-base-sha" out && test $(($(date +%s) - start)) -lt 60
'

test_expect_success 'a git worktree of the repository at that commit is the same base: cache hit' '
	rm -rf "$SCRATCH/wt" && g worktree prune &&
	g worktree add -q --detach "$SCRATCH/wt" base-tree &&
	test_atexit "git -C \"$REPO\" worktree remove --force \"$SCRATCH/wt\"" &&
	schedfarm kernel build --name git-wt --base "$SCRATCH/wt" >out 2>err &&
	grep_or_fail "cache hit: git-wt" out &&
	test "$(sql "SELECT count(DISTINCT build_dir) FROM kernels WHERE name LIKE \$\$git-%\$\$")" = 1
'

test_expect_success 'the kernel built from the git revision boots in a libvirt guest' '
	guest_image "$G" &&
	known_hosts_for "$G/known_hosts" "$PORT" "$G/guest.cpio.gz.hostkey.pub" &&
	sql "INSERT INTO hosts (name, kind, address, port, ssh_user, key_file,
		known_hosts, memory_mb, libvirt_uri, boot_config)
	     VALUES (\$\$vm\$\$, \$\$libvirt\$\$, \$\$127.0.0.1\$\$, $PORT,
		\$\$root\$\$, \$\$$G/ctl\$\$, \$\$$G/known_hosts\$\$, 512,
		\$\$qemu:///system\$\$, \$\${\"initrd\": \"$G/guest.cpio.gz\"}\$\$)" &&
	schedfarm kernel boot git-base --host vm --run "uname -r; cat /proc/schedstat | head -n 1" >out 2>err &&
	cat out && grep_or_fail "ready: " out &&
	rel=$(sql "SELECT release FROM kernels WHERE name = \$\$git-base\$\$") &&
	grep -qx -- "$rel" out && grep -q "^version 15" out
'

test_done
