"""The dashboard and forcepanel.js in a real browser: Debian's Chromium,
headless, driven by Selenium through chromedriver. `panelctl serve` plays
scenarios/web-demo.toml on the simulated plate: a firm press on a message
row of the demo page, then a press on the Mail icon. The page gets
`forcetouchstart`, `peek`, `pop` on the row and `quickactions` with the
declared titles on the icon, in that order, each with the force of its
report; the page's items reach the panel as regions (a guideline broken in
markup is refused and reported to the page, and a new item is sent again);
the dashboard's heatmap draws the force. A screenshot of each page is
written to .build/artifacts/ (SERVE_ARTIFACTS)."""

import asyncio
import json
import os
import shutil
import signal
import unittest

import websockets
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

import hostlib
from servelib import Serve

ARTIFACTS = os.environ.get("SERVE_ARTIFACTS", os.path.join(hostlib.ROOT, ".build", "artifacts"))
CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
BACKGROUND = (11, 12, 16)  # the dashboard's canvas background, #0b0c10

# The demo page's events, recorded as they arrive (capture phase, so every
# event is seen whatever the page does with it).
RECORD = """
window.__log = [];
window.__errors = [];
for (const type of ["forcetouchstart", "forcetouchend", "forcetouchcancel", "peek", "pop", "peekcancel",
                    "quickactions", "longpress"]) {
  document.addEventListener(type, (e) => {
    const owner = e.target.closest ? e.target.closest("[id]") : null;
    window.__log.push({type, target: owner ? owner.id : null, touchId: e.touchId, force: e.force ?? null,
      stage: e.stage ?? null, frame: e.frame, titles: e.actions ? e.actions.map((a) => a.title) : null});
  }, true);
}
window.forcePanel.addEventListener("error", (e) => window.__errors.push(e.message));
"""

HEATMAP = """
const c = document.querySelector("#heatmap");
const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
let background = 0;
for (let i = 0; i < d.length; i += 4) if (d[i] === %d && d[i + 1] === %d && d[i + 2] === %d) background++;
// The centre of the disc of the top-left cell (plates draw each corner as a disc).
const r = Math.round(Math.min(c.width, c.height) * 0.16);
const p = c.getContext("2d").getImageData(r, r, 1, 1).data;
return {pixels: d.length / 4, background, corner: [p[0], p[1], p[2]]};
""" % BACKGROUND


def browser(width, height):
    if not CHROMIUM or not CHROMEDRIVER:
        raise AssertionError("chromium and chromedriver are needed (scripts/test.sh installs them: apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                     "--force-device-scale-factor=1", f"--window-size={width},{height}"]:
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))


def wait(driver, script, timeout=60):
    """Waits until `script` (a JS expression) is true in the page."""
    WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script("return " + script))


class ServeBrowserTests(unittest.TestCase):
    def test_the_demo_page_and_the_dashboard_in_chromium(self):
        os.makedirs(ARTIFACTS, exist_ok=True)
        server = Serve(["--board", "boards/sim-plate4.toml", "--scenario", "scenarios/web-demo.toml", "--duration", "6.5",
                        "--wait-clients", "3"])
        dashboard = demo = None
        try:
            dashboard = browser(1280, 1150)
            dashboard.get(server.base + "/")
            wait(dashboard, 'document.querySelector("#connection").textContent === "live"')
            demo = browser(1280, 800)
            demo.get(server.base + "/demo")
            wait(demo, "window.forcePanel !== undefined && window.forcePanel.lastRegions !== null")
            demo.execute_script(RECORD)
            messages, dashboard_view = asyncio.run(self.record(server, dashboard, demo))
            wait(demo, 'document.querySelector("#connection").textContent === "stream ended"')
            demo.save_screenshot(os.path.join(ARTIFACTS, "serve-demo.png"))
            log = demo.execute_script("return window.__log")
        except BaseException:
            server.proc.send_signal(signal.SIGTERM)
            raise
        finally:
            for driver in (dashboard, demo):
                if driver:
                    driver.quit()
            status, _ = server.wait()
        self.assertEqual(status, 0, "\n".join(server.stderr))
        reports = [json.loads(m) for m in messages]
        self.check_events(log, reports)
        self.check_dashboard(dashboard_view)
        # Named in the page's terms: the element and the attribute to fix.
        self.assertEqual(
            dashboard_view["error"],
            'forcepanel: <div id="bad">: data-pop: "bad" can peek but not pop; every peek must be able to pop (add data-pop)')
        # The page's items are the panel's regions: 12 from its markup, 13
        # once a row was added while running. (The items the page sends
        # again after the refused one may be applied once this client
        # listens: a regions line takes a frame's share of control lines.)
        regions = [e["items"] for r in reports for e in r["events"] if e["type"] == "regions"]
        collapsed = [n for i, n in enumerate(regions) if i == 0 or regions[i - 1] != n]
        self.assertEqual(collapsed, [12, 13], regions)
        self.assertTrue(os.path.getsize(os.path.join(ARTIFACTS, "serve-dashboard.png")) > 10000)
        self.assertTrue(os.path.getsize(os.path.join(ARTIFACTS, "serve-demo.png")) > 10000)

    @staticmethod
    def guidelines_are_checked(demo):
        """An item that can peek but not pop is refused by the firmware's
        guideline check, and the page hears why in its own terms; the
        other items are kept; without it, the page's items go again."""
        demo.execute_script("""
            const bad = document.createElement("div");
            bad.id = "bad"; bad.dataset.peek = "";
            bad.style = "position:absolute; left:1vw; top:94vh; width:5vw; height:3vh";
            document.body.append(bad);""")
        wait(demo, "window.__errors.length > 0")
        error = demo.execute_script("return window.__errors[0]")
        demo.execute_script('document.querySelector("#bad").remove()')
        wait(demo, '!window.forcePanel.lastRegions.includes("bad")')
        return error

    async def record(self, server, dashboard, demo):
        """Reads the stream beside the pages (the run starts with this third
        client); at the pop, photographs the dashboard, reads its heatmap and
        adds a row to the demo page."""
        messages = []
        view = None
        async with websockets.connect(server.ws, max_size=None) as ws:
            try:
                async for m in ws:
                    messages.append(m)
                    if view is None and any(e["type"] == "pop" for e in json.loads(m)["events"]):
                        view = await asyncio.to_thread(self.at_the_pop, dashboard, demo)
            except websockets.ConnectionClosed:
                pass
            self.assertEqual((ws.close_code, ws.close_reason), (1000, "stream ended"))
        return messages, view

    @staticmethod
    def at_the_pop(dashboard, demo):
        wait(dashboard, 'document.querySelector("#events").textContent.includes("pop")')
        heatmap = dashboard.execute_script(HEATMAP)
        dashboard.save_screenshot(os.path.join(ARTIFACTS, "serve-dashboard.png"))
        # Items are answered as the panel takes them, while it runs.
        heatmap["error"] = ServeBrowserTests.guidelines_are_checked(demo)
        demo.execute_script("""
            const row = document.createElement("div");
            row.className = "row"; row.id = "msg-6"; row.dataset.peek = ""; row.dataset.pop = "";
            row.style = "top: 94vh; height: 5vh"; row.innerHTML = "<b>New</b><span>Just in</span><p>A new message.</p>";
            document.querySelector("#messages").append(row);""")
        return heatmap

    def check_events(self, log, reports):
        by_frame = {r["frame"]: r for r in reports}
        key = [(e["type"], e["target"]) for e in log if e["type"] in ("forcetouchstart", "peek", "pop", "quickactions")]
        self.assertEqual(
            key,
            [("forcetouchstart", "msg-2"), ("peek", "msg-2"), ("pop", "msg-2"), ("forcetouchstart", "mail"),
             ("quickactions", "mail")],
            log)
        menu = next(e for e in log if e["type"] == "quickactions")
        self.assertEqual(menu["titles"], ["New Message", "Inbox", "VIP"])
        ends = [(e["type"], e["target"]) for e in log if e["type"] in ("forcetouchend", "forcetouchcancel")]
        self.assertEqual(ends, [("forcetouchend", "msg-2"), ("forcetouchend", "mail")])
        for e in log:
            if e["force"] is None:
                continue
            touch = next(t for t in by_frame[e["frame"]]["touches"] if t["id"] == e["touchId"])
            self.assertEqual(e["force"], touch["force"], f"{e['type']} carries the force of its report")
            self.assertEqual(e["stage"], touch["stage"])
        pop = next(e for e in log if e["type"] == "pop")
        self.assertEqual(pop["stage"], "pop")
        events = [e for r in reports for e in r["events"]]
        peek = next(e for e in events if e["type"] == "peek")
        self.assertRegex(peek["item"], r"^ws#\d+/msg-2$", "the item is in the demo page's scope")
        self.assertIn({"type": "pop", "touch": 1, "item": peek["item"]}, events)

    def check_dashboard(self, view):
        self.assertIsNotNone(view, "the stream had a pop")
        drawn = view["pixels"] - view["background"]
        self.assertGreater(drawn, view["pixels"] // 10, "the heatmap drew its cells")
        red, green, blue = view["corner"]
        self.assertGreater(red, 150, f"the pressed corner's cell is at the hot end of the scale: {view['corner']}")


if __name__ == "__main__":
    unittest.main()
