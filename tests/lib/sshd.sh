# sshd.sh - a throwaway OpenSSH server for integration tests (source it
# after test-lib.sh).
#
#   sshd_prereq || skip_all "$SSHD_SKIP"
#   sshd_start NAME     # sets SSHD_PORT, SSHD_USER, SSHD_KEY, SSHD_KNOWN_HOSTS
#
# The server listens on 127.0.0.1 on a free port, with a host key and a
# client key made for this test, a known_hosts file naming the host key,
# and a test user (created if missing, with a '*' password so the account
# is not locked).  It runs in the foreground of a background job, is waited
# for by its "Server listening" line, and is stopped at exit.  Needs root:
# sshd's privilege separation and the test user.

SSHD_TEST_USER=${SSHD_TEST_USER:-schedfarm-test}

sshd_prereq() {
	SSHD_SKIP=
	if [ "$(id -u)" != 0 ]; then
		SSHD_SKIP="sshd tests need root (privilege separation, a test user)"
	elif [ ! -x /usr/sbin/sshd ] || ! command -v ssh-keygen >/dev/null; then
		SSHD_SKIP="openssh-server not installed (make deps)"
	elif ! command -v python3 >/dev/null && ! command -v ss >/dev/null; then
		SSHD_SKIP="python3 or ss (iproute2) is needed to pick a free port"
	fi
	[ -z "$SSHD_SKIP" ]
}

# A TCP port nobody listens on now: the kernel picks it (python3), or a
# random one that ss(8) shows free.
free_port() {
	if command -v python3 >/dev/null; then
		python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
		return
	fi
	while :; do
		_p=$(( $(od -An -N2 -tu2 /dev/urandom) % 30000 + 20000 ))
		if [ -z "$(ss -Htln "sport = :$_p")" ]; then
			echo "$_p"
			return
		fi
	done
}

sshd_start() {
	_d=$SCRATCH/${1:-sshd}
	mkdir -p "$_d" /run/sshd
	if ! id "$SSHD_TEST_USER" >/dev/null 2>&1; then
		useradd -m -s /bin/sh "$SSHD_TEST_USER" || return 1
	fi
	usermod -p '*' "$SSHD_TEST_USER" || return 1
	SSHD_HOME=$(getent passwd "$SSHD_TEST_USER" | cut -d: -f6)
	[ -d "$SSHD_HOME" ] || { mkdir -p "$SSHD_HOME" && chown "$SSHD_TEST_USER" "$SSHD_HOME"; }
	# The test user outlives a suite run: run files an interrupted earlier
	# run left behind would carry the same run ids as this run's (each
	# test's database counts from 1), so start from none.
	rm -f "$SSHD_HOME"/.schedfarm/run-*
	[ -f "$_d/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$_d/host_key" || return 1
	[ -f "$_d/client_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$_d/client_key" || return 1
	cp "$_d/client_key.pub" "$_d/authorized_keys"
	chmod 644 "$_d/authorized_keys"
	SSHD_PORT=$(free_port) || return 1
	cat >"$_d/sshd_config" <<EOCONF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $_d/host_key
PidFile $_d/sshd.pid
AuthorizedKeysFile $_d/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AllowUsers $SSHD_TEST_USER
LogLevel VERBOSE
EOCONF
	: >"$_d/log"
	/usr/sbin/sshd -D -e -f "$_d/sshd_config" >>"$_d/log" 2>&1 &
	_pid=$!
	echo "$_pid" >"$_d/sshd.jobpid"
	test_atexit "kill $_pid"
	if ! wait_for "grep -q 'Server listening' '$_d/log'" 15; then
		cat "$_d/log"
		return 1
	fi
	printf '[127.0.0.1]:%s %s\n' "$SSHD_PORT" "$(cut -d' ' -f1,2 "$_d/host_key.pub")" \
		>"$_d/known_hosts"
	SSHD_DIR=$_d
	SSHD_USER=$SSHD_TEST_USER
	SSHD_KEY=$_d/client_key
	SSHD_KNOWN_HOSTS=$_d/known_hosts
	export SSHD_DIR SSHD_PORT SSHD_USER SSHD_KEY SSHD_KNOWN_HOSTS SSHD_HOME
}

# The pids of the per-connection sshd processes of the test user.
sshd_session_pids() {
	pgrep -u "$SSHD_TEST_USER" -f "^sshd: $SSHD_TEST_USER" 2>/dev/null
}
