"""Helpers of the `panelctl serve` checks: the server as a real process on
loopback, its address read from its own first line, WebSocket clients from
the `websockets` package, and a reader of the NDJSON report schema written
from docs/formats.md (independent of the Swift encoder)."""

import asyncio
import base64
import json
import os
import queue
import re
import resource
import socket
import struct
import subprocess
import threading
import time
import urllib.request

import websockets

import hostlib

LISTENING = re.compile(r"panelctl: serve: listening on http://(\S+?):(\d+)/")


class Serve:
    """`panelctl serve ARGS` in the repository root, listening on a free port
    (`--listen 127.0.0.1:0` unless ARGS has a --listen). Standard error is
    collected line by line; `start` returns once the server says where it
    listens."""

    def __init__(self, args, cwd=hostlib.ROOT, binary=hostlib.PANELCTL, nofile=None):
        """`nofile`: the process's descriptor limit, soft and hard (`ulimit -n`)."""
        if "--listen" not in args:
            args = args + ["--listen", "127.0.0.1:0"]

        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(
            [binary, "serve"] + args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        self.lines = queue.Queue()
        self.stderr = []
        self.stdout = ""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.out_reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.out_reader.start()
        self.host, self.port = self._listening()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/ws"

    def _read(self):
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _read_stdout(self):
        self.stdout = self.proc.stdout.read()

    def _listening(self):
        while True:
            line = self.lines.get(timeout=60)
            if line is None:
                raise AssertionError("panelctl serve ended before listening:\n" + "\n".join(self.stderr))
            m = LISTENING.search(line)
            if m:
                return m.group(1), int(m.group(2))

    def wait_for_line(self, pattern, timeout=60):
        """The first line of standard error from now on matching `pattern`."""
        rx = re.compile(pattern)
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError(f"no line matching {pattern!r}:\n" + "\n".join(self.stderr))
            if rx.search(line):
                return line

    def wait(self, timeout=180):
        """Waits for the end; returns the exit status (and the rusage of the process)."""
        try:
            _, status, usage = os.wait4(self.proc.pid, 0)
            self.proc.returncode = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            usage = None
            self.proc.wait(timeout=timeout)
        self.reader.join(timeout=timeout)
        self.out_reader.join(timeout=timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode, usage

    def summary(self):
        """The end-of-run line: frames, clients, sent, dropped."""
        for line in self.stderr:
            m = re.search(r"serve: frames (\d+); ws clients (\d+) \(at most (\d+) at once\): sent (\d+), dropped (\d+)", line)
            if m:
                return dict(zip(["frames", "clients", "most", "sent", "dropped"], map(int, m.groups())))
        raise AssertionError("no summary line:\n" + "\n".join(self.stderr))

    def client_counts(self):
        """{client id: (sent, dropped)} from the lines of clients that closed or were behind at the end."""
        counts = {}
        for line in self.stderr:
            m = re.search(r"client #(\d+) \S+ (?:closed|still behind at the end): sent (\d+), dropped (\d+)", line)
            if m:
                counts[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
        return counts

    def get(self, path, headers=None):
        """(status, body bytes, headers) of GET path."""
        request = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


async def read_all(url, send=None, **connect_args):
    """Connects, sends `send` (text) if given, and reads every message until
    the server closes: (messages, close code, close reason)."""
    async with websockets.connect(url, max_size=None, **connect_args) as ws:
        if send is not None:
            await ws.send(send)
        messages = []
        try:
            async for m in ws:
                messages.append(m)
        except websockets.ConnectionClosed:
            pass
        return messages, ws.close_code, ws.close_reason


def run(coroutine):
    return asyncio.run(coroutine)


PHASES = {"began", "moved", "stationary", "ended", "cancelled"}
STAGES = {"none", "hint", "peek", "pop"}


def check_reports(testcase, lines):
    """Every line is one report of the NDJSON schema (docs/formats.md):
    `t_us` and `frame` strictly increasing, touches with their fields, every
    touch that began ending exactly once; returns the decoded reports."""
    reports = [json.loads(line) for line in lines]
    begun, finished = set(), set()
    last = None
    for r in reports:
        testcase.assertEqual(set(r) - {"image_n"}, {"t_us", "frame", "touches", "events", "force_capability"}, r)
        testcase.assertIsInstance(r["t_us"], int)
        testcase.assertIsInstance(r["frame"], int)
        if last is not None:
            testcase.assertGreater(r["frame"], last["frame"])
            testcase.assertGreater(r["t_us"], last["t_us"])
        last = r
        for t in r["touches"]:
            for key in ("id", "phase", "x_mm", "y_mm", "force_n", "force", "max_force", "stage", "progress"):
                testcase.assertIn(key, t)
            testcase.assertIn(t["phase"], PHASES)
            testcase.assertIn(t["stage"], STAGES)
            testcase.assertLessEqual(t["force"], t["max_force"])
            if t["phase"] == "began":
                testcase.assertNotIn(t["id"], begun, f"touch {t['id']} began twice")
                begun.add(t["id"])
            if t["phase"] in ("ended", "cancelled"):
                testcase.assertNotIn(t["id"], finished, f"touch {t['id']} ended twice")
                finished.add(t["id"])
        for e in r["events"]:
            testcase.assertIn("type", e)
            testcase.assertIn("touch", e)
    testcase.assertEqual(begun, finished, "every touch that began ends with exactly one ended or cancelled")
    return reports


def stream_lines(args):
    """The NDJSON lines `panelctl stream ARGS` writes (the reference)."""
    run = hostlib.panelctl(["stream"] + args, timeout=300)
    if run.returncode != 0:
        raise AssertionError(f"panelctl stream failed ({run.returncode}): {run.stderr}")
    return [line for line in run.stdout.splitlines() if line.strip()]


def raw_upgrade(port, path="/ws", host=None, origin=None, rcvbuf=None, timeout=10):
    """A WebSocket opening handshake on a plain socket to 127.0.0.1:port:
    (the response's status code, the connected socket). The caller may
    then never read from it (a client that does not read), or close it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append(f"Origin: {origin}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: nothing after the head is taken
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/1.1 ") else 0
    return status, sock


def status_json(port, timeout=10):
    """/status.json of the server on 127.0.0.1:port, decoded (None on 503)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/status.json", timeout=timeout) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        if e.code == 503:
            return None
        raise


SO_TIMESTAMPNS = 35  # <asm-generic/socket.h>


class StampedReader:
    """A WebSocket client of `path` on a plain socket, reading on a thread
    of its own: for every text message, the time the kernel put its last
    byte in this socket (SO_TIMESTAMPNS; on loopback, when the server wrote
    it) and the time this process read it, both CLOCK_REALTIME seconds.
    The first is what the server did, whatever the machine does to this
    process; the second adds this process's own scheduling. When one read
    takes several messages, each gets the stamp of the latest, so a gap
    between stamps is never shorter than the real one. Pings are answered."""

    def __init__(self, port, path="/ws?idle=1"):
        status, self.sock = raw_upgrade(port, path)
        if status != 101:
            raise AssertionError(f"the upgrade of {path} was answered {status}")
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.settimeout(0.2)
        self.messages = []  # (written, read, text)
        self.first = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        buffer = b""
        while not self.done.is_set():
            try:
                data, ancillary, _, _ = self.sock.recvmsg(1 << 16, 64)
            except socket.timeout:
                continue
            read = time.time()
            if not data:
                break
            written = read
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    written = seconds + nanoseconds * 1e-9
            buffer += data
            while True:
                frame = _server_frame(buffer)
                if frame is None:
                    break
                opcode, payload, buffer = frame
                if opcode == 0x1:
                    self.messages.append((written, read, payload.decode()))
                    self.first.set()
                elif opcode == 0x9:
                    self.sock.sendall(_client_frame(0xA, payload))
                elif opcode == 0x8:
                    self.done.set()
                    break

    def close(self):
        self.done.set()
        self.thread.join(timeout=5)
        self.sock.close()


def _server_frame(buffer):
    """(opcode, payload, rest) of the first whole unmasked frame, or None."""
    if len(buffer) < 2:
        return None
    n, head = buffer[1] & 0x7F, 2
    if n == 126:
        if len(buffer) < 4:
            return None
        n, head = struct.unpack(">H", buffer[2:4])[0], 4
    elif n == 127:
        if len(buffer) < 10:
            return None
        n, head = struct.unpack(">Q", buffer[2:10])[0], 10
    if len(buffer) < head + n:
        return None
    return buffer[0] & 0x0F, buffer[head:head + n], buffer[head + n:]


def _client_frame(opcode, payload):
    """A masked frame (a client's), payload under 126 bytes."""
    mask = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
