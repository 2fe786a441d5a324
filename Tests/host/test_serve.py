"""`panelctl serve` through a real WebSocket client (the `websockets`
package): every message is a report line of the NDJSON schema, the same
lines `panelctl stream` writes for the same run; `/ws?idle=1` and
`?image=1`; control lines answered to their sender; the stream's end (the
last frame's report, then a normal close); the access rules (a token off
loopback, the Origin and Host checks); the web files served from the
binary alone."""

import asyncio
import json
import os
import socket
import shutil
import signal
import tempfile
import unittest

import websockets

import hostlib
import servelib
from servelib import Serve


def image_free(line):
    """The report line without what `--image` adds (from `"image_n"` on)."""
    cut = line.rindex(',"image_n":[')
    return line[:cut] + "}"


class ServeStreamTests(unittest.TestCase):
    def test_messages_are_the_report_lines_of_stream_and_the_end_closes(self):
        # serve runs until stopped: both runs are given the same length.
        reference = servelib.stream_lines(["--board", "boards/sim-plate4.toml", "--speed", "0", "--duration", "6"])
        server = Serve(["--board", "boards/sim-plate4.toml", "--speed", "4", "--duration", "6", "--wait-clients", "1"])
        try:
            messages, code, reason = servelib.run(servelib.read_all(server.ws))
        finally:
            status, _ = server.wait()
        self.assertEqual(status, 0, "\n".join(server.stderr))
        servelib.check_reports(self, messages)
        self.assertEqual(len(messages), len(reference))
        self.assertEqual(messages, reference, "the WebSocket carries exactly the lines of `panelctl stream`")
        self.assertEqual((code, reason), (1000, "stream ended"))
        s = server.summary()
        self.assertEqual((s["sent"], s["dropped"], s["clients"]), (len(reference), 0, 1))

    def test_a_stream_cut_mid_press_ends_the_touch_in_its_last_message(self):
        server = Serve(["--board", "boards/sim-plate4.toml", "--speed", "4", "--duration", "2.5", "--wait-clients", "1"])
        try:
            messages, code, reason = servelib.run(servelib.read_all(server.ws))
        finally:
            server.wait()
        reports = servelib.check_reports(self, messages)
        last = reports[-1]
        self.assertEqual(last["frame"], 799, "the last message is the report of the last frame (2.5 s at 320 Hz)")
        self.assertEqual([(t["phase"], t.get("reason")) for t in last["touches"]], [("cancelled", "stream_end")])
        self.assertEqual((code, reason), (1000, "stream ended"))

    def test_idle_and_image_streams(self):
        server = Serve(["--board", "boards/sim-grid.toml", "--speed", "4", "--frames", "900", "--wait-clients", "3"])

        async def clients():
            return await asyncio.gather(
                servelib.read_all(server.ws), servelib.read_all(server.ws + "?idle=1"),
                servelib.read_all(server.ws + "?image=1"))

        try:
            (plain, _, _), (idle, _, _), (image, _, _) = servelib.run(clients())
        finally:
            server.wait()
        servelib.check_reports(self, idle)
        self.assertEqual([json.loads(m)["frame"] for m in idle], list(range(900)), "idle: every frame")
        self.assertEqual([image_free(m) for m in image], idle, "image: every frame, the same line plus image_n")
        self.assertTrue(all(len(json.loads(m)["image_n"]) == 48 for m in image))
        # Exactly what `stream --image` writes for the same run.
        self.assertEqual(image, servelib.stream_lines(
            ["--board", "boards/sim-grid.toml", "--frames", "900", "--speed", "0", "--image"]))
        loud = [m for m in idle if json.loads(m)["touches"] or json.loads(m)["events"]]
        self.assertGreater(len(loud), 100)
        self.assertEqual(plain, loud, "the plain stream: the frames with a touch or an event")
        self.assertEqual(server.summary()["dropped"], 0)


class ServeControlTests(unittest.TestCase):
    LINES = "\n".join([
        "sensitivity firm",
        "volume 11",
        'regions [{name = "centre", x_mm = 60.00, y_mm = 30.00, width_mm = 40.00, height_mm = 40.00, peek = true, pop = true}]',
        "regions ../regions/home.toml",
        "# a comment",
        'quick_actions centre [{title = "Reply"}]',
    ])

    def test_control_lines_are_applied_and_answered_to_their_sender_only(self):
        server = Serve(["--board", "boards/sim-plate4.toml", "--speed", "4", "--duration", "6", "--wait-clients", "2"])

        async def clients():
            return await asyncio.gather(servelib.read_all(server.ws, send=self.LINES), servelib.read_all(server.ws))

        try:
            (sender, _, _), (other, _, _) = servelib.run(clients())
        finally:
            server.wait()
        replies = {r["line"]: r for r in (json.loads(m) for m in sender) if "control" in r}
        self.assertEqual(sorted(replies), [1, 2, 3, 4, 5, 6], "one reply per line")
        self.assertEqual({n for n, r in replies.items() if r["control"] == "ok"}, {1, 3, 5, 6})
        # The sender is named as a file would be: ws#ID, its line.
        self.assertRegex(replies[2]["message"], r'^ws#\d+:2: unknown command "volume"')
        self.assertRegex(replies[4]["message"], r"^ws#\d+:4: regions: a file cannot be named here")
        self.assertFalse(any("control" in json.loads(m) for m in other), "replies go to their sender only")
        reports = servelib.check_reports(self, [m for m in sender if "control" not in json.loads(m)])
        self.assertEqual(reports, servelib.check_reports(self, other), "both clients see the same stream")
        events = [e for r in reports for e in r["events"]]
        self.assertIn({"type": "sensitivity", "touch": 0, "sensitivity": "firm"}, events)
        self.assertIn({"type": "regions", "touch": 0, "name": "", "items": 1}, events)
        # The demo's firm press at the centre is on the item now, which is
        # this client's own: its name is in the client's scope.
        scope = replies[3]["scope"]
        self.assertRegex(scope, r"^ws#\d+/$")
        self.assertEqual((replies[3]["control"], replies[3]["kept"]), ("ok", 1))
        peeks = [e for e in events if e["type"] == "peek"]
        self.assertTrue(peeks and all(e["item"] == scope + "centre" for e in peeks), peeks)


class ServeLineTests(unittest.TestCase):
    """How messages become lines and every line gets its answer: CRLF and
    LF end lines, an empty message is one line, a binary message an error,
    the line limit, a regions line's items each checked on its own."""

    def test_every_line_is_numbered_and_answered(self):
        server = Serve(["--board", "boards/sim-plate4.toml", "--speed", "4", "--wait-clients", "1"])
        items = ('regions [{name = "a", x_mm = 10.00, y_mm = 10.00, width_mm = 20.00, height_mm = 20.00, peek = true, pop = true}, '
                 '{name = "b", x_mm = 40.00, y_mm = 10.00, width_mm = 20.00, height_mm = 20.00, quick_action = [{title = "One"}]}, '
                 '{name = "c", x_mm = 70.00, y_mm = 10.00, width_mm = 20.00, height_mm = 20.00, peek = true}, '
                 '{name = "d", x_mm = 150.00, y_mm = 10.00, width_mm = 20.00, height_mm = 20.00, peek = true, pop = true}, '
                 '{name = "a", x_mm = 10.00, y_mm = 50.00, width_mm = 20.00, height_mm = 20.00, edit_menu = true, colour = "red"}]')
        messages = [
            "sensitivity light\r\nforce_touch on\r\n",    # lines 1, 2 (CRLF)
            "",                                             # line 3: an empty message is one empty line
            b"\x00\x01",                                    # line 4: binary
            "sensitivity firm # a comment\n\nvolume 11",     # lines 5, 6 (empty), 7
            "sensitivity " + "x" * 17000,                   # line 8: over 16 KiB
            items,                                          # line 9: items, some refused
            "force_touch off\r",                             # line 10: a lone CR at the end
        ]

        async def client():
            async with websockets.connect(server.ws, max_size=None) as ws:
                for m in messages:
                    await ws.send(m)
                replies = {}
                async for m in ws:
                    r = json.loads(m)
                    if "control" in r:
                        replies[r["line"]] = r
                        if len(replies) == 10:
                            return replies

        try:
            replies = servelib.run(asyncio.wait_for(client(), 60))
        finally:
            server.proc.send_signal(signal.SIGTERM)
            server.wait()
        self.assertEqual(sorted(replies), list(range(1, 11)), "one answer per line, numbered as the client counts")
        outcome = {n: r["control"] for n, r in replies.items()}
        self.assertEqual(outcome, {1: "ok", 2: "ok", 3: "ok", 4: "error", 5: "ok", 6: "ok", 7: "error", 8: "error",
                                   9: "error", 10: "ok"})
        self.assertIn("a binary message", replies[4]["message"])
        self.assertRegex(replies[7]["message"], r'^ws#\d+:7: unknown command "volume"')
        self.assertIn("a control line may have 16 KiB", replies[8]["message"])
        # The items: each checked on its own, the valid ones kept.
        r = replies[9]
        self.assertEqual(r["kept"], 2)
        self.assertRegex(r["scope"], r"^ws#\d+/$")
        refused = {x["item"]: x for x in r["refused"]}
        self.assertEqual(sorted(refused), [3, 4, 5])
        self.assertEqual((refused[3]["name"], refused[3]["key"]), ("c", "pop"))
        self.assertIn("can peek but not pop", refused[3]["message"])
        self.assertEqual((refused[4]["name"], refused[4]["key"]), ("d", "x_mm"))
        self.assertEqual((refused[5]["name"], refused[5]["key"]), ("a", "colour"))
        self.assertIn("3 of 5 items refused", r["message"])


class ServeSecurityTests(unittest.TestCase):
    def test_off_loopback_control_needs_the_token(self):
        # Listening on every address; the clients still connect on loopback.
        server = Serve(["--board", "boards/sim-plate4.toml", "--speed", "4", "--duration", "6", "--wait-clients", "3",
                        "--listen", "0.0.0.0:0"])
        line = server.wait_for_line(r"control needs a new token")
        token = line.split("?token=")[1].split(" ")[0]
        # The URL to open names an address of the machine, not 0.0.0.0.
        self.assertNotIn("//0.0.0.0:", line.split(" (ws")[0])
        self.assertRegex(token, r"^[0-9a-f]{32}$")
        self.assertFalse(json.loads(server.get("/panel.json")[1])["access"]["control"])
        self.assertTrue(json.loads(server.get(f"/panel.json?token={token}")[1])["access"]["control"])

        async def clients():
            return await asyncio.gather(
                servelib.read_all(server.ws, send="sensitivity firm"),
                servelib.read_all(server.ws + "?token=" + "0" * 32, send="sensitivity light"),
                servelib.read_all(server.ws + "?token=" + token, send="force_touch off"))

        try:
            (none, _, _), (wrong, _, _), (right, _, _) = servelib.run(clients())
        finally:
            server.wait()
        for messages in (none, wrong):
            replies = [json.loads(m) for m in messages if "control" in json.loads(m)]
            self.assertEqual(len(replies), 1)
            self.assertEqual(replies[0]["control"], "refused")
            self.assertIn("read-only", replies[0]["message"])
        self.assertIn({"control": "ok", "line": 1}, [json.loads(m) for m in right])
        events = [e for m in none if "control" not in json.loads(m) for e in json.loads(m)["events"]]
        self.assertFalse([e for e in events if e["type"] == "sensitivity"], "refused lines change nothing")
        self.assertIn("off", [e.get("capability") for e in events if e["type"] == "capability"])

    def test_a_given_token_is_the_one_that_grants_control(self):
        server = Serve(["--board", "boards/sim-plate4.toml", "--frames", "50", "--wait-clients", "1",
                        "--listen", "0.0.0.0:0", "--token", "kiosk-secret-1"])
        try:
            messages, _, _ = servelib.run(servelib.read_all(server.ws + "?token=kiosk-secret-1", send="sensitivity firm"))
        finally:
            server.wait()
        self.assertIn({"control": "ok", "line": 1}, [json.loads(m) for m in messages])
        self.assertTrue(any("control needs the token" in line for line in server.stderr))

    def test_a_wrong_origin_or_host_is_refused(self):
        server = Serve(["--board", "boards/sim-plate4.toml", "--frames", "50", "--wait-clients", "1",
                        "--allow-origin", "http://localhost:3000"])
        try:
            for origin in ("http://evil.example", f"http://127.0.0.1:{server.port + 1}", "null"):
                with self.assertRaises(websockets.InvalidStatus) as refused:
                    servelib.run(servelib.read_all(server.ws, origin=origin))
                self.assertEqual(refused.exception.response.status_code, 400, origin)
                line = server.wait_for_line(r"refused a WebSocket")
                self.assertIn(f'Origin "{origin}" is neither this server nor an allowed origin', line)
            status, body, _ = server.get("/ws", headers={"Origin": "http://evil.example"})
            self.assertEqual(status, 403)
            self.assertIn(b"Origin \"http://evil.example\" is neither this server nor an allowed origin", body)
            # DNS rebinding: a loopback server answers only loopback names.
            status, body, _ = server.get("/", headers={"Host": f"evil.example:{server.port}"})
            self.assertEqual(status, 403)
            status, body, _ = server.get("/status.json", headers={"Host": f"evil.example:{server.port}"})
            self.assertEqual(status, 403)
            self.assertEqual(server.get("/", headers={"Host": f"localhost:{server.port}"})[0], 200)
            # The server's own pages and an allowed origin get in.
            messages, code, _ = servelib.run(servelib.read_all(server.ws, origin="http://localhost:3000"))
        finally:
            server.wait()
        self.assertEqual(code, 1000)
        servelib.check_reports(self, messages)
        self.assertIn("ws clients 1", "\n".join(server.stderr), "the refused clients never joined")

    def test_dns_rebinding_is_refused_off_loopback(self):
        # Listening on every address; a page of evil.example whose name now
        # points at the panel sends its own name as Host, and an Origin
        # that agrees with it.
        server = Serve(["--board", "boards/sim-plate4.toml", "--duration", "60",
                        "--listen", "0.0.0.0:0", "--hostname", "panel.example.test"])
        port = server.port
        try:
            for host in (f"evil.example:{port}", f"panel.example.test.evil.example:{port}", f"10.255.255.1:{port}"):
                status, body, _ = server.get("/status.json", headers={"Host": host})
                self.assertEqual(status, 403, host)
                self.assertIn(b"does not name this server", body)
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"panel.example.test:{port}",
                         f"{socket.gethostname()}:{port}"):
                self.assertEqual(server.get("/status.json", headers={"Host": host})[0], 200, host)
            # The WebSocket: Host and Origin of the rebound page, or the
            # right Host with the rebound page's Origin: refused.
            for host, origin in ((f"evil.example:{port}", f"http://evil.example:{port}"),
                                 (f"127.0.0.1:{port}", f"http://evil.example:{port}"),
                                 (f"panel.example.test:{port}", f"http://panel.example.test:{port + 1}")):
                status, sock = servelib.raw_upgrade(port, host=host, origin=origin)
                sock.close()
                self.assertEqual(status, 400, (host, origin))
            # The server's own names, as Host and as Origin: let in.
            status, sock = servelib.raw_upgrade(port, host=f"panel.example.test:{port}",
                                                origin=f"http://panel.example.test:{port}")
            sock.close()
            self.assertEqual(status, 101)
        finally:
            server.proc.send_signal(signal.SIGTERM)
            server.wait()
        refusals = [line for line in server.stderr if "refused a WebSocket" in line]
        self.assertEqual(len(refusals), 3, refusals)
        self.assertIn('Host "evil.example:', refusals[0])
        self.assertIn('Origin "http://evil.example:', refusals[1])

    def test_the_installed_binary_serves_its_pages_alone(self):
        directory = tempfile.mkdtemp()
        try:
            binary = os.path.join(directory, "panelctl")
            shutil.copy2(hostlib.PANELCTL, binary)
            board = os.path.join(hostlib.ROOT, "boards", "sim-plate4.toml")
            server = Serve(["--board", board, "--frames", "20", "--wait-clients", "1"], cwd=directory, binary=binary)
            try:
                web = os.path.join(hostlib.ROOT, "Sources", "PanelWeb", "Web")
                for path, file, kind in [
                    ("/", "dashboard.html", "text/html"), ("/dashboard.js", "dashboard.js", "text/javascript"),
                    ("/dashboard.css", "dashboard.css", "text/css"), ("/forcepanel.js", "forcepanel.js", "text/javascript"),
                    ("/demo", "demo.html", "text/html"), ("/demo.js", "demo.js", "text/javascript"),
                    ("/demo.css", "demo.css", "text/css"), ("/forcepanel.d.ts", "forcepanel.d.ts", "text/plain"),
                ]:
                    status, body, headers = server.get(path)
                    self.assertEqual(status, 200, path)
                    with open(os.path.join(web, file), "rb") as f:
                        self.assertEqual(body, f.read(), path)
                    self.assertTrue(headers["Content-Type"].startswith(kind), headers)
                self.assertEqual(server.get("/nothing-here")[0], 404)
                # The classic script is the module's code, made when the server starts.
                status, body, _ = server.get("/forcepanel.global.js")
                self.assertEqual(status, 200)
                self.assertNotIn(b"import.meta", body)
                self.assertIn(b"globalThis.forcepanel = Object.freeze({ ForceTouchEvent, ForcePanelEvent,", body)
                servelib.run(servelib.read_all(server.ws))
            finally:
                server.wait()
            self.assertEqual(os.listdir(directory), ["panelctl"], "nothing beside the binary")
        finally:
            shutil.rmtree(directory)


if __name__ == "__main__":
    unittest.main()
