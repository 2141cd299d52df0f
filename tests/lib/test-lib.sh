# test-lib.sh - the TAP harness for tests/integration/tNNNN-*.sh (after git's t/).
#
#   . "$(dirname "$0")/../lib/test-lib.sh"
#   test_expect_success 'what it checks' '
#           schedfarm db migrate
#   '
#   test_done
#
# Each script gets its own scratch folder ($SCRATCH, searchable by the
# postgres user), removed at exit with everything registered by
# test_atexit.  skip_all "reason" skips the whole script with its reason
# (never a silent pass); need_cgroups skips it only where the agent can have
# no cgroup cpu controller at all (it mounts one itself where root can).  Helpers for a throwaway PostgreSQL are below.

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SCHEDFARM_BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
if [ -x "$BUILD/schedfarm" ]; then
	SCHEDFARM_BIN=$BUILD/schedfarm
else
	SCHEDFARM_BIN=$TOP/controller/schedfarm
fi
AGENT_BIN=${SCHEDFARM_AGENT:-$TOP/agent/schedfarm-agent}
export SCHEDFARM_AGENT=$AGENT_BIN
export SCHEDFARM_BIN AGENT_BIN TOP
# Throwaway clusters may run with fsync off (never the user's own).
export SCHEDFARM_PG_THROWAWAY=1
# ASan: leaks are bugs, but the lsan runtime cannot work under ptrace.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
unset SCHEDFARM_DB PGHOST PGHOSTADDR PGDATABASE PGSERVICE PGPORT PGUSER SCHEDFARM_HOME

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/schedfarm-test.XXXXXX")
chmod 755 "$SCRATCH"
# Whatever a script writes outside test_expect_success lands in its
# scratch folder too, never in the checkout.
cd "$SCRATCH" || exit 1
test_count=0
test_failed=0
# Kept in a file so tests (which run in subshells) can register too.
_ATEXIT=$SCRATCH/.atexit
: >"$_ATEXIT"

schedfarm() {
	"$SCHEDFARM_BIN" "$@"
}

# Register a command to run at exit (last registered runs first).
test_atexit() {
	printf '%s\n' "$1" >>"$_ATEXIT"
}

_cleanup() {
	_rc=$?
	tac "$_ATEXIT" 2>/dev/null | while IFS= read -r c; do
		[ -n "$c" ] && eval "$c" >/dev/null 2>&1
	done
	if [ -n "${KEEP_SCRATCH:-}" ]; then
		echo "# scratch kept: $SCRATCH"
	else
		rm -rf "$SCRATCH"
	fi
	exit $_rc
}
trap _cleanup EXIT
trap 'exit 130' INT TERM

# A figure or a note for the reader: a TAP comment, shown by `prove -v`
# (and by make check-kernel's log) even from inside a test that passes,
# whose other output is kept only when it fails.
say() {
	echo "#: $*"
}

# Every skip is written down (file, test, reason) in $SCHEDFARM_SKIP_LOG
# when the suite's runner (tests/run-tests.sh) set it: it prints them all
# at the end, so a green run cannot hide a capability that is gone.
_skip_record() {
	[ -n "${SCHEDFARM_SKIP_LOG:-}" ] || return 0
	printf '%s\t%s\t%s\n' "$(basename "$0")" \
		"$(printf '%s' "$1" | tr '\t\n' '  ')" \
		"$(printf '%s' "$2" | tr '\t\n' '  ')" >>"$SCHEDFARM_SKIP_LOG"
}

# _fail_record DESCRIPTION OUTPUT: a failed test, with the last 40 lines
# of its output, for the list tests/run-tests.sh prints at the end (CI
# keeps only the end of a long run's output).
_fail_record() {
	[ -n "${SCHEDFARM_FAIL_LOG:-}" ] || return 0
	{
		printf '%s: not ok %s - %s\n' "$(basename "$0")" "$test_count" \
			"$(printf '%s' "$1" | tr '\n' ' ')"
		tail -n 40 "$2" | sed 's/^/    /'
	} >>"$SCHEDFARM_FAIL_LOG"
}

skip_all() {
	_skip_record "(all)" "$*"
	echo "1..0 # SKIP $*"
	exit 0
}

# test_expect_success DESCRIPTION SCRIPT: run SCRIPT in a subshell-free eval
# with output captured; print ok/not ok, and the output when it failed --
# on stderr, which prove shows even when it is not verbose (make check, CI,
# tools/fresh-machine-check keep only prove's summary of stdout).
test_expect_success() {
	test_count=$((test_count + 1))
	_out=$SCRATCH/.test-$test_count.out
	if (cd "$SCRATCH" && eval "$2") >"$_out" 2>&1; then
		echo "ok $test_count - $1"
		sed -n 's/^#: /# /p' "$_out"
	else
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$_out" >&2
		_fail_record "$1" "$_out"
		test_failed=$((test_failed + 1))
	fi
}

# Same, but the script must fail.
test_expect_failure_cmd() {
	test_expect_success "$1" "! ( $2 )"
}

test_skip() {
	test_count=$((test_count + 1))
	_skip_record "$1" "$2"
	echo "ok $test_count # SKIP $1: $2"
}

# Can the agent have a cgroup cpu controller here: one mounted, or one it
# mounts itself as root where none is (its info's cgroup.used or
# cgroup.private)?  0 or 1; CG_WHY says what is missing (the agent's
# cgroup.unusable) when not.
cgroups_usable() {
	_cginfo=$("$AGENT_BIN" info 2>/dev/null) || {
		CG_WHY="schedfarm-agent info failed"
		return 1
	}
	CG_USED=$(printf '%s' "$_cginfo" |
		jq -r '.cgroup.used // .cgroup.private // empty')
	[ -n "$CG_USED" ] && return 0
	CG_WHY="no cgroup cpu controller for the agent: $(printf '%s' "$_cginfo" |
		jq -r '.cgroup.unusable // "none mounted, none it can mount"')"
	return 1
}

# Skip the whole script unless cgroups_usable.
need_cgroups() {
	cgroups_usable || skip_all "$CG_WHY"
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ]
	exit $?
}

# Fail with a message unless file $2 contains the fixed string $1.
grep_or_fail() {
	if ! grep -qF -- "$1" "$2"; then
		echo "expected '$1' in $2, which holds:"
		sed 's/^/    /' "$2"
		return 1
	fi
}

# grep_or_fail for an extended regular expression $1.
grep_re() {
	grep -qE -- "$1" "$2" && return 0
	echo "expected /$1/ in $2, which holds:"
	sed 's/^/    /' "$2"
	return 1
}

# grep_or_fail for text that 80-column output may have wrapped (cli_wrap():
# at blanks, '-', '/' or ','): $1 and file $2 compared with every blank
# and line end removed.
grep_wrapped_or_fail() {
	if ! tr -d ' \n' <"$2" | grep -qF -- "$(printf '%s' "$1" | tr -d ' \n')"; then
		echo "expected '$1' (wrapped or not) in $2, which holds:"
		sed 's/^/    /' "$2"
		return 1
	fi
}

# Wait up to $2 seconds (default 10) for command $1 to succeed, trying
# every $3 seconds (default 0.05; a wait of many minutes on a command that
# costs CPU, next to builds and guests, tries every few seconds instead).
wait_for() {
	_deadline=$(( $(date +%s) + ${2:-10} ))
	while ! eval "$1" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$_deadline" ] && return 1
		sleep "${3:-0.05}"
	done
}

# --- A throwaway PostgreSQL server, as the postgres user when root. -------

pg_bindir() {
	if [ -n "${SCHEDFARM_PG_BINDIR:-}" ]; then
		echo "$SCHEDFARM_PG_BINDIR"
		return
	fi
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

_as_pg() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=postgres --regid=postgres --init-groups "$@"
	else
		"$@"
	fi
}

# Make one initdb'd template per machine and copy it: a server is then up
# in a fraction of the time initdb takes.
_pg_template() {
	_tpl=${TMPDIR:-/tmp}/schedfarm-test-pgtemplate-$(id -u)
	if [ ! -f "$_tpl/data/PG_VERSION" ]; then
		_tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedfarm-tpl.XXXXXX")
		chmod 755 "$_tmp"
		mkdir "$_tmp/data"
		[ "$(id -u)" = 0 ] && chown postgres:postgres "$_tmp/data"
		_as_pg "$(pg_bindir)/initdb" --no-sync -A trust -E UTF8 \
			--locale=C -U postgres -D "$_tmp/data" >/dev/null || return 1
		mv -T "$_tmp" "$_tpl" 2>/dev/null || rm -rf "$_tmp"
	fi
	echo "$_tpl/data"
}

# pg_test_start NAME: start a server in $SCRATCH/NAME with its socket there;
# sets PG_SOCKDIR and PG_CONNINFO (dbname=postgres user=postgres).
pg_test_start() {
	_name=${1:-pg}
	_dir=$SCRATCH/$_name
	_tpl=$(_pg_template) || { echo "initdb failed"; return 1; }
	mkdir -p "$_dir"
	cp -a "$_tpl" "$_dir/data"
	cat >>"$_dir/data/postgresql.conf" <<EOCONF
listen_addresses = ''
unix_socket_directories = '$_dir'
port = 5432
fsync = off
EOCONF
	[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$_dir"
	_as_pg "$(pg_bindir)/pg_ctl" -D "$_dir/data" -l "$_dir/log" -w -t 60 \
		start >/dev/null || { cat "$_dir/log"; return 1; }
	test_atexit "_as_pg '$(pg_bindir)/pg_ctl' -D '$_dir/data' -m immediate -w stop"
	PG_SOCKDIR=$_dir
	PG_CONNINFO="host=$_dir port=5432 dbname=postgres user=postgres"
	export PG_SOCKDIR PG_CONNINFO
}

# Stop the embedded cluster a test made under SCHEDFARM_HOME=$1.
embedded_stop_at_exit() {
	test_atexit "SCHEDFARM_HOME='$1' '$SCHEDFARM_BIN' db stop"
}

# serve_start LOG OPTIONS...: `schedfarm serve OPTIONS` in the background,
# its output in $SCRATCH/LOG, stopped at exit.  Sets SERVE to its pid.
serve_start() {
	_log=$1
	shift
	"$SCHEDFARM_BIN" serve "$@" >"$SCRATCH/$_log" 2>&1 &
	SERVE=$!
	test_atexit "kill $SERVE"
}
