# smtp.sh - a real SMTP server for the mail tests (t8*): Debian's
# python3-aiosmtpd (tests/lib/smtp-server.py) on 127.0.0.1, with STARTTLS
# (a throwaway certificate) and a login, started by the test and stopped
# at exit.  Source after test-lib.sh.
#
#   smtp_prereqs            skip_all unless aiosmtpd and openssl are here
#   smtp_up DIR [--plain]   start it; mails land in DIR/mail, the server
#                           refuses every RCPT while DIR/refuse exists and
#                           the addresses listed in DIR/refuse-rcpt, does
#                           not answer the end of DATA while DIR/stall
#                           exists, and logs STARTTLS, AUTH and DATA to
#                           DIR/events; --plain: no TLS, AUTH offered in
#                           clear (a careless server); sets SMTP_PORT,
#                           SMTP_CA, SMTP_PASSFILE
#   smtp_config FILE DIR    write a farm config for that server (mode 0600:
#                           the farm refuses one others may write)
#   smtp_count DIR          the number of mails the server accepted
#   smtp_unfold FILE        a mail with its header lines unfolded

# The interpreter with Debian's modules (a pyenv python may shadow it).
SMTP_PYTHON=${SMTP_PYTHON:-/usr/bin/python3}

smtp_prereqs() {
	[ -x "$SMTP_PYTHON" ] || skip_all "no $SMTP_PYTHON (make deps)"
	"$SMTP_PYTHON" -c 'import aiosmtpd' 2>/dev/null ||
		skip_all "python3-aiosmtpd not installed (make deps)"
	command -v openssl >/dev/null 2>&1 || skip_all "openssl not installed"
}

_smtp_free_port() {
	"$SMTP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

smtp_up() {
	_d=$1
	_tls="--tls $_d/tls/cert.pem $_d/tls/key.pem"
	[ "${2:-}" = --plain ] && _tls=
	mkdir -p "$_d/mail" "$_d/tls"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		-keyout "$_d/tls/key.pem" -out "$_d/tls/cert.pem" \
		-subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" \
		>/dev/null 2>&1 || return 1
	printf 'test-smtp-secret\n' >"$_d/password"
	chmod 600 "$_d/password"
	SMTP_PORT=$(_smtp_free_port)
	SMTP_CA=$_d/tls/cert.pem
	SMTP_PASSFILE=$_d/password
	"$SMTP_PYTHON" "$TOP/tests/lib/smtp-server.py" --port "$SMTP_PORT" \
		--maildir "$_d/mail" --ready "$_d/ready" --refuse-if "$_d/refuse" \
		--refuse-rcpt "$_d/refuse-rcpt" --stall-if "$_d/stall" \
		--log "$_d/events" $_tls \
		--auth farm "$_d/password" >"$_d/server.log" 2>&1 &
	_smtp_pid=$!
	test_atexit "kill $_smtp_pid"
	wait_for "test -s '$_d/ready'" 30 || { cat "$_d/server.log"; return 1; }
	export SMTP_PORT SMTP_CA SMTP_PASSFILE
}

# smtp_config FILE DIR [EXTRA LINES]: the [report] and [mail] sections for
# the server of smtp_up (retries after 1 s, so a test need not wait long).
smtp_config() {
	cat >"$1" <<EOF
# written by $(basename "$0")
[report]
dir = $2/www
base_url = http://farm.example/reports/

[mail]
smtp = smtp://127.0.0.1:$SMTP_PORT
starttls = required
ca_file = $SMTP_CA
user = farm
password_file = $SMTP_PASSFILE
from = schedfarm test <farm@example.org>
to = sched-devel@example.org
timeout = 20s
retry_min = 1s
retry_max = 2s
max_attempts = 5
${3:-}
EOF
	chmod 600 "$1"
}

# The number of mails the server accepted.
smtp_count() {
	ls "$1/mail" 2>/dev/null | grep -c '\.eml$'
}

# The headers of mail FILE unfolded (RFC 5322: a line break before a space
# continues the line), CRs dropped, then the body: for greps of a header.
smtp_unfold() {
	tr -d '\r' <"$1" | awk '
		/^$/ { body = 1 }
		!body && /^[ \t]/ { printf "%s", $0; next }
		NR > 1 { print "" }
		{ printf "%s", $0 }
		END { print "" }'
}
