#!/usr/bin/env python3
"""redfish-mock.py - a small DMTF Redfish BMC for the tests, on loopback.

    redfish-mock.py --cert C --key K --user U --password-file F \
        --port-file P [--console-port N] [--fail-file X] [--log L] \
        -- MACHINE-COMMAND [ARG...]

HTTPS on 127.0.0.1 (a free port, written to --port-file once it listens)
with the certificate the test made (openssl req -x509), HTTP basic auth
with --user and the first line of --password-file.  It serves the service
root /redfish/v1/, the collection /redfish/v1/Systems with one member, and
that system, /redfish/v1/Systems/1: PowerState, Boot (the override fields,
PATCHable), the #ComputerSystem.Reset action, and SerialConsole (Telnet
enabled on --console-port when given, else disabled).

Like ipmi_sim's startcmd, the command after -- IS the machine: Reset "On"
starts it (when it is not running), "ForceOff" ends it (SIGTERM to its
process group, SIGKILL after a few seconds), "ForceRestart" both, and
PowerState says whether it runs.  Each start gets BOOT=pxe in its
environment when a PXE override is set ("Once": then cleared), else
BOOT=disk, and CONSOLE_PORT when --console-port is given.  While the file
--fail-file exists every request is answered 503 (a BMC in trouble).  It
stops on SIGTERM, ending its machine.  Python's standard library only.
"""
import argparse
import base64
import hmac
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SYSTEM = "/redfish/v1/Systems/1"
RESET = SYSTEM + "/Actions/ComputerSystem.Reset"
RESET_TYPES = ["On", "ForceOff", "ForceRestart"]
TARGETS = ["None", "Pxe", "Hdd"]
ENABLED = ["Disabled", "Once", "Continuous"]
BODY_MAX = 65536


class Machine:
    """The command that is the machine, and the boot override."""

    def __init__(self, argv, console_port, kill_wait, log):
        self.argv = argv
        self.console_port = console_port
        self.kill_wait = kill_wait
        self.log = log
        self.proc = None
        self.target = "None"
        self.enabled = "Disabled"
        self.lock = threading.Lock()

    def note(self, what):
        if self.log:
            with open(self.log, "a") as f:
                f.write(what + "\n")

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self):
        if self.running():
            return
        env = dict(os.environ)
        pxe = self.target == "Pxe" and self.enabled in ("Once", "Continuous")
        env["BOOT"] = "pxe" if pxe else "disk"
        if self.console_port:
            env["CONSOLE_PORT"] = str(self.console_port)
        if self.enabled == "Once":
            self.target, self.enabled = "None", "Disabled"
        self.proc = subprocess.Popen(self.argv, env=env,
                                     start_new_session=True)
        self.note("start BOOT=%s pid=%d" % (env["BOOT"], self.proc.pid))

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(self.kill_wait)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
            self.note("stop")
        self.proc = None


class Handler(BaseHTTPRequestHandler):
    server_version = "redfish-mock/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send_json(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="redfish-mock"')
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, message):
        self.send_json(status, {"error": {"code": "Base.1.0.GeneralError",
                                          "message": message}})

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n < 0 or n > BODY_MAX:
            return None
        try:
            doc = json.loads(self.rfile.read(n) or b"null")
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    def authorised(self):
        cfg = self.server.cfg
        want = base64.b64encode(("%s:%s" % (cfg.user, cfg.password))
                                .encode()).decode()
        got = self.headers.get("Authorization", "")
        return hmac.compare_digest(got.encode(), ("Basic " + want).encode())

    def check(self):
        """False when the request was answered already (failing, refused)."""
        if os.path.exists(self.server.cfg.fail_file or "/nonexistent/x"):
            self.error(503, "the BMC is busy (fail file present)")
            return False
        path = self.path.rstrip("/")
        if path == "/redfish/v1" or path == "/redfish":
            return True
        if not self.authorised():
            self.error(401, "authentication required")
            return False
        return True

    def system(self):
        m = self.server.machine
        console = {"MaxConcurrentSessions": 1 if m.console_port else 0,
                   "Telnet": {"ServiceEnabled": bool(m.console_port)}}
        if m.console_port:
            console["Telnet"]["Port"] = m.console_port
        return {
            "@odata.id": SYSTEM,
            "@odata.type": "#ComputerSystem.v1_13_0.ComputerSystem",
            "Id": "1",
            "Name": "redfish-mock machine",
            "PowerState": "On" if m.running() else "Off",
            "Boot": {
                "BootSourceOverrideTarget": m.target,
                "BootSourceOverrideEnabled": m.enabled,
                "BootSourceOverrideTarget@Redfish.AllowableValues": TARGETS,
            },
            "SerialConsole": console,
            "Actions": {"#ComputerSystem.Reset": {
                "target": RESET,
                "ResetType@Redfish.AllowableValues": RESET_TYPES}},
        }

    def do_GET(self):
        if not self.check():
            return
        path = self.path.rstrip("/")
        if path == "/redfish/v1":
            self.send_json(200, {"@odata.id": "/redfish/v1/",
                                 "RedfishVersion": "1.11.0",
                                 "Systems": {"@odata.id": "/redfish/v1/Systems"}})
        elif path == "/redfish/v1/Systems":
            self.send_json(200, {"@odata.id": "/redfish/v1/Systems",
                                 "Members@odata.count": 1,
                                 "Members": [{"@odata.id": SYSTEM}]})
        elif path == SYSTEM:
            with self.server.machine.lock:
                self.send_json(200, self.system())
        else:
            self.error(404, "no such resource")

    def do_PATCH(self):
        if not self.check():
            return
        if self.path.rstrip("/") != SYSTEM:
            self.error(405, "only the system can be patched")
            return
        doc = self.read_body()
        boot = doc.get("Boot") if doc else None
        if not isinstance(boot, dict) or not boot:
            self.error(400, "expected {\"Boot\": {...}}")
            return
        t = boot.get("BootSourceOverrideTarget")
        e = boot.get("BootSourceOverrideEnabled")
        if (t is not None and t not in TARGETS) or \
           (e is not None and e not in ENABLED) or \
           set(boot) - {"BootSourceOverrideTarget",
                        "BootSourceOverrideEnabled"}:
            self.error(400, "unsupported Boot property or value")
            return
        m = self.server.machine
        with m.lock:
            if t is not None:
                m.target = t
            if e is not None:
                m.enabled = e
            m.note("boot %s %s" % (m.target, m.enabled))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        if not self.check():
            return
        if self.path != RESET:
            self.error(404, "no such action")
            return
        doc = self.read_body()
        rt = doc.get("ResetType") if doc else None
        if rt not in RESET_TYPES:
            self.error(400, "unsupported ResetType")
            return
        m = self.server.machine
        with m.lock:
            m.note("reset " + rt)
            if rt == "On":
                m.start()
            elif rt == "ForceOff":
                m.stop()
            else:
                m.stop()
                m.start()
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that refused the certificate, or went away: nothing
        # the test needs in its log.
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password-file", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--console-port", type=int, default=0)
    ap.add_argument("--fail-file")
    ap.add_argument("--log")
    ap.add_argument("--kill-wait", type=float, default=3.0)
    ap.add_argument("machine", nargs="+")
    cfg = ap.parse_args()
    with open(cfg.password_file) as f:
        cfg.password = f.readline().rstrip("\r\n")
    if not 0 <= cfg.console_port <= 65535:
        ap.error("--console-port: 0..65535")

    machine = Machine(cfg.machine, cfg.console_port, cfg.kill_wait, cfg.log)
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.cfg = cfg
    httpd.machine = machine
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cfg.cert, cfg.key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True,
                                   do_handshake_on_connect=False)

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    tmp = cfg.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % httpd.server_address[1])
    os.rename(tmp, cfg.port_file)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        with machine.lock:
            machine.stop()


if __name__ == "__main__":
    sys.exit(main())
