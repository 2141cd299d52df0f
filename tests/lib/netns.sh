# netns.sh - hosts with a network of their own, for fault tests (source it
# after test-lib.sh and sshd.sh).
#
#   netns_prereq || skip_all "$NETNS_SKIP"
#   netns_make NAME          # sets NETNS_<NAME> vars: see below
#   netns_sshd_start NAME    # sshd inside it on port 22
#   netns_link NAME down|up  # cut or restore its link
#
# A namespace made here has one veth pair to this machine on a /30 of
# 10.0.0.0/8 picked at random and checked unused, the namespace's end
# called eth0.  Everything is removed at exit.  The sshd is OpenSSH with a
# host key and client key made for the test, the test user of sshd.sh,
# and a known_hosts line for the namespace's address; it runs in the
# foreground of a background job inside the namespace.  Needs root.

netns_prereq() {
	NETNS_SKIP=
	if [ "$(id -u)" != 0 ]; then
		NETNS_SKIP="network namespaces need root"
	elif ! command -v ip >/dev/null; then
		NETNS_SKIP="ip (iproute2) not installed"
	else
		_t=sfprobe$$
		if ! ip netns add "$_t" 2>/dev/null; then
			NETNS_SKIP="ip netns add does not work here"
		else
			ip netns del "$_t"
		fi
	fi
	[ -z "$NETNS_SKIP" ]
}

# netns_make NAME: the namespace sf<pid>-NAME with a veth pair; sets
# NS (its name), NS_ADDR (its address), NS_PEER (this side's address),
# NS_HOSTIF (this side's interface).
netns_make() {
	NS=sf$$-$1
	NS_HOSTIF=sf$$${1%"${1#??}"}
	while :; do
		_a=$(( $(od -An -N1 -tu1 /dev/urandom) % 200 + 20 ))
		_b=$(( $(od -An -N1 -tu1 /dev/urandom) % 250 ))
		_c=$(( $(od -An -N1 -tu1 /dev/urandom) % 63 * 4 ))
		NS_PEER=10.$_a.$_b.$((_c + 1))
		NS_ADDR=10.$_a.$_b.$((_c + 2))
		# Free when no route or address of this machine (or of
		# another test's namespace) is in that /24.
		if ! ip route show | grep -q "^10\.$_a\.$_b\." &&
			! ip -o addr | grep -q " 10\.$_a\.$_b\."; then
			break
		fi
	done
	ip netns add "$NS" || return 1
	test_atexit "ip netns del '$NS'"
	ip link add "$NS_HOSTIF" type veth peer name eth0 netns "$NS" || return 1
	test_atexit "ip link del '$NS_HOSTIF'"
	ip addr add "$NS_PEER/30" dev "$NS_HOSTIF" &&
		ip link set "$NS_HOSTIF" up &&
		ip netns exec "$NS" ip addr add "$NS_ADDR/30" dev eth0 &&
		ip netns exec "$NS" ip link set eth0 up &&
		ip netns exec "$NS" ip link set lo up || return 1
	export NS NS_ADDR NS_PEER NS_HOSTIF
}

# netns_sshd_start NAME: sshd in the namespace made by netns_make NAME,
# on NS_ADDR port 22; sets SSHD_DIR, SSHD_USER, SSHD_KEY, SSHD_KNOWN_HOSTS,
# SSHD_PID.
netns_sshd_start() {
	_d=$SCRATCH/sshd-$1
	mkdir -p "$_d" /run/sshd
	if ! id "$SSHD_TEST_USER" >/dev/null 2>&1; then
		useradd -m -s /bin/sh "$SSHD_TEST_USER" || return 1
	fi
	usermod -p '*' "$SSHD_TEST_USER" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$_d/host_key" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$_d/client_key" || return 1
	cp "$_d/client_key.pub" "$_d/authorized_keys"
	chmod 644 "$_d/authorized_keys"
	cat >"$_d/sshd_config" <<EOCONF
Port 22
ListenAddress $NS_ADDR
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
	ip netns exec "$NS" /usr/sbin/sshd -D -e -f "$_d/sshd_config" >>"$_d/log" 2>&1 &
	SSHD_PID=$!
	test_atexit "kill $SSHD_PID"
	if ! wait_for "grep -q 'Server listening' '$_d/log'" 15; then
		cat "$_d/log"
		return 1
	fi
	printf '%s %s\n' "$NS_ADDR" "$(cut -d' ' -f1,2 "$_d/host_key.pub")" \
		>"$_d/known_hosts"
	SSHD_DIR=$_d
	SSHD_USER=$SSHD_TEST_USER
	SSHD_KEY=$_d/client_key
	SSHD_KNOWN_HOSTS=$_d/known_hosts
	export SSHD_DIR SSHD_USER SSHD_KEY SSHD_KNOWN_HOSTS SSHD_PID
}

# netns_link down|up: the namespace's end of the link (its eth0).
netns_link() {
	ip netns exec "$NS" ip link set eth0 "$1"
}
