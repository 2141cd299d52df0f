# redfish.sh - a Redfish BMC for the boot tests: tests/lib/redfish-mock.py
# on 127.0.0.1 with a certificate made here.  Source after test-lib.sh
# (and boot-lib.sh when the machine is a qemu guest).

# redfish_prereqs: skip_all unless python3 and openssl are here.
redfish_prereqs() {
	command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
	command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
}

# redfish_cert: $SCRATCH/bmc-cert.pem (self-signed for 127.0.0.1: the CA
# the client is given) and its key, once.
redfish_cert() {
	[ -s "$SCRATCH/bmc-cert.pem" ] && return 0
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
		-keyout "$SCRATCH/bmc-key.pem" -out "$SCRATCH/bmc-cert.pem" \
		>/dev/null 2>&1
}

# redfish_mock_up NAME [MOCK OPTIONS...] -- MACHINE...: the mock BMC NAME,
# user admin with a random password in $SCRATCH/NAME.pw (mode 0600), its
# port in $SCRATCH/NAME.port (waited for) and its log (resets, boot
# overrides, starts) in $SCRATCH/NAME.log; stopped at exit with its
# machine.
redfish_mock_up() {
	_n=$1
	shift
	redfish_cert || return 1
	umask 077
	head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$SCRATCH/$_n.pw"
	umask 022
	rm -f "$SCRATCH/$_n.port"
	(cd "$SCRATCH" && exec python3 "$TOP/tests/lib/redfish-mock.py" \
		--cert bmc-cert.pem --key bmc-key.pem --user admin \
		--password-file "$_n.pw" --port-file "$_n.port" \
		--log "$_n.log" "$@" >"$_n.mock.out" 2>&1) &
	test_atexit "kill $!"
	wait_for "test -s '$SCRATCH/$_n.port'" 30
}

# redfish_get NAME PATH: GET PATH of mock NAME (curl, the password from
# a config file, never on the command line).
redfish_get() {
	printf 'user = "admin:%s"\n' "$(cat "$SCRATCH/$1.pw")" >"$SCRATCH/$1.curlrc"
	curl -sS --cacert "$SCRATCH/bmc-cert.pem" -K "$SCRATCH/$1.curlrc" \
		"https://127.0.0.1:$(cat "$SCRATCH/$1.port")$2"
}
