"""`panelctl serve` under load: 20 WebSocket clients of the simulated grid
at 500 frames a second for 60 s (`/ws?idle=1`, a message per frame), one of
them never reading. Every reading client gets every report, in order, byte
for byte the lines of `panelctl stream --idle`; the stalled one is closed
once it has taken nothing for 10 s, and nobody else notices. The CPU time of the server is
measured against a run without clients and written out (the figures of
docs/performance.md); nothing here asserts a time."""

import asyncio
import hashlib
import json
import os
import socket
import unittest

import websockets

import hostlib
import servelib
from servelib import Serve

FRAMES = 30000  # 60 s at 500 Hz
BASELINE_FRAMES = 5000  # 10 s
READERS = 19
SCENARIO = ["--board", "boards/sim-grid.toml", "--scenario", "scenarios/load-grid.toml"]
REPORT = os.path.join(hostlib.ROOT, ".build", "serve-load.json")


def frame_of(message):
    start = message.index('"frame":') + 8
    return int(message[start:message.index(",", start)])


async def reader(url):
    """Reads every message: (count, sha256 of the lines, frames in order, close)."""
    digest = hashlib.sha256()
    count, in_order, expected = 0, True, 0
    async with websockets.connect(url, max_size=None) as ws:
        try:
            async for m in ws:
                digest.update(m.encode())
                digest.update(b"\n")
                in_order = in_order and frame_of(m) == expected
                expected += 1
                count += 1
        except websockets.ConnectionClosed:
            pass
        return count, digest.hexdigest(), in_order, (ws.close_code, ws.close_reason)


async def stalled(url, connected, done):
    """Connects with a 4 KiB receive buffer and never reads a message (the
    library stops reading the socket once one message waits)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    host, port = url.split("//")[1].split("/")[0].split(":")
    sock.connect((host, int(port)))
    ws = await websockets.connect(url, sock=sock, max_queue=1, max_size=None, ping_interval=None)
    connected.set()
    await done.wait()
    ws.transport.abort()


class ServeLoadTests(unittest.TestCase):
    def test_twenty_clients_at_500_frames_a_second_one_stalled(self):
        reference = servelib.stream_lines(SCENARIO + ["--idle", "--frames", str(FRAMES), "--speed", "0"])
        self.assertEqual(len(reference), FRAMES)
        expected = hashlib.sha256("".join(line + "\n" for line in reference).encode()).hexdigest()

        server = Serve(SCENARIO + ["--frames", str(FRAMES), "--wait-clients", str(READERS + 1)])

        async def clients():
            connected, done = asyncio.Event(), asyncio.Event()
            stuck = asyncio.create_task(stalled(server.ws + "?idle=1", connected, done))
            await connected.wait()
            await asyncio.to_thread(server.wait_for_line, r"client #1 .* connected")  # the stalled one is #1
            results = await asyncio.gather(*[reader(server.ws + "?idle=1") for _ in range(READERS)])
            done.set()
            await stuck
            return results

        try:
            results = servelib.run(clients())
        finally:
            status, usage = server.wait()
        self.assertEqual(status, 0, "\n".join(server.stderr[-20:]))
        for i, (count, digest, in_order, close) in enumerate(results):
            with self.subTest(reader=i + 2):
                self.assertTrue(in_order, "frames in order, none missing")
                self.assertEqual(count, FRAMES)
                self.assertEqual(digest, expected, "every report, byte for byte the lines of `stream --idle`")
                self.assertEqual(close, (1000, "stream ended"))
        summary = server.summary()
        self.assertEqual((summary["frames"], summary["clients"], summary["most"]), (FRAMES, READERS + 1, READERS + 1))
        counts = server.client_counts()
        self.assertEqual(sorted(counts), list(range(1, READERS + 2)))
        for client in range(2, READERS + 2):
            self.assertEqual(counts[client], (FRAMES, 0), f"client #{client}")
        sent, dropped = counts[1]
        # The stalled one is closed by the server once it has taken nothing
        # for 10 s (or missed a ping): offered every frame until then, each
        # sent (handed to its connection) or counted as dropped.
        self.assertLess(sent + dropped, FRAMES, "the stalled client was closed before the end")
        self.assertFalse([line for line in server.stderr if "client #1 " in line and "still behind" in line])
        self.assertEqual((summary["sent"], summary["dropped"]), (READERS * FRAMES + sent, dropped))
        loaded_cpu = usage.ru_utime + usage.ru_stime

        # The same panel with nobody watching, for the CPU per client.
        idle = Serve(SCENARIO + ["--frames", str(BASELINE_FRAMES)])
        status, usage = idle.wait()
        self.assertEqual(status, 0)
        baseline_cpu = usage.ru_utime + usage.ru_stime
        per_second = loaded_cpu / (FRAMES / 500)
        baseline_per_second = baseline_cpu / (BASELINE_FRAMES / 500)
        figures = {
            "clients": READERS + 1,
            "frames": FRAMES,
            "server_cpu_s": round(loaded_cpu, 2),
            "server_cpu_per_s": round(per_second, 4),
            "no_clients_cpu_per_s": round(baseline_per_second, 4),
            "cpu_per_client_per_s": round((per_second - baseline_per_second) / (READERS + 1), 4),
            "stalled_sent": sent,
            "stalled_dropped": dropped,
        }
        os.makedirs(os.path.dirname(REPORT), exist_ok=True)
        with open(REPORT, "w") as f:
            json.dump(figures, f, indent=1)
        print(f"\nserve load: {json.dumps(figures)}")


if __name__ == "__main__":
    unittest.main()
