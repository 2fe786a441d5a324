"""Integrators' own pages in a real browser (Debian's Chromium, headless,
through Selenium): the example page (examples/kiosk) served from a second
origin (python's http.server on another port) imports forcepanel.js from
`panelctl serve`, declares its items in markup and gets peek, pop and quick
actions, while a second page with its own items (served by `--static`)
works beside it; the same page through `--static` keeps working across a
restart of the server (its events resume within 6 s); a page written for
Pointer Events only sees `pressure` rise from 0 to 1 as the force rises to
maximumPossibleForce. Also in the browser: `send()`'s answers after
messages of several lines and empty ones, a refused item named in the
page's terms, and touches resynced from a report after lost ones. A
screenshot of the example page goes to .build/artifacts/serve-kiosk.png
(docs/images/serve-kiosk.png is one)."""

import asyncio
import functools
import http.server
import json
import os
import signal
import socket
import threading
import time
import unittest

import websockets

import hostlib
from servelib import Serve
from test_serve_browser import ARTIFACTS, browser, wait

KIOSK = os.path.join(hostlib.ROOT, "examples", "kiosk")
PAGES = os.path.join(hostlib.ROOT, "Tests", "host", "pages")

# Every event a page gets, recorded as it arrives (capture phase).
RECORD = """
window.__log = [];
window.__errors = [];
for (const type of ["forcetouchstart", "forcetouchend", "forcetouchcancel", "peek", "pop", "quickactions"]) {
  document.addEventListener(type, (e) => {
    const owner = e.target.closest ? e.target.closest("[id]") : null;
    window.__log.push({type, target: owner ? owner.id : null, item: e.item ?? null, touchId: e.touchId,
      force: e.force ?? null, frame: e.frame, at: performance.now(),
      titles: e.actions ? e.actions.map((a) => a.title) : null});
  }, true);
}
window.forcePanel.addEventListener("error", (e) => window.__errors.push({message: e.message, attribute: e.attribute ?? null,
  element: e.element ? e.element.id : null}));
"""


class Site:
    """A page's own web server: python's http.server on a free port of
    127.0.0.1, serving `folder` (another origin than panelctl's)."""

    def __init__(self, folder):
        handler = functools.partial(QuietHandler, directory=folder)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def read_until_closed(url, stop):
    """Every report until `stop` is set (then closes)."""
    messages = []
    async with websockets.connect(url, max_size=None) as ws:
        while not stop.is_set():
            try:
                messages.append(await asyncio.wait_for(ws.recv(), 0.2))
            except asyncio.TimeoutError:
                pass
            except websockets.ConnectionClosed:
                break
    return [json.loads(m) for m in messages]


def log(driver):
    return driver.execute_script("return window.__log")


def key(entries, types=("forcetouchstart", "peek", "pop", "quickactions")):
    return [(e["type"], e["target"]) for e in entries if e["type"] in types]


class IntegratorPageTests(unittest.TestCase):
    def test_a_page_from_another_origin_beside_a_second_page(self):
        os.makedirs(ARTIFACTS, exist_ok=True)
        site = Site(KIOSK)
        server = Serve(["--board", "boards/sim-plate4.toml", "--scenario", "scenarios/web-kiosk.toml",
                        "--allow-origin", site.origin, "--static", KIOSK, "--wait-clients", "3"])
        driver = None
        try:
            driver = browser(1280, 800)
            # The kiosk page from the second origin, forcepanel.js imported from serve.
            driver.get(f"{site.origin}/index.html?panel={server.base}")
            # Its items are sent (applied once the run starts, with the third client).
            wait(driver, "window.forcePanel !== undefined && window.forcePanel.lastRegions !== null")
            driver.execute_script(RECORD)
            kiosk = driver.current_window_handle
            # The staff page, with its own item, from serve's --static folder.
            driver.switch_to.new_window("window")
            driver.set_window_size(1280, 800)
            driver.get(f"{server.base}/app/staff.html")
            wait(driver, "window.forcePanel !== undefined && window.forcePanel.lastRegions !== null")
            driver.execute_script(RECORD)
            staff = driver.current_window_handle
            # The third client starts the run.
            stop = threading.Event()
            reader = threading.Thread(target=lambda: setattr(self, "reports", asyncio.run(read_until_closed(server.ws, stop))))
            reader.start()
            driver.switch_to.window(kiosk)
            wait(driver, 'window.__log.some((e) => e.type === "quickactions")', timeout=60)
            driver.save_screenshot(os.path.join(ARTIFACTS, "serve-kiosk.png"))
            wait(driver, 'window.__log.some((e) => e.type === "forcetouchend" && e.target === "tea")', timeout=60)
            kiosk_log = log(driver)
            driver.switch_to.window(staff)
            wait(driver, 'window.__log.some((e) => e.type === "pop")', timeout=60)
            staff_log = log(driver)
            stop.set()
            reader.join(60)
            driver.switch_to.window(kiosk)
            self.answers_match_their_lines(driver)
            self.a_refused_item_is_named_in_the_pages_terms(driver)
            self.touches_resync_from_a_report(driver)
        finally:
            if driver:
                driver.quit()
            server.proc.send_signal(signal.SIGTERM)
            code, _ = server.wait()
            site.close()
        self.assertEqual(code, 0, "\n".join(server.stderr))
        # Each page hears of the touches on its own items only.
        self.assertEqual(key(kiosk_log), [("forcetouchstart", "cappuccino"), ("peek", "cappuccino"), ("pop", "cappuccino"),
                                          ("forcetouchstart", "tea"), ("quickactions", "tea")], kiosk_log)
        menu = next(e for e in kiosk_log if e["type"] == "quickactions")
        self.assertEqual(menu["titles"], ["Green tea", "Earl Grey", "Mint"])
        self.assertEqual(menu["item"], "tea", "the item as the page named it")
        self.assertEqual(key(staff_log), [("forcetouchstart", "till"), ("peek", "till"), ("pop", "till")], staff_log)
        # In the stream, each page's items are in its own scope.
        events = [e for r in self.reports for e in r["events"]]
        peeks = [e["item"] for e in events if e["type"] == "peek"]
        self.assertEqual(len(peeks), 2, peeks)
        self.assertRegex(peeks[0], r"^ws#\d+/cappuccino$")
        self.assertRegex(peeks[1], r"^ws#\d+/till$")
        self.assertNotEqual(peeks[0].split("/")[0], peeks[1].split("/")[0])
        regions = [e["items"] for e in events if e["type"] == "regions"]
        self.assertEqual(regions[-1], 7, "6 tiles and the till, both pages' items at once")
        self.assertTrue(os.path.getsize(os.path.join(ARTIFACTS, "serve-kiosk.png")) > 10000)

    def answers_match_their_lines(self, driver):
        """send() resolves to the answers of its own lines, whatever came
        before: several lines, an empty message, CRLF."""
        answers = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const p = window.forcePanel;
            (async () => {
              const two = await p.send("sensitivity light\\r\\nsensitivity medium");
              const empty = await p.send("");
              const bad = await p.send("volume 11");
              const good = await p.send("force_touch on\\n");
              done({two, empty, bad, good, sent: p.linesSent});
            })();""")
        self.assertEqual(answers["two"]["control"], "ok")
        self.assertEqual([r["control"] for r in answers["two"]["replies"]], ["ok", "ok"])
        first = answers["two"]["line"]
        self.assertEqual(answers["empty"]["control"], "ok")
        self.assertEqual(answers["empty"]["line"], first + 2)
        self.assertEqual(answers["bad"]["control"], "error")
        self.assertIn('unknown command "volume"', answers["bad"]["message"])
        self.assertEqual(answers["bad"]["line"], first + 3)
        self.assertEqual((answers["good"]["control"], answers["good"]["line"]), ("ok", first + 4))

    def a_refused_item_is_named_in_the_pages_terms(self, driver):
        before = driver.execute_script("return window.__errors.length")
        driver.execute_script("""
            const bad = document.createElement("div");
            bad.id = "latte"; bad.className = "tile"; bad.dataset.peek = "";
            bad.style = "left: 4vw; top: 90vh; height: 6vh";
            document.querySelector("main").append(bad);""")
        wait(driver, f"window.__errors.length > {before}")
        error = driver.execute_script(f"return window.__errors[{before}]")
        self.assertEqual(error["element"], "latte")
        self.assertEqual(error["attribute"], "data-pop")
        self.assertEqual(error["message"], 'forcepanel: <div id="latte">: data-pop: "latte" can peek but not pop; '
                                           'every peek must be able to pop (add data-pop)')
        reply = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            window.forcePanel.addEventListener("regionsreply", (e) => done(e.reply), {once: true});
            document.querySelector("#latte").dataset.pop = "";""")
        self.assertEqual((reply["control"], reply["kept"]), ("ok", 7), "with data-pop it is kept beside the others")

    def touches_resync_from_a_report(self, driver):
        """A page that lost the report ending a touch (a slow page loses
        messages) ends it, cancelled, at the next report it gets, which
        lists every touch still down."""
        entries = driver.execute_script("""
            const p = window.forcePanel;
            const touch = (id, phase) => ({id, phase, x_mm: 80, y_mm: 34, force_n: 1, force: 1.25, max_force: 6.67,
              stage: "none", progress: 0, item: null});
            window.__log = [];
            p.receive({t_us: 1, frame: 900001, touches: [touch(901, "began"), touch(902, "began")], events: [],
                       force_capability: "available"});
            // The reports that moved and ended 901 were lost; 902 is still down.
            p.receive({t_us: 5, frame: 900005, touches: [touch(902, "moved")], events: [], force_capability: "available"});
            const after = window.__log.map((e) => [e.type, e.touchId]);
            p.receive({t_us: 6, frame: 900006, touches: [], events: [], force_capability: "available"});
            return {after, end: window.__log.map((e) => [e.type, e.touchId])};""")
        self.assertEqual(entries["after"], [["forcetouchstart", 901], ["forcetouchstart", 902], ["forcetouchcancel", 901]])
        self.assertEqual(entries["end"][-1], ["forcetouchcancel", 902])

    def test_the_page_through_static_resumes_after_a_restart(self):
        port = free_port()
        args = ["--board", "boards/sim-plate4.toml", "--scenario", "scenarios/web-kiosk.toml", "--static", KIOSK,
                "--listen", f"127.0.0.1:{port}", "--wait-clients", "1"]
        server = Serve(args)
        second = None
        driver = None
        try:
            driver = browser(1280, 800)
            driver.get(f"{server.base}/app/")
            wait(driver, "window.forcePanel !== undefined && window.forcePanel.scope !== null")
            driver.execute_script(RECORD)
            wait(driver, 'window.__log.some((e) => e.type === "pop")', timeout=60)
            self.assertEqual(key(log(driver))[:3], [("forcetouchstart", "cappuccino"), ("peek", "cappuccino"),
                                                   ("pop", "cappuccino")])
            # A restart (systemctl restart): SIGTERM closes with 1000, a new
            # server comes up on the same port.
            driver.execute_script("window.__log = []")
            stopped = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            code, _ = server.wait()
            self.assertEqual(code, 0)
            second = Serve(args)
            listening = time.monotonic()
            wait(driver, 'window.__log.some((e) => e.type === "forcetouchstart")', timeout=30)
            resumed = time.monotonic()
            wait(driver, 'window.__log.some((e) => e.type === "pop")', timeout=30)
            after = log(driver)
        finally:
            if driver:
                driver.quit()
            for s in (server, second):
                if s and s.proc.poll() is None:
                    s.proc.send_signal(signal.SIGTERM)
                    s.wait()
        # The scenario's first touch comes 1 s after the page is back.
        self.assertLess(resumed - stopped, 6.0, f"events resumed {resumed - stopped:.2f} s after the stop "
                                               f"({listening - stopped:.2f} s until the new server listened)")
        self.assertEqual(key(after)[:3], [("forcetouchstart", "cappuccino"), ("peek", "cappuccino"), ("pop", "cappuccino")])
        print(f"\nrestart: events resumed {resumed - stopped:.2f} s after SIGTERM "
              f"(new server listening after {listening - stopped:.2f} s)")

    def test_a_pointer_events_page_sees_pressure_rise_to_one(self):
        server = Serve(["--board", "boards/sim-plate4.toml", "--scenario", "scenarios/web-pressure.toml",
                        "--static", PAGES, "--duration", "5.5", "--wait-clients", "2"])
        driver = None
        try:
            driver = browser(1280, 800)
            driver.get(f"{server.base}/app/pressure.html")
            wait(driver, "window.forcePanel !== undefined && window.forcePanel.socket !== null")
            reports = asyncio.run(self.read_all(server.ws))
            wait(driver, 'window.__pointer.some((e) => e.type === "pointerup")', timeout=30)
            events = driver.execute_script("return window.__pointer")
        finally:
            if driver:
                driver.quit()
            server.wait()
        types = [e["type"] for e in events]
        self.assertEqual(types[0], "pointerdown")
        self.assertEqual(types[-1], "pointerup")
        self.assertEqual(set(types[1:-1]), {"pointermove"})
        self.assertEqual({(e["kind"], e["primary"]) for e in events}, {("touch", True)})
        self.assertEqual(len({e["id"] for e in events}), 1, "one pointer id for the press")
        down = events[0]["pressure"]
        self.assertLess(down, 0.1, "the press starts light")
        moves = [e for e in events if e["type"] == "pointermove"]
        pressures = [p for e in moves for p in e["coalesced"]]
        self.assertAlmostEqual(max(pressures), 1.0, places=3, msg="pressure reaches 1 at maximumPossibleForce")
        rising = [p for p in pressures[: pressures.index(max(pressures))]]
        self.assertTrue(all(b >= a - 0.02 for a, b in zip(rising, rising[1:])), "pressure rises with the force")
        self.assertEqual(events[-1]["pressure"], 0, "pointerup has pressure 0")
        for e in moves:
            self.assertEqual(e["pressure"], e["coalesced"][-1], "the event is its last coalesced sample")
        # Moves coalesced to animation frames: fewer events than reports,
        # every sample still there.
        touched = [r for r in reports if r["touches"]]
        self.assertLess(len(moves), len(touched) // 2)
        self.assertGreaterEqual(len(pressures), len(touched) - 3)

    @staticmethod
    async def read_all(url):
        async with websockets.connect(url, max_size=None) as ws:
            return [json.loads(m) async for m in ws]


if __name__ == "__main__":
    unittest.main()
