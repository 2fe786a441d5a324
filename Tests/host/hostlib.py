"""Shared helpers of the host-side checks: the panelctl under test, a UDP
receiver on loopback, and a strict OSC 1.0 reader written independently of
the Swift encoder (python-osc decodes but does not validate)."""

import json
import os
import socket
import struct
import subprocess
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PANELCTL = os.environ.get("PANELCTL", os.path.join(ROOT, ".build", "debug", "panelctl"))


def panelctl(args, timeout=120):
    """Runs panelctl in the repository root; returns the CompletedProcess."""
    return subprocess.run(
        [PANELCTL] + args, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL)


def reports(stdout):
    """The NDJSON report lines of a run, decoded."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


class UDPReceiver:
    """Collects every datagram sent to 127.0.0.1:port, in arrival order."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # A deep queue, so a busy machine does not lose datagrams on loopback.
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE (root)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.datagrams = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        self.sock.settimeout(0.05)
        while not self.done.is_set():
            try:
                self.datagrams.append(self.sock.recv(65536))
            except socket.timeout:
                pass
        self.sock.setblocking(False)
        while True:  # what arrived before the sender exited
            try:
                self.datagrams.append(self.sock.recv(65536))
            except BlockingIOError:
                break

    def stop(self):
        self.done.set()
        self.thread.join()
        self.sock.close()
        return self.datagrams


class WireError(AssertionError):
    pass


def _string(b, p):
    end = b.find(b"\0", p)
    if end < 0:
        raise WireError(f"string at {p} has no NUL")
    padded = p + ((end - p) // 4 + 1) * 4
    if padded > len(b):
        raise WireError(f"string at {p} padding runs past the message")
    if any(b[end:padded]):
        raise WireError(f"string at {p} padded with non-NUL bytes")
    return b[p:end].decode("utf-8"), padded


def strict_message(b):
    """(address, type tags, arguments) of one message, or WireError."""
    if len(b) % 4:
        raise WireError(f"message size {len(b)} not a multiple of 4")
    address, p = _string(b, 0)
    if not address.startswith("/"):
        raise WireError(f"address {address!r}")
    tags, p = _string(b, p)
    if not tags.startswith(","):
        raise WireError(f"type tags {tags!r} do not start with ','")
    args = []
    for t in tags[1:]:
        if t == "i":
            if p + 4 > len(b):
                raise WireError(f"{address}: int32 past the end")
            args.append(struct.unpack_from(">i", b, p)[0])
            p += 4
        elif t == "f":
            if p + 4 > len(b):
                raise WireError(f"{address}: float32 past the end")
            args.append(struct.unpack_from(">f", b, p)[0])
            p += 4
        elif t == "t":
            if p + 8 > len(b):
                raise WireError(f"{address}: time tag past the end")
            args.append(struct.unpack_from(">II", b, p))
            p += 8
        elif t == "s":
            s, p = _string(b, p)
            args.append(s)
        else:
            raise WireError(f"{address}: unexpected type tag {t!r} in {tags!r}")
    if p != len(b):
        raise WireError(f"{address} {tags}: {len(b) - p} bytes after the arguments")
    return address, tags, args


def strict_bundle(d):
    """The messages of one datagram that must be a single immediate bundle."""
    if len(d) % 4:
        raise WireError(f"datagram size {len(d)} not a multiple of 4")
    if d[:8] != b"#bundle\0":
        raise WireError("datagram is not a bundle")
    if struct.unpack_from(">II", d, 8) != (0, 1):
        raise WireError("bundle time tag is not 'immediately'")
    p = 16
    messages = []
    while p < len(d):
        if p + 4 > len(d):
            raise WireError("truncated element size")
        (size,) = struct.unpack_from(">i", d, p)
        if size <= 0 or size % 4 or p + 4 + size > len(d):
            raise WireError(f"element size {size} at {p}")
        messages.append(strict_message(d[p + 4:p + 4 + size]))
        p += 4 + size
    return messages


def ntp_seconds(tag):
    seconds, fraction = tag
    return seconds + fraction / 2**32


class LateFrameClient:
    """What a TUIO client keeps alive, by the reference clients' rule: a
    bundle whose frame id is not newer than the last one taken is late and
    dropped whole (unless the id jumped back by more than 100, a restarted
    source). Feed it (frame id, alive ids) per bundle, in arrival order."""

    def __init__(self):
        self.frame = 0
        self.alive = set()
        self.dropped = 0

    def take(self, frame_id, alive):
        if frame_id > 0 and self.frame > 0 and frame_id <= self.frame and self.frame - frame_id <= 100:
            self.dropped += 1
            return
        self.frame = frame_id
        self.alive = set(alive)
