#!/bin/sh
# t7006: the kernel cache trusts only what the farm's user wrote.  A cache
# folder anyone can write to (/var/tmp style, given with --cache or
# SCHEDFARM_KERNEL_CACHE) or that belongs to another user is refused
# before anything is built; a cache entry another user planted (its
# folder, its result, its image) is refused, never taken as a cache hit;
# a result naming an image outside its entry is refused.  And a build
# whose log holds bytes that are not UTF-8 is recorded as failed, with
# its log, instead of staying `building`.  The "kernel source" here is a
# folder whose Makefile fails at once: nothing is compiled.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v make >/dev/null 2>&1 || skip_all "make not installed"

export SCHEDFARM_HOME=$SCRATCH/home
mkdir -p "$SCHEDFARM_HOME"
embedded_stop_at_exit "$SCHEDFARM_HOME"
unset SCHEDFARM_KERNEL_CACHE

# A kernel source whose build stops at its first make.
mkdir "$SCRATCH/src"
printf 'all:\n\tfalse\n%%:\n\t@echo "no kernel here"; false\n' >"$SCRATCH/src/Makefile"

test_expect_success 'a --cache anyone can write to is refused, nothing built' '
	mkdir -m 1777 "$SCRATCH/open" && chmod 1777 "$SCRATCH/open" &&
	! schedfarm kernel build --base "$SCRATCH/src" --cache "$SCRATCH/open" >out 2>err &&
	grep_or_fail "$SCRATCH/open can be written by anyone" err &&
	grep_or_fail "chmod go-w" err &&
	test -z "$(ls "$SCRATCH/open")"
'

test_expect_success 'so is a SCHEDFARM_KERNEL_CACHE of that kind' '
	! SCHEDFARM_KERNEL_CACHE=$SCRATCH/open schedfarm kernel build --base "$SCRATCH/src" >out 2>err &&
	grep_or_fail "$SCRATCH/open can be written by anyone" err
'

KC=$SCRATCH/kc
test_expect_success 'a first build in a cache of ours fails at make, giving its key' '
	! schedfarm kernel build --fresh --name k1 --base "$SCRATCH/src" --cache "$KC" >out 2>err &&
	sed -n "s/^build of key \([0-9a-f]*\)$/\1/p" err >key &&
	test "$(wc -c <key)" = 65 &&
	test "$(stat -c %a "$KC")" = 711 &&
	schedfarm kernel list >list &&
	grep -E "^ *[0-9]+ +failed .* k1( |$)" list
'

# plant DIR OWNER VMLINUX: a cache entry that says "built", as OWNER.
plant() {
	rm -rf "$1" && mkdir -p "$1/out" &&
	echo "not a kernel" >"$1/out/vmlinux" &&
	printf "release=6.6.6-planted\nvmlinux=%s\ntext=1\ndata=1\nbss=1\nseconds=1\n" \
		"$3" >"$1/result" &&
	chown -R "$2" "$1"
}

if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
	test_expect_success 'a cache folder of another user is refused' '
		mkdir "$SCRATCH/theirs" && chown nobody "$SCRATCH/theirs" &&
		! schedfarm kernel build --base "$SCRATCH/src" --cache "$SCRATCH/theirs" >out 2>err &&
		grep_or_fail "$SCRATCH/theirs belongs to nobody" err
	'

	test_expect_success 'an entry planted by another user is refused, not a cache hit' '
		E=$KC/builds/$(cat key) &&
		plant "$E" nobody "$E/out/vmlinux" &&
		! schedfarm kernel build --name k2 --base "$SCRATCH/src" --cache "$KC" >out 2>err &&
		! grep -n "cache hit" out err &&
		grep_or_fail "$E belongs to nobody" err &&
		grep_or_fail "the kernel cache trusts only what the farm" err &&
		! schedfarm kernel list | grep -E "^ *[0-9]+ +built .* k2( |$)"
	'

	test_expect_success 'so is a result of ours naming an image of another user' '
		E=$KC/builds/$(cat key) &&
		plant "$E" 0 "$E/out/vmlinux" && chown nobody "$E/out/vmlinux" &&
		! schedfarm kernel build --name k3 --base "$SCRATCH/src" --cache "$KC" >out 2>err &&
		grep_or_fail "$E/out/vmlinux belongs to nobody" err
	'
else
	test_skip "a cache folder of another user is refused" "needs root and a nobody user"
	test_skip "an entry planted by another user is refused" "needs root and a nobody user"
	test_skip "so is a result naming an image of another user" "needs root and a nobody user"
fi

test_expect_success 'a result naming an image outside its entry is refused' '
	E=$KC/builds/$(cat key) &&
	plant "$E" "$(id -u)" /etc/passwd &&
	! schedfarm kernel build --name k4 --base "$SCRATCH/src" --cache "$KC" >out 2>err &&
	grep_or_fail "names an image outside it (/etc/passwd): refused" err &&
	! schedfarm kernel list | grep -E "^ *[0-9]+ +built .* k4( |$)"
'

test_expect_success 'a true entry of ours is a cache hit' '
	E=$KC/builds/$(cat key) &&
	plant "$E" "$(id -u)" "$E/out/vmlinux" &&
	schedfarm kernel build --name k5 --base "$SCRATCH/src" --cache "$KC" >out 2>err &&
	grep_or_fail "cache hit: k5 (6.6.6-planted) already built" out
'

test_expect_success 'a build log with bytes that are not UTF-8: failed with its log, not building' '
	mkdir "$SCRATCH/src2" &&
	printf "all:\n\tfalse\n%%:\n\t@printf \"cc: \\\\377\\\\376 bad byte\\\\n\"; false\n" >"$SCRATCH/src2/Makefile" &&
	! schedfarm kernel build --name bytes --base "$SCRATCH/src2" --cache "$KC" >out 2>err &&
	! grep -n "cannot record" err &&
	schedfarm kernel list >list &&
	grep -E "^ *[0-9]+ +failed .* bytes( |$)" list &&
	schedfarm kernel show --log bytes >show &&
	grep -F "cc: \\xff\\xfe bad byte" show
'

test_done
