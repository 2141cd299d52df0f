#!/usr/bin/python3
# smtp-server.py - a real SMTP server for the mail tests: Debian's
# python3-aiosmtpd on 127.0.0.1, started and stopped by the test.
#
#   smtp-server.py --port P --maildir DIR --ready FILE
#                  [--refuse-if FILE] [--refuse-rcpt FILE] [--stall-if FILE]
#                  [--tls CERT KEY] [--auth USER PASSFILE] [--log FILE]
#
# Every message accepted is written to DIR as NNN.eml: the envelope as
# X-Envelope-From / X-Envelope-To lines, then the data exactly as
# received.  While the file --refuse-if names exists, every RCPT TO is
# refused with "550 5.7.1 refused by the test server", so a test can make
# the server refuse and then accept without restarting it.  A RCPT TO
# whose address is a line of the file --refuse-rcpt names is refused with
# "550 5.1.1 no such user here" (the others are accepted).  While the file
# --stall-if names exists, the server takes the whole message, writes it,
# and then does not answer the end of DATA for 60 s (a server that times
# out after DATA).  With --tls the server offers STARTTLS and requires
# it; with --auth it requires a login (PLAIN or LOGIN) with that user and
# the first line of PASSFILE -- without --tls it offers AUTH over the
# plain connection, as a careless server does.  --log appends one line
# per event: "STARTTLS", "AUTH <mechanism>", "DATA <n recipients>".
# The server writes FILE (--ready) once it listens, and runs until it
# gets SIGTERM or SIGINT.
import argparse
import asyncio
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def log_event(path, line):
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


class Handler:
    def __init__(self, maildir, refuse_if, refuse_rcpt, stall_if, log):
        self.maildir = maildir
        self.refuse_if = refuse_if
        self.refuse_rcpt = refuse_rcpt
        self.stall_if = stall_if
        self.log = log
        self.lock = threading.Lock()

    def handle_STARTTLS(self, server, session, envelope):
        log_event(self.log, "STARTTLS")
        return True

    async def handle_RCPT(self, server, session, envelope, address, options):
        if self.refuse_if and os.path.exists(self.refuse_if):
            return "550 5.7.1 refused by the test server"
        if self.refuse_rcpt and os.path.exists(self.refuse_rcpt):
            with open(self.refuse_rcpt) as f:
                if address in [l.strip() for l in f]:
                    return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        log_event(self.log, "DATA %d" % len(envelope.rcpt_tos))
        r = self.write(envelope)
        if self.stall_if and os.path.exists(self.stall_if):
            await asyncio.sleep(60)
        return r

    def write(self, envelope):
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
    ap.add_argument("--refuse-rcpt")
    ap.add_argument("--stall-if")
    ap.add_argument("--log")
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
            log_event(a.log, "AUTH %s" % mechanism)
            ok = (isinstance(data, LoginPassword) and data.login == user
                  and data.password == password)
            return AuthResult(success=ok, handled=False)

        kw.update(authenticator=authenticator, auth_required=True,
                  auth_require_tls=bool(a.tls))
    handler = Handler(a.maildir, a.refuse_if, a.refuse_rcpt, a.stall_if, a.log)
    ctl = Controller(handler, hostname="127.0.0.1",
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
