"""`panelctl serve` over plain HTTP: it runs until stopped (README's own
line still answers 60 s after it started); HEAD on every GET route, 405
for other methods, short 404 bodies; CORS for allowed origins only;
`--static` serves a folder and nothing outside it; `/metrics` in the
Prometheus text format, read by python's prometheus_client; bad
`--allow-origin` values and a port in use are refused with a plain
message."""

import json
import os
import shutil
import signal
import socket
import tempfile
import time
import unittest
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

import hostlib
from servelib import Serve

ROUTES = ["/", "/dashboard.js", "/dashboard.css", "/forcepanel.js", "/forcepanel.global.js", "/forcepanel.d.ts", "/demo",
          "/demo.js", "/demo.css", "/panel.json", "/status.json", "/metrics", "/ws", "/app/", "/app/kiosk.css"]


def request(base, path, method="GET", headers=None):
    """(status, headers, body) of one request."""
    r = urllib.request.Request(base + path, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(r, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def port_is_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def metrics(base):
    """{sample name: value} of one scrape, through prometheus_client's parser."""
    _, headers, body = request(base, "/metrics")
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4"), headers
    samples = {}
    families = {}
    for family in text_string_to_metric_families(body.decode()):
        families[family.name] = family.type
        for sample in family.samples:
            samples[sample.name] = sample.value
    return samples, families


class ServeRunsUntilStoppedTests(unittest.TestCase):
    def test_readmes_line_answers_a_minute_later_and_its_metrics_rise(self):
        # README's line: port 8080 when it is free here, else any.
        listen = [] if port_is_free(8080) else ["--listen", "127.0.0.1:0"]
        started = time.monotonic()
        server = Serve(["--board", "boards/sim-plate4.toml"] + listen)
        try:
            first, families = metrics(server.base)
            self.assertEqual(families["panel_frames"], "counter")
            self.assertEqual(families["panel_frame_rate_hz"], "gauge")
            for name in ("panel_bus_errors_total", "panel_bus_retries_total", "panel_ws_clients", "panel_ws_messages_dropped_total",
                         "panel_calibration_age_seconds", "panel_frames_missed_total", "panel_core_spikes_total"):
                self.assertIn(name, first)
            self.assertEqual(first["panel_info"], 1)
            self.hygiene(server)
            # The scenario (a few seconds) is how the run starts, not its end.
            while time.monotonic() - started < 60:
                time.sleep(min(5, 60 - (time.monotonic() - started)))
                self.assertIsNone(server.proc.poll(), "serve is still running")
            status, _, body = request(server.base, "/")
            self.assertEqual(status, 200)
            self.assertIn(b"<html", body)
            second, _ = metrics(server.base)
            # A minute of a 500 frames/s plate; the bound leaves room for a
            # loaded machine (the count, not the pace, is what is checked).
            self.assertGreater(second["panel_frames_total"], first["panel_frames_total"] + 5000)
            self.assertGreater(second["panel_frame_rate_hz"], 0)
        finally:
            server.proc.send_signal(signal.SIGTERM)
            code, _ = server.wait()
        self.assertEqual(code, 0, "\n".join(server.stderr))

    def hygiene(self, server):
        base = server.base
        for path in ["/", "/forcepanel.js", "/panel.json", "/status.json", "/metrics", "/demo", "/forcepanel.d.ts", "/ws"]:
            get_status, get_headers, body = request(base, path)
            status, headers, head_body = request(base, path, "HEAD")
            self.assertEqual(status, get_status, f"HEAD {path}")
            self.assertEqual(head_body, b"", f"HEAD {path} has no body")
            self.assertEqual(headers.get("Content-Type"), get_headers.get("Content-Type"), path)
            if path not in ("/status.json", "/metrics"):
                self.assertEqual(headers.get("Content-Length"), str(len(body)), path)
            for method in ("POST", "PUT", "DELETE", "PATCH"):
                status, headers, _ = request(base, path, method)
                self.assertEqual(status, 405, f"{method} {path}")
                self.assertEqual(headers["Allow"], "GET, HEAD, OPTIONS")
        status, headers, body = request(base, "/nothing-here")
        self.assertEqual((status, body), (404, b"not found\n"))
        self.assertEqual(request(base, "/nothing-here", "POST")[0], 404)
        self.assertEqual(request(base, "/nothing-here", "HEAD")[:3:2], (404, b""))
        # No cross-origin header for a page of an origin not allowed.
        _, headers, _ = request(base, "/forcepanel.js", headers={"Origin": "http://localhost:3000"})
        self.assertNotIn("Access-Control-Allow-Origin", headers)


class ServeOriginsTests(unittest.TestCase):
    def test_allowed_origins_get_cors_and_the_static_folder_stays_inside(self):
        folder = tempfile.mkdtemp()
        try:
            with open(os.path.join(folder, "index.html"), "w") as f:
                f.write("<!doctype html><title>mine</title>")
            with open(os.path.join(folder, ".env"), "w") as f:
                f.write("SECRET=1")
            os.symlink("/etc/hostname", os.path.join(folder, "outside"))
            os.mkfifo(os.path.join(folder, "pipe"))
            server = Serve(["--board", "boards/sim-plate4.toml", "--allow-origin", "http://localhost:3000/",
                            "--allow-origin", "https://kiosk.example:443", "--static", folder])
            try:
                base = server.base
                for origin in ("http://localhost:3000", "https://kiosk.example"):
                    for path in ("/forcepanel.js", "/panel.json", "/forcepanel.global.js"):
                        status, headers, _ = request(base, path, headers={"Origin": origin})
                        self.assertEqual(status, 200)
                        self.assertEqual(headers["Access-Control-Allow-Origin"], origin, path)
                        self.assertEqual(headers["Vary"], "Origin")
                # A preflight (a custom header), with Private Network Access's.
                status, headers, _ = request(base, "/panel.json", "OPTIONS", headers={
                    "Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "x-kiosk", "Access-Control-Request-Private-Network": "true"})
                self.assertEqual(status, 204)
                self.assertEqual(headers["Access-Control-Allow-Origin"], "http://localhost:3000")
                self.assertEqual(headers["Access-Control-Allow-Headers"], "x-kiosk")
                self.assertEqual(headers["Access-Control-Allow-Private-Network"], "true")
                self.assertEqual(request(base, "/panel.json", "OPTIONS", headers={"Origin": "http://evil.example"})[0], 403)
                server.wait_for_line(r"refused a cross-origin request for \"/panel.json\": Origin \"http://evil.example\"")
                # --static: the folder under /app/, nothing outside it.
                status, headers, body = request(base, "/app/")
                self.assertEqual((status, body), (200, b"<!doctype html><title>mine</title>"))
                self.assertEqual(request(base, "/app")[0], 200, "redirected to /app/")
                for path in ("/app/.env", "/app/outside", "/app/pipe", "/app/../README.md", "/app/%2e%2e/README.md",
                             "/app/nothing.html"):
                    self.assertIn(request(base, path)[0], (400, 404), path)
            finally:
                server.proc.send_signal(signal.SIGTERM)
                server.wait()
        finally:
            for name in (".env", "index.html", "outside", "pipe"):
                os.unlink(os.path.join(folder, name))
            os.rmdir(folder)

    def test_bad_origins_and_a_port_in_use_are_refused_plainly(self):
        for value, words in (("localhost:3000", "starts with http:// or https://"), ("*", "every site's pages"),
                             ("http://localhost:3000/app", "without path")):
            run = hostlib.panelctl(["serve", "--board", "boards/sim-plate4.toml", "--allow-origin", value])
            self.assertEqual(run.returncode, 64, run.stderr)
            self.assertIn(words, run.stderr)
        server = Serve(["--board", "boards/sim-plate4.toml"])
        try:
            run = hostlib.panelctl(["serve", "--board", "boards/sim-plate4.toml", "--listen", f"127.0.0.1:{server.port}"])
        finally:
            server.proc.send_signal(signal.SIGTERM)
            server.wait()
        self.assertEqual(run.returncode, 1)
        self.assertIn(f"cannot listen on 127.0.0.1:{server.port}: the port is in use", run.stderr)
        self.assertIn("--listen 127.0.0.1:0 takes a free one", run.stderr)
        self.assertNotIn("descriptor", run.stderr)


class ServeFactoryReportTests(unittest.TestCase):
    """`serve --db`: the dashboard links the line's factory report, made
    from the database at each request; off loopback only the token's
    holder reads it; without --db there is no such page."""

    def test_the_dashboard_links_the_report_of_its_database(self):
        work = tempfile.mkdtemp(prefix="serve-factory-")
        db = os.path.join(work, "line.sqlite")
        seeded = hostlib.panelctl(["factory", "simulate-line", "--db", db, "--work", os.path.join(work, "base"),
                                   "--calibrations", "60", "--stations", "2", "--drift-station", "2"], timeout=900)
        self.assertEqual(seeded.returncode, 0, seeded.stderr)
        server = Serve(["--board", "boards/sim-plate4.toml", "--db", db])
        try:
            server.wait_for_line(r"the factory report at http://127\.0\.0\.1:\d+/factory/report")
            status, body, _ = server.get("/panel.json")
            self.assertEqual(json.loads(body)["factory_report"], "/factory/report")
            status, body, headers = server.get("/factory/report")
            self.assertEqual(status, 200, body)
            self.assertTrue(headers["Content-Type"].startswith("text/html"), headers)
            page = body.decode()
            self.assertIn("60 calibrations", page)
            self.assertIn("<svg", page)
            status, body, _ = server.get("/")
            self.assertIn(b'id="factory-report"', body)
        finally:
            server.proc.send_signal(signal.SIGTERM)
            server.wait()

        token = "factory-token-1"
        server = Serve(["--board", "boards/sim-plate4.toml", "--db", db, "--listen", "0.0.0.0:0", "--token", token])
        try:
            status, body, _ = server.get("/factory/report")
            self.assertEqual(status, 403, body)
            self.assertIn(b"needs the token", body)
            status, body, _ = server.get("/factory/report?token=" + token)
            self.assertEqual(status, 200, body)
        finally:
            server.proc.send_signal(signal.SIGTERM)
            server.wait()

        server = Serve(["--board", "boards/sim-plate4.toml"])
        try:
            status, body, _ = server.get("/panel.json")
            self.assertIsNone(json.loads(body)["factory_report"])
            status, _, _ = server.get("/factory/report")
            self.assertEqual(status, 404)
        finally:
            server.proc.send_signal(signal.SIGTERM)
            server.wait()

        run = hostlib.panelctl(["serve", "--board", "boards/sim-plate4.toml", "--db", os.path.join(work, "nope.sqlite")])
        shutil.rmtree(work, ignore_errors=True)
        self.assertEqual(run.returncode, 64, run.stderr)
        self.assertIn("no such file", run.stderr)


if __name__ == "__main__":
    unittest.main()
