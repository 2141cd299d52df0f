#!/usr/bin/python3
# smtp-server.py - a real SMTP server for the mail tests: Debian's
# python3-aiosmtpd on 127.0.0.1, started and stopped by the test.
#
#   smtp-server.py --port P --maildir DIR --ready FILE
#                  [--refuse-if FILE] [--tls CERT KEY] [--auth USER PASSFILE]
#
# Every message accepted is written to DIR as NNN.eml: the envelope as
# X-Envelope-From / X-Envelope-To lines, then the data exactly as
# received.  While the file --refuse-if names exists, every RCPT TO is
# refused with "550 5.7.1 refused by the test server", so a test can make
# the server refuse and then accept without restarting it.  With --tls
# the server offers STARTTLS and requires it; with --auth it requires a
# login (PLAIN or LOGIN) with that user and the first line of PASSFILE.
# The server writes FILE (--ready) once it listens, and runs until it
# gets SIGTERM or SIGINT.
import argparse
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Handler:
    def __init__(self, maildir, refuse_if):
        self.maildir = maildir
        self.refuse_if = refuse_if
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, options):
        if self.refuse_if and os.path.exists(self.refuse_if):
            return "550 5.7.1 refused by the test server"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            n = len([f for f in os.listdir(self.maildir) if f.endswith(".eml")])
            path = os.path.join(self.maildir, "%03d.eml" % (n + 1))
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(b"X-Envelope-From: %s\r\n" % envelope.mail_from.encode())
                for r in envelope.rcpt_tos:
                    f.write(b"X-Envelope-To: %s\r\n" % r.encode())
                f.write(envelope.original_content or envelope.content)
            os.rename(tmp, path)
        return "250 2.0.0 accepted"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--maildir", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--refuse-if")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--auth", nargs=2, metavar=("USER", "PASSFILE"))
    a = ap.parse_args()
    os.makedirs(a.maildir, exist_ok=True)
    kw = {}
    if a.tls:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        kw.update(tls_context=ctx, require_starttls=True)
    if a.auth:
        user = a.auth[0].encode()
        with open(a.auth[1], "rb") as f:
            password = f.readline().rstrip(b"\r\n")

        def authenticator(server, session, envelope, mechanism, data):
            ok = (isinstance(data, LoginPassword) and data.login == user
                  and data.password == password)
            return AuthResult(success=ok, handled=False)

        kw.update(authenticator=authenticator, auth_required=True,
                  auth_require_tls=bool(a.tls))
    ctl = Controller(Handler(a.maildir, a.refuse_if), hostname="127.0.0.1",
                     port=a.port, ready_timeout=30, **kw)
    # The controller's self-check connects without TLS; with STARTTLS
    # required it still sees the greeting, which is all it needs.
    ctl.start()
    with open(a.ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(a.ready + ".tmp", a.ready)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(1):
        pass
    ctl.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
