#!/bin/sh
# t0004: `make deps all` in one invocation on a machine whose libraries
# arrive with `deps`: the pkg-config flags are asked for when the first
# compile needs them, after deps has run, not when make reads the
# Makefile.  A stand-in pkg-config that knows nothing until a stand-in
# `deps` has run plays the fresh machine.  And a module pkg-config cannot
# find stops the build naming it and its Debian package, instead of a
# compile without its flags.  (tools/fresh-machine-check runs the README
# commands on a real minimal Debian; this is the fast check of the rule.)
. "$(dirname "$0")/../lib/test-lib.sh"

command -v make >/dev/null 2>&1 || skip_all "make not installed"
command -v pkg-config >/dev/null 2>&1 || skip_all "pkg-config not installed (make deps)"
pkg-config --exists libpq || skip_all "libpq-dev not installed (make deps)"

# pkg-config as a fresh machine has it before and after `make deps`.
cat >"$SCRATCH/pkg-config" <<EOF2
#!/bin/sh
[ -e "$SCRATCH/deps-done" ] || exit 1
exec pkg-config "\$@"
EOF2
chmod +x "$SCRATCH/pkg-config"
B=$SCRATCH/b
OBJ=$B/controller/store/db.o

test_expect_success 'make deps OBJ, in one invocation: compiled with the flags deps brought' '
	make -C "$TOP" -s B="$B" PKG_CONFIG="$SCRATCH/pkg-config" \
		INSTALL_DEPS="touch $SCRATCH/deps-done" deps "$OBJ" >out 2>&1 ||
		{ cat out; false; }
	test -e "$SCRATCH/deps-done" && test -s "$OBJ"
'

test_expect_success 'and with -j2, deps still runs first' '
	rm -rf "$B" "$SCRATCH/deps-done" &&
	make -C "$TOP" -s -j2 B="$B" PKG_CONFIG="$SCRATCH/pkg-config" \
		INSTALL_DEPS="sleep 1; touch $SCRATCH/deps-done" deps "$OBJ" \
		"$B/controller/store/hosts.o" >out 2>&1 ||
		{ cat out; false; }
	test -s "$OBJ"
'

test_expect_success 'a module pkg-config cannot find is named, with its package' '
	rm -rf "$B" &&
	! PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= make -C "$TOP" -s B="$B" "$OBJ" >out 2>&1 &&
	grep_or_fail "pkg-config cannot find libpq (package libpq-dev)" out &&
	grep_or_fail "gsl (package libgsl-dev)" out &&
	grep_or_fail "run '\''make deps'\'' as root" out &&
	! grep -n "libpq-fe.h" out &&
	test ! -e "$OBJ"
'

test_done
