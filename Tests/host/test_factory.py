"""The factory database with real processes and real servers: a throw-away
PostgreSQL cluster (scripts/postgres.sh, Debian's postgresql) and SQLite
files. Eight `panelctl calibrate` processes at once on each engine; thirty
`kill -9`s at random moments and a PostgreSQL restart (and outage) while
stations calibrate, after which the files and the rows agree once
`panelctl factory sync` has delivered the queue; `factory history`; a
seeded line of 10 000 calibrations over 8 stations whose drifting station
and noisier lot the report flags, and the report in Chromium (a screenshot
in FACTORY_ARTIFACTS, default .build/artifacts/).

FACTORY_TEST_POSTGRES names the server and FACTORY_TEST_PGDIR its
directory (scripts/test.sh sets both); without them a cluster of our own is
started and stopped here."""

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import hostlib

ROOT = hostlib.ROOT
PANELCTL = hostlib.PANELCTL
BOARD = os.path.join(ROOT, "boards", "sim-plate4.toml")
PLAN = os.path.join(ROOT, "calibration", "plans", "sim-plate4.toml")
ARTIFACTS = os.environ.get("FACTORY_ARTIFACTS", os.path.join(ROOT, ".build", "artifacts"))
POSTGRES_SH = os.path.join(ROOT, "scripts", "postgres.sh")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(args, timeout=300, check=True):
    p = subprocess.run([PANELCTL] + args, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    if check and p.returncode not in (0, 2):
        raise AssertionError(f"panelctl {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p


def export(db, *extra):
    p = run(["factory", "export", "--db", db, *extra])
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


class Postgres:
    """The server under test: the one scripts/test.sh started, or our own."""

    def __init__(self):
        self.url = os.environ.get("FACTORY_TEST_POSTGRES")
        self.dir = os.environ.get("FACTORY_TEST_PGDIR")
        self.own = not (self.url and self.dir)
        if self.own:
            self.dir = tempfile.mkdtemp(prefix="factory-pg-")
            self.url = self.ctl("start").strip()

    def ctl(self, command):
        return subprocess.run(["bash", POSTGRES_SH, command, self.dir], check=True, capture_output=True,
                              text=True, timeout=120).stdout

    def database(self, name):
        """A fresh database on the server; its URL."""
        base = self.url.rsplit("/", 1)[0]
        subprocess.run(["psql", self.url, "-qAtc", f"DROP DATABASE IF EXISTS {name}"], check=True,
                       capture_output=True, timeout=60)
        subprocess.run(["psql", self.url, "-qAtc", f"CREATE DATABASE {name}"], check=True, capture_output=True,
                       timeout=60)
        return f"{base}/{name}"

    def close(self):
        if self.own:
            self.ctl("stop")
            shutil.rmtree(self.dir, ignore_errors=True)


class Sessions:
    """Recorded calibration sessions of distinct panels: one recorded live
    on the simulated plate, copied with other serials (and, for some, a
    sensitivity spread limit no panel meets, so that they fail)."""

    def __init__(self, root, count, failing=()):
        self.root = root
        base = os.path.join(root, "base")
        p = run(["calibrate", "--board", BOARD, "--plan", PLAN, "--speed", "0", "--session", base,
                 "--out", os.path.join(root, "base-cal", "base.toml"), "--db", "none"], timeout=600)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(base, "plan.toml")) as f:
            plan = f.read()
        self.paths = []
        for i in range(count):
            d = os.path.join(root, f"s{i:03d}")
            shutil.copytree(base, d)
            text = re.sub(r'(?m)^serial = ".*"$', f'serial = "P-{i:06d}"', plan)
            if i in failing:
                text = re.sub(r"(?m)^sensitivity_spread_pct = .*$", "sensitivity_spread_pct = 0.001", text)
            with open(os.path.join(d, "plan.toml"), "w") as f:
                f.write(text)
            self.paths.append(d)


def calibrate_args(session, out, db, station="S1"):
    return ["calibrate", "--board", BOARD, "--session", session, "--out", out, "--db", db, "--station", station,
            "--fixture", "F-" + station, "--lot", "L01"]


def agreement(test, db, outs):
    """Files and rows agree: each record (or failed certificate) on disk
    has exactly one row with its hash, and each row's files are on disk
    with the row's hashes. Returns the rows."""
    rows = export(db)
    by_record = {}
    for r in rows:
        if r["result"] == "pass":
            by_record.setdefault(r["recordPath"], []).append(r)
            test.assertEqual(sha256(r["recordPath"]), r["recordSHA256"], r["recordPath"])
        else:
            path = r["certificatePath"][:-len(".html")] + ".json"
            with open(path) as f:
                test.assertEqual(f.read(), r["certificateJSON"], path)
        test.assertTrue(os.path.exists(r["certificatePath"]), r["certificatePath"])
    for out in outs:
        if os.path.exists(out):
            test.assertEqual(len(by_record.get(out, [])), 1, f"{out} is on disk: one row says so")
        else:
            test.assertNotIn(out, by_record, f"{out} was never committed: no row may say it was")
    return rows


class FactoryDatabaseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="factory-test-")
        cls.pg = Postgres()
        cls.failing = {5, 13, 21, 29, 37, 45}
        cls.sessions = Sessions(cls.work, 48, failing=cls.failing)

    @classmethod
    def tearDownClass(cls):
        cls.pg.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def concurrent(self, db, folder, indices):
        """Calibrates the sessions `indices` at once, one process each
        (station S1..S8); returns the records' paths and the processes' output."""
        outs, procs = [], []
        for n, i in enumerate(indices):
            out = os.path.join(folder, f"P-{i:06d}.toml")
            outs.append(out)
            procs.append(subprocess.Popen([PANELCTL] + calibrate_args(self.sessions.paths[i], out, db, f"S{n % 8 + 1}"),
                                          cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          stdin=subprocess.DEVNULL))
        results = [(p.wait(timeout=600), p.stdout.read(), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        return outs, results

    def check_eight(self, db, folder):
        outs, results = self.concurrent(db, folder, range(8))
        for i, (code, _, err) in enumerate(results):
            if i in self.failing:
                self.assertEqual(code, 2, err)
                self.assertIn("calibration failed", err)
            else:
                self.assertEqual(code, 0, err)
            self.assertNotIn("queued", err, "the database was there: nothing waits")
        rows = agreement(self, db, outs)
        self.assertEqual(sorted(r["serial"] for r in rows if r["result"] != "pass"),
                         [f"P-{i:06d}" for i in range(8) if i in self.failing])
        self.assertEqual(sorted(r["serial"] for r in rows), [f"P-{i:06d}" for i in range(8)])
        self.assertEqual(sorted(r["station"] for r in rows), [f"S{i}" for i in range(1, 9)])
        self.assertFalse([n for n in os.listdir(os.path.join(folder, "factory.queue")) if not n.startswith(".")],
                         "the queue is empty")

    def test_eight_stations_at_once_on_sqlite(self):
        folder = os.path.join(self.work, "sqlite8")
        os.makedirs(folder)
        self.check_eight(os.path.join(folder, "factory.sqlite"), folder)

    def test_eight_stations_at_once_on_postgres(self):
        folder = os.path.join(self.work, "pg8")
        os.makedirs(folder)
        self.check_eight(self.pg.database("eight"), folder)

    def test_kill_9_at_random_moments(self):
        """30 calibrate processes killed at random moments around their
        commit; then factory sync: what is on disk is in the database, and
        nothing else."""
        db = self.pg.database("killed")
        folder = os.path.join(self.work, "killed")
        os.makedirs(folder)
        # How long one run takes here, to aim the kills at its whole span.
        t0 = time.monotonic()
        p = run(calibrate_args(self.sessions.paths[47], os.path.join(folder, "timing.toml"), db))
        self.assertEqual(p.returncode, 0, p.stderr)
        span = time.monotonic() - t0
        rng = random.Random(25)
        outs = [os.path.join(folder, "timing.toml")]
        killed = 0
        for i in range(30):
            out = os.path.join(folder, f"P-{i:06d}.toml")
            outs.append(out)
            proc = subprocess.Popen([PANELCTL] + calibrate_args(self.sessions.paths[i], out, db),
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    stdin=subprocess.DEVNULL)
            try:
                proc.wait(timeout=rng.uniform(0.3, 1.1) * span)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                killed += 1
            proc.wait()
        self.assertGreater(killed, 5, "most runs were killed")
        p = run(["factory", "sync", "--db", db, "--queue", os.path.join(folder, "factory.queue")])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = agreement(self, db, outs)
        self.assertGreaterEqual(len(rows), 1)
        queue = os.path.join(folder, "factory.queue")
        self.assertEqual([n for n in os.listdir(queue) if not n.startswith(".")], [], "sync emptied the queue")

    def test_postgres_outage_and_restart(self):
        """With the server down, calibrate passes good panels and queues
        their rows; a restart while eight stations write loses nothing; sync
        delivers the queue once."""
        db = self.pg.database("outage")
        folder = os.path.join(self.work, "outage")
        os.makedirs(folder)
        self.pg.ctl("stop")
        try:
            outs, results = self.concurrent(db, folder, range(8, 12))
        finally:
            self.pg.ctl("start")
        for code, _, err in results:
            self.assertEqual(code, 0, "a good panel passes with the database away: " + err)
            self.assertIn("the row is queued", err)
            self.assertIn("factory sync", err)
        # Eight more, the server restarted while they run.
        procs = []
        for n, i in enumerate(range(12, 20)):
            out = os.path.join(folder, f"P-{i:06d}.toml")
            outs.append(out)
            procs.append(subprocess.Popen([PANELCTL] + calibrate_args(self.sessions.paths[i], out, db, f"S{n + 1}"),
                                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                          stdin=subprocess.DEVNULL))
            if n == 3:
                self.pg.ctl("restart")
        for p in procs:
            self.assertIn(p.wait(timeout=600), (0, 2), p.stderr.read())
            p.stderr.close()
        p = run(["factory", "sync", "--db", db, "--queue", os.path.join(folder, "factory.queue")])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = agreement(self, db, outs)
        self.assertEqual(len(rows), 12)
        again = run(["factory", "sync", "--db", db, "--queue", os.path.join(folder, "factory.queue")])
        self.assertIn("0 delivered", again.stderr)

    def test_history_lists_every_calibration_of_a_panel(self):
        db = os.path.join(self.work, "history.sqlite")
        folder = os.path.join(self.work, "history")
        os.makedirs(folder)
        out = os.path.join(folder, "P-000002.toml")
        for station in ("S1", "S2", "S3"):
            self.assertEqual(run(calibrate_args(self.sessions.paths[2], out, db, station)).returncode, 0)
        failed = os.path.join(folder, "P-000005.toml")
        self.assertEqual(run(calibrate_args(self.sessions.paths[5], failed, db)).returncode, 2)
        p = run(["factory", "history", "P-000002", "--db", db])
        lines = p.stdout.splitlines()
        self.assertTrue(lines[0].startswith("P-000002: 3 calibrations"), p.stdout)
        self.assertEqual([l.split("\t")[1] for l in lines[2:]], ["S3", "S2", "S1"], "newest first")
        self.assertTrue(all(l.split("\t")[4] == "pass" for l in lines[2:]))
        p = run(["factory", "history", "P-000005", "--db", db])
        self.assertIn("\tfail\tsensitivity\t", p.stdout)


class SeededLineTest(unittest.TestCase):
    def test_report_flags_the_drifting_station_and_the_noisy_lot(self):
        work = tempfile.mkdtemp(prefix="factory-line-")
        try:
            db = os.path.join(work, "line.sqlite")
            p = run(["factory", "simulate-line", "--db", db, "--calibrations", "10000", "--stations", "8",
                     "--work", os.path.join(work, "base")], timeout=1800)
            self.assertEqual(p.returncode, 0, p.stderr)
            html, report = os.path.join(work, "report.html"), os.path.join(work, "report.json")
            p = run(["factory", "report", "--db", db, "--html", html, "--json", report,
                     "--csv", os.path.join(work, "report.csv")])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(report) as f:
                r = json.load(f)
            self.assertEqual(r["calibrations"], 10000)
            self.assertEqual(sorted(y["key"] for y in r["yieldByStation"]), [f"S{i}" for i in range(1, 9)])
            signals = r["signals"]
            # The drifting fixture: station S3's sensitivity signals outnumber
            # any other station's by far, and its points beyond 3 sigma are
            # all in the second half, where its masses drift.
            drift = [s for s in signals if s["kind"] == "station" and s["metric"] == "sensitivity"]
            counts = {f"S{i}": sum(1 for s in drift if s["subject"] == f"S{i}") for i in range(1, 9)}
            others = max(v for k, v in counts.items() if k != "S3")
            self.assertGreater(counts["S3"], 2 * others, counts)
            beyond = [s for s in drift if s["subject"] == "S3" and s["rule"] == "WE1"]
            self.assertTrue(beyond and all(s["from"] >= "2026-01-15" for s in beyond), beyond)
            # The noisier lot: the lot chart flags L08 and no other lot, and
            # the stations' noise signals are mostly L08's panels, at most stations.
            lots = [s for s in signals if s["kind"] == "lot" and s["metric"] == "noise"]
            self.assertEqual({s["subject"] for s in lots}, {"L08"}, "the noisier lot is flagged, and only it")
            noisy = [s for s in signals if s["kind"] == "station" and s["metric"] == "noise"]
            of_lot = [s for s in noisy if s["lots"] and s["lots"][0] == "L08"]
            self.assertGreater(len(of_lot), len(noisy) / 2, noisy)
            self.assertGreaterEqual(len({s["subject"] for s in of_lot}), 6, of_lot)
            self.assertTrue(r["pareto"] and r["pareto"][0]["count"] >= r["pareto"][-1]["count"])
            # A retested panel's history: the failure, then the pass.
            retested = next(y for y in export(db, "--station", "S1") if y["result"] == "fail" and y["failure"] == "step load")
            p = run(["factory", "history", retested["serial"], "--db", db])
            results = [l.split("\t")[4] for l in p.stdout.splitlines()[2:]]
            self.assertEqual(results, ["pass", "fail"], p.stdout)
            self.browser(html)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def browser(self, html):
        """The page in Chromium: its charts are drawn, the signals are there."""
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        options = Options()
        options.binary_location = shutil.which("chromium")
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1800"):
            options.add_argument(a)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        try:
            driver.get("file://" + html)
            charts = driver.execute_script(
                "return [...document.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 300"
                " && s.querySelectorAll('polyline').length > 0).length")
            self.assertGreater(charts, 40, "the control charts are drawn")
            flagged = driver.execute_script("return document.querySelectorAll('.signalled').length")
            self.assertGreater(flagged, 0)
            heading = driver.find_element("css selector", "#signals").text
            self.assertTrue(heading.startswith("Signals ("), heading)
            os.makedirs(ARTIFACTS, exist_ok=True)
            driver.save_screenshot(os.path.join(ARTIFACTS, "factory-report.png"))
        finally:
            driver.quit()


if __name__ == "__main__":
    unittest.main()
