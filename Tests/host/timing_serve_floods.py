"""`panelctl serve` against the floods of issue #27, with real sockets and
the release binary (scripts/timing-tests.sh runs these alone):

- 1 100 connections that send half a request head or nothing (slowloris),
  with the server's descriptors limited to 1 024: it stays up, answers
  /status.json during the flood, and a new WebSocket client gets reports
  within 2 s of the flood's end;
- four clients flooding control lines and one hammering /status.json: a
  reader's reports keep coming, no gap of 100 ms (as the server wrote
  them: the kernel's receive stamps in the reader's socket);
- 64 WebSocket clients that never read: closed within the documented 20 s,
  so a new client is served within that time;
- 20 000 WebSocket connections opened and closed: the server's memory
  comes back, within 6 MiB of resident size (the campaign's 0.8 KB a
  connection would be 16 MB; the figures go to .build/serve-connections.json).

The bounds are documented ones (docs/serve.md, "Connections"; docs/
reliability.md); they must hold with the machine's other core busy
(TIMING_HOG=1 bash scripts/timing-tests.sh)."""

import asyncio
import json
import multiprocessing
import os
import queue
import re
import resource
import selectors
import signal
import socket
import time
import unittest
import urllib.request

import websockets
import websockets.sync.client

import hostlib
import servelib
from servelib import Serve, StampedReader

BOARD = ["--board", "boards/sim-plate4.toml"]
REQUEST_TIMEOUT_S = 10  # ConnectionPolicy.requestTimeout
CLOSED_WITHIN_S = 20  # a client that stopped reading: two ping periods
REPORT = os.path.join(hostlib.ROOT, ".build", "serve-connections.json")
CLOSED_LINE = re.compile(r"client #\d+ 127\.0\.0\.1:(\d+) closed: sent")


def raise_own_descriptor_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            raise unittest.SkipTest(f"this test opens {need} sockets; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def first_report(url, deadline):
    """Connects (again and again while refused) and waits for one message:
    the time it came."""
    while True:
        try:
            async with websockets.connect(url, max_size=None, open_timeout=5) as ws:
                await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
                return time.monotonic()
        except (websockets.InvalidStatus, OSError, asyncio.TimeoutError, websockets.ConnectionClosed):
            if time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.1)  # a refused client tries again, as forcepanel.js does


class SlowlorisTests(unittest.TestCase):
    FLOOD = 1100

    def test_1100_slow_or_idle_connections_with_1024_descriptors(self):
        raise_own_descriptor_limit(self.FLOOD + 256)
        server = Serve(BOARD + ["--duration", "300"], nofile=1024)
        port = server.port
        opened, closed_by_server, statuses = 0, 0, []
        sel = selectors.DefaultSelector()
        live = {}  # socket -> sends a head slowly (True) or nothing (False)

        def open_one(i):
            nonlocal opened
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            sel.register(s, selectors.EVENT_WRITE, i % 2 == 1)
            opened += 1

        try:
            for i in range(self.FLOOD):
                open_one(i)
            flood_end = time.monotonic() + REQUEST_TIMEOUT_S + 5
            next_dribble = next_status = time.monotonic()
            while time.monotonic() < flood_end:
                for key, _ in sel.select(timeout=0.05):
                    s = key.fileobj
                    sel.unregister(s)
                    if key.events == selectors.EVENT_WRITE and s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                        if key.data:
                            try:
                                s.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                            except OSError:
                                pass
                        live[s] = key.data
                        sel.register(s, selectors.EVENT_READ, key.data)
                    else:
                        # Closed by the server (for room, or out of time): a
                        # slowloris client opens another.
                        live.pop(s, None)
                        s.close()
                        closed_by_server += 1
                        if opened < 20 * self.FLOOD:
                            open_one(opened)
                now = time.monotonic()
                if now >= next_dribble:
                    next_dribble = now + 1
                    for s, slow in list(live.items()):
                        if slow:
                            try:
                                s.send(b"X-a: b\r\n")
                            except OSError:
                                pass
                if now >= next_status:
                    # /status.json during the flood: answered (or 503).
                    next_status = now + 1
                    asked = time.monotonic()
                    status = servelib.status_json(port, timeout=5)
                    statuses.append((time.monotonic() - asked, status))
            self.assertIsNone(server.proc.poll(), "the server is alive at the end of the flood")
            during = [s for _, s in statuses if s is not None]
            self.assertTrue(during, "/status.json answered during the flood")
            cap = during[-1]["connections"]["max"]
            self.assertLessEqual(max(s["connections"]["most_at_once"] for s in during), cap)
            self.assertLess(cap, 1024 - 64, "the cap leaves descriptors for the rest")
            self.assertGreater(during[-1]["connections"]["closed_for_room"], 0)
            # The flood ends: every one of its connections closes at once.
            for s in list(live):
                sel.unregister(s)
                s.close()
            for key in list(sel.get_map().values()):
                key.fileobj.close()
            ended = time.monotonic()
            served = servelib.run(first_report(server.ws + "?idle=1", ended + 10))
            self.assertIsNotNone(served, "a new client got no report")
            self.assertLess(served - ended, 2.0, "a new WebSocket client gets reports within 2 s of the flood's end")
            self.assertIsNone(server.proc.poll())
        finally:
            for key in list(sel.get_map().values()):
                key.fileobj.close()
            for s in live:
                s.close()
            sel.close()
            server.proc.send_signal(signal.SIGTERM)
            status, _ = server.wait()
        self.assertEqual(status, 0, "\n".join(server.stderr[-20:]))
        self.assertFalse([line for line in server.stderr if "Too many open files" in line], "\n".join(server.stderr[-20:]))
        self.assertLess(len(server.stderr), 60, "what the flood makes the server say is rate-limited:\n" + "\n".join(server.stderr))
        slowest = max(t for t, _ in statuses)
        print(f"\nslowloris: {opened} connections opened, {closed_by_server} closed by the server; "
              f"/status.json {len(statuses)} times, slowest {slowest * 1000:.0f} ms; "
              f"new client served {1000 * (served - ended):.0f} ms after the flood; "
              f"{[line for line in server.stderr if 'connections' in line]}")


class RequestTimeoutTests(unittest.TestCase):
    def test_a_trickled_head_and_an_idle_keep_alive_are_closed_after_10_s(self):
        server = Serve(BOARD + ["--duration", "120"])
        slow = socket.create_connection(("127.0.0.1", server.port))
        idle = socket.create_connection(("127.0.0.1", server.port))
        try:
            started = time.monotonic()
            slow.sendall(b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            idle.sendall(b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answered = idle.recv(65536)
            self.assertTrue(answered.startswith(b"HTTP/1.1 200"), answered[:100])
            closed = {}
            sel = selectors.DefaultSelector()
            sel.register(slow, selectors.EVENT_READ, "slow")
            sel.register(idle, selectors.EVENT_READ, "idle")
            next_line = started + 1
            while len(closed) < 2 and time.monotonic() < started + 30:
                for key, _ in sel.select(timeout=0.05):
                    if key.fileobj.recv(65536) == b"":
                        closed[key.data] = time.monotonic() - started
                        sel.unregister(key.fileobj)
                if time.monotonic() >= next_line and "slow" not in closed:
                    next_line += 1
                    try:
                        slow.sendall(b"X-a: b\r\n")  # a line a second: never idle, never done
                    except OSError:
                        pass
            sel.close()
        finally:
            slow.close()
            idle.close()
            server.proc.send_signal(signal.SIGTERM)
            status, _ = server.wait()
        self.assertEqual(status, 0)
        print(f"\nclosed after: {closed}")
        for what in ("slow", "idle"):
            self.assertIn(what, closed)
            self.assertGreaterEqual(closed[what], REQUEST_TIMEOUT_S - 0.1, what)
            self.assertLess(closed[what], REQUEST_TIMEOUT_S + 1, what)
        self.assertIn("2 without a request in time", "\n".join(server.stderr))


def flooder(port, seconds, regions_items, done):
    """One client sending control lines as fast as the server takes them:
    messages of about 64 KB of settings lines, a regions line of many
    items, and bad lines. Never reads what it is answered."""
    items = ", ".join(
        f'{{name = "i{i}", x_mm = {(i * 7) % 150}.0, y_mm = {(i * 3) % 90}.0, width_mm = 5.0, height_mm = 5.0}}'
        for i in range(regions_items))
    lines = ["sensitivity light", "sensitivity medium", "force_touch on", "volume 11", f"regions [{items}]"]
    text = "\n".join(lines)
    message = "\n".join([text] * max(1, (64 << 10) // len(text)))
    sent = 0
    end = time.monotonic() + seconds
    try:
        with websockets.sync.client.connect(f"ws://127.0.0.1:{port}/ws", max_size=None, max_queue=4) as ws:
            while time.monotonic() < end:
                ws.send(message)
                sent += len(message)
    except (websockets.ConnectionClosed, OSError):
        pass
    done.put(("flooder", sent))


def status_hammer(port, seconds, done):
    """GET /status.json on one keep-alive connection, as fast as it is answered."""
    import http.client
    answered = 0
    end = time.monotonic() + seconds
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        while time.monotonic() < end:
            connection.request("GET", "/status.json")
            connection.getresponse().read()
            answered += 1
    except OSError:
        pass
    done.put(("hammer", answered))


class FloodingClientsTests(unittest.TestCase):
    """The gaps are measured where the server's part ends: the kernel's
    receive time of each report in the reader's socket (`StampedReader`),
    not when this Python process got round to it; the reader's own gaps
    are printed beside them. /status.json is asked from another thread, so
    its round trip never sits between two reads (docs/reliability.md,
    "Timing tests")."""
    FLOOD_S = 10

    def test_four_flooding_clients_do_not_hold_up_a_reader(self):
        server = Serve(BOARD + ["--duration", "120", "--wait-clients", "1"])
        port = server.port
        context = multiprocessing.get_context("spawn")
        done = context.Queue()
        reader = None
        statuses = []
        try:
            reader = StampedReader(port, "/ws?idle=1")
            self.assertTrue(reader.first.wait(30), "the reader got a first report")
            started = time.time()
            processes = [context.Process(target=flooder, args=(port, self.FLOOD_S, 300, done)) for _ in range(4)]
            processes.append(context.Process(target=status_hammer, args=(port, self.FLOOD_S, done)))
            for p in processes:
                p.start()
            while time.time() < started + self.FLOOD_S + 1:
                asked = time.monotonic()
                status = servelib.status_json(port, 5)
                statuses.append((time.monotonic() - asked, status))
                time.sleep(max(0.0, 1 - (time.monotonic() - asked)))  # once a second, as the dashboard asks
            for p in processes:
                p.join(30)
        finally:
            if reader is not None:
                reader.close()
            server.proc.send_signal(signal.SIGTERM)
            status, _ = server.wait()
        results = [done.get(timeout=10) for _ in range(5)]
        flooded_bytes = sum(n for who, n in results if who == "flooder")
        answered = sum(n for who, n in results if who == "hammer")
        self.assertEqual(status, 0, "\n".join(server.stderr[-20:]))
        flooded = [(w, r) for w, r, _ in reader.messages if started + 1 <= w <= started + self.FLOOD_S]
        gaps = [b[0] - a[0] for a, b in zip(flooded, flooded[1:])]
        own = [b[1] - a[1] for a, b in zip(flooded, flooded[1:])]
        sent_mb = flooded_bytes / 1e6
        rates = [s["frame_rate_hz"] for _, s in statuses if s is not None]
        print(f"\nfour flooders: {sent_mb:.1f} MB of control lines sent (into their sockets) in {self.FLOOD_S} s, "
              f"{answered} /status.json answered to the hammer; the reader's longest gap "
              f"{max(gaps) * 1000:.1f} ms over {len(gaps)} reports as the server wrote them "
              f"({max(own) * 1000:.1f} ms as this process read them); /status.json beside it at worst "
              f"{max(t for t, _ in statuses) * 1000:.0f} ms; frame rates {rates}; load average "
              f"{os.getloadavg()[0]:.1f}; {[line for line in server.stderr if 'dropped' in line][-2:]}")
        self.assertTrue(all(s is not None for _, s in statuses), "/status.json answered during the flood")
        self.assertGreater(sent_mb, 0.5, "the flooders sent lines")
        self.assertGreater(answered, 10, "the hammering client's requests were answered")
        self.assertLess(max(gaps), 0.100, "a reader's report gaps stay under 100 ms")
        self.assertGreater(len(gaps), 320 * (self.FLOOD_S - 2), "the reader got every frame's report")


class ClientsThatNeverReadTests(unittest.TestCase):
    def test_64_clients_that_never_read_lock_nobody_out_for_long(self):
        server = Serve(BOARD + ["--duration", "300", "--max-clients", "64"])
        port = server.port
        stuck = []
        connected = {}  # local port -> when its upgrade was answered
        try:
            first_in = time.monotonic()
            for i in range(64):
                # Half read every frame (their socket backs up), half the
                # loud frames only (nothing backs up: only a ping goes unanswered).
                path = "/ws?idle=1" if i % 2 else "/ws"
                status, sock = servelib.raw_upgrade(port, path, rcvbuf=4096)
                self.assertEqual(status, 101)
                stuck.append(sock)
                connected[sock.getsockname()[1]] = time.monotonic()
            all_in = time.monotonic()
            # Its place is taken when the upgrade is answered, before the
            # session starts: the 65th is refused, not let in and closed.
            refused, sock = servelib.raw_upgrade(port, "/ws")
            sock.close()
            self.assertNotEqual(refused, 101, "the 64 hold every place")
            served = servelib.run(first_report(server.ws + "?idle=1", all_in + CLOSED_WITHIN_S + 10))
            self.assertIsNotNone(served)
            # From the moment the first of them stopped reading (its
            # connection): the documented 20 s, and a second for the new
            # client's tries (one every 0.1 s) and the 64 closings.
            waited = served - first_in
            self.assertLess(waited, CLOSED_WITHIN_S + 1, "a new client is served within the documented time")
            # Each of the 64 closed by the server itself, before the test
            # closes anything: its line `client #N 127.0.0.1:PORT closed`,
            # taken as the server writes it (an upper bound on when it was
            # closed), within the documented time of its connection.
            closed_after = {}
            deadline = all_in + CLOSED_WITHIN_S + 10
            while len(closed_after) < len(connected):
                try:
                    line = server.lines.get(timeout=max(0.1, deadline - time.monotonic()))
                except queue.Empty:
                    line = None
                if line is None:
                    open_ports = sorted(set(connected) - set(closed_after))
                    self.fail(f"{len(open_ports)} of the 64 not closed by the server: ports {open_ports[:8]}")
                m = CLOSED_LINE.search(line)
                if m and int(m.group(1)) in connected:
                    p = int(m.group(1))
                    closed_after[p] = time.monotonic() - connected[p]
            self.assertLess(max(closed_after.values()), CLOSED_WITHIN_S + 1, "each one closed within the documented time")
            self.assertIsNone(server.proc.poll())
        finally:
            for s in stuck:
                s.close()
            server.proc.send_signal(signal.SIGTERM)
            status, _ = server.wait()
        self.assertEqual(status, 0, "\n".join(server.stderr[-20:]))
        behind = [line for line in server.stderr if "still behind at the end" in line]
        self.assertEqual(behind, [], "every client had been closed and left before the end")
        print(f"\n64 clients that never read: a new client served {waited:.1f} s after the first of them stopped reading "
              f"({all_in - first_in:.1f} s to connect all 64); each closed by the server "
              f"{min(closed_after.values()):.1f}-{max(closed_after.values()):.1f} s after its connection")


class ConnectionMemoryTests(unittest.TestCase):
    CYCLES = 20000
    WARM_UP = 10000
    PARALLEL = 8
    PING_PERIOD_S = 10

    def test_connections_give_their_memory_back(self):
        server = Serve(BOARD + ["--duration", "900"])

        async def cycles(n):
            async def one_after_another(k):
                for _ in range(k):
                    async with websockets.connect(server.ws, max_size=None):
                        pass

            await asyncio.gather(*[one_after_another(n // self.PARALLEL) for _ in range(self.PARALLEL)])

        try:
            servelib.run(cycles(self.WARM_UP))
            before = rss_kib(server.proc.pid)
            started = time.monotonic()
            servelib.run(cycles(self.CYCLES))
            seconds = time.monotonic() - started
            at_end = rss_kib(server.proc.pid)
            # A closed client's ping timer (a cancelled sleep) keeps its
            # memory until the sleep's deadline, one ping period later.
            time.sleep(self.PING_PERIOD_S + 2)
            after = rss_kib(server.proc.pid)
            self.assertIsNone(server.proc.poll())
        finally:
            server.proc.send_signal(signal.SIGTERM)
            status, _ = server.wait()
        self.assertEqual(status, 0, "\n".join(server.stderr[-20:]))
        figures = {"warm_up_connections": self.WARM_UP, "connections": self.CYCLES, "seconds": round(seconds, 1),
                   "rss_before_kib": before, "rss_at_end_kib": at_end, "rss_after_kib": after,
                   "bytes_per_connection": round((after - before) * 1024 / self.CYCLES, 1)}
        os.makedirs(os.path.dirname(REPORT), exist_ok=True)
        with open(REPORT, "w") as f:
            json.dump(figures, f, indent=1)
        print(f"\nconnections: {json.dumps(figures)}")
        # 0.8 KB kept per connection (the campaign's figure) would be 16 MB
        # here. The heap's bytes in use stay flat (docs/serve.md); the
        # resident size still creeps by about 160 bytes a connection
        # (pages the allocator and the thread pool keep), well under this.
        self.assertLess(after - before, 6144, "memory after 20 000 connections is back where it was")


if __name__ == "__main__":
    unittest.main()
