#!/usr/bin/python3
"""A FAKE LAVA server: a test fake of LAVA's HTTP error behaviour, never
used by the product (hilbench talks to real LAVA servers only).

It is not LAVA and proves nothing about LAVA: it answers the few REST v0.2
requests hilbench makes with canned replies shaped like LAVA 2023.01's, so
that the tests can drive the error paths that a real server cannot be made
to produce on demand: tests/lava/rest-errors.sh the client's (403, 400, 5xx
then success, an Incomplete job, a Bad device, a job that runs until it is
canceled), tests/lava/plan-errors.sh the lava backend's under `hilbench
run` (500 on every submission; a server that takes the job and then closes
every connection unanswered; a job that ends Incomplete before it runs).
No scenario ever reports a run as measured. The real server is tested by
tests/lava/server.sh.

    fake_lava_server.py SCENARIO PORTFILE REQUESTLOG

Listens on 127.0.0.1, an ephemeral port written to PORTFILE; every request
("METHOD PATH AUTHORIZATION") is appended to REQUESTLOG.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

SCENARIO, PORTFILE, REQUESTLOG = sys.argv[1:4]
TOKEN = "hb-test-token-5f3a9c"  # what the test gives hilbench
state = {"requests": 0, "polls": 0}

LOG_LINES = [
    '- {"dt": "2026-01-01T00:00:00.000000", "lvl": "info", "msg": "start: 0 validate"}',
    '- {"dt": "2026-01-01T00:00:01.000000", "lvl": "target", "msg": "HB HELLO agent=1 kernel=6.1.0 machine=armv7l"}',
    '- {"dt": "2026-01-01T00:00:02.000000", "lvl": "results", "msg": {"case": "pps", "definition": "0_hilbench-udp64-dut-tx", "measurement": ! "724.5", "result": "pass", "units": "packets/s"}}',
]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json" if not isinstance(body, str) else "application/yaml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        auth = self.headers.get("Authorization", "")
        with open(REQUESTLOG, "a") as f:
            f.write("%s %s %s\n" % (method, self.path, auth))
        state["requests"] += 1
        if SCENARIO == "wrong-token" or auth != "Token " + TOKEN:
            return self.reply(403, {"detail": "Invalid token."})
        if SCENARIO == "flaky" and state["requests"] <= 2:
            return self.reply(500, "<h1>Server Error (500)</h1>")
        if SCENARIO == "gone-after-submit" and state.get("submitted"):
            # the connection closes without a status line
            self.close_connection = True
            return None
        path = self.path.split("?")[0]
        if path == "/api/v0.2/devices/":
            # the device type's list (limit/offset pages, as LAVA's)
            kind = self.path.split("device_type=")[1].split("&")[0] if "device_type=" in self.path else ""
            health = "Bad" if SCENARIO == "device-bad" else "Good"
            devs = [{"hostname": "qemu-01", "device_type": kind, "health": health, "state": "Idle"}]
            return self.reply(200, {"count": 1, "next": None, "previous": None, "results": devs})
        if path.startswith("/api/v0.2/devices/"):
            if SCENARIO == "device-bad":
                return self.reply(200, {"hostname": "qemu-01", "health": "Bad", "state": "Idle"})
            return self.reply(200, {"hostname": "qemu-01", "health": "Good", "state": "Idle"})
        if method == "POST" and path == "/api/v0.2/jobs/":
            if SCENARIO == "bad-job":
                return self.reply(400, {"message": "job submission failed: 'timeouts' is a required property."})
            if SCENARIO == "submit-500":
                return self.reply(500, "<h1>Server Error (500)</h1>")
            json.loads(body)["definition"]
            state["submitted"] = True
            return self.reply(201, {"message": "job(s) successfully submitted", "job_ids": [7]})
        if path == "/api/v0.2/jobs/7/":
            state["polls"] += 1
            if SCENARIO == "incomplete-at-once":
                return self.reply(200, {"id": 7, "state": "Finished", "health": "Incomplete"})
            finished = state["polls"] > 1 and SCENARIO != "running"
            health = ("Incomplete" if SCENARIO == "incomplete" else "Complete") if finished else "Unknown"
            return self.reply(200, {"id": 7, "state": "Finished" if finished else "Running", "health": health})
        if path == "/api/v0.2/jobs/7/logs/":
            start = int(self.path.split("start=")[1]) if "start=" in self.path else 0
            return self.reply(200, "\n".join(LOG_LINES[start:]) + ("\n" if LOG_LINES[start:] else ""))
        if path == "/api/v0.2/jobs/7/cancel/":
            return self.reply(200, {"message": "Job cancel request submitted."})
        return self.reply(404, {"detail": "Not found."})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")


server = HTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
