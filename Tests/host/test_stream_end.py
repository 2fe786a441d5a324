"""The end of a stream as hosts see it: a run cut while touches are down
ends them on the host. In TUIO 2.0 and 1.1 every bundle has a newer frame
id than the one before, the last one included, and its alive list is empty,
so a client applying the reference clients' late-frame rule keeps no touch
alive; the NDJSON of the same run cancels those touches in the report of
its last frame."""

import unittest

from pythonosc.osc_bundle import OscBundle

import hostlib

# Both demos are cut in the middle of their firm press.
CUTS = [("sim-plate4", "2.5"), ("sim-grid", "1.9")]


def cut_stream(board, fmt, duration):
    rx = hostlib.UDPReceiver()
    run = hostlib.panelctl([
        "stream", "--board", f"boards/{board}.toml", "--speed", "4", "--duration", duration,
        "--format", fmt, "--to", f"127.0.0.1:{rx.port}", "--echo"])
    datagrams = rx.stop()
    if run.returncode != 0:
        raise AssertionError(f"panelctl failed ({run.returncode}): {run.stderr}")
    return datagrams, hostlib.reports(run.stdout)


def frame_and_alive(fmt, datagram):
    """(frame id, alive ids) of one bundle, decoded by python-osc."""
    frame_id, alive = None, None
    for m in OscBundle(datagram):
        params = list(m.params)
        if fmt == "tuio":
            if m.address == "/tuio2/frm":
                frame_id = params[0]
            elif m.address == "/tuio2/alv":
                alive = params
        elif m.address == "/tuio/2Dcur":
            if params[0] == "fseq":
                frame_id = params[1]
            elif params[0] == "alive":
                alive = params[1:]
    assert frame_id is not None and alive is not None, "bundle without frame id or alive list"
    return frame_id, alive


class StreamEndTests(unittest.TestCase):
    def test_a_cut_stream_ends_its_touches_on_the_host(self):
        for fmt in ("tuio", "tuio1"):
            for board, duration in CUTS:
                with self.subTest(format=fmt, board=board):
                    self.check(fmt, board, duration)

    def check(self, fmt, board, duration):
        datagrams, lines = cut_stream(board, fmt, duration)
        decoded = [frame_and_alive(fmt, d) for d in datagrams]
        ids = [f for f, _ in decoded]
        self.assertTrue(all(b > a for a, b in zip(ids, ids[1:])), f"frame ids not strictly increasing: {ids[-5:]}")
        # The run was cut with a touch down: the bundle before the last had it alive.
        self.assertTrue(any(alive for _, alive in decoded[-3:-1]), "the cut was meant to fall inside a press")
        self.assertEqual(decoded[-1][1], [], "the closing bundle's alive list is empty")
        client = hostlib.LateFrameClient()
        for frame_id, alive in decoded:
            client.take(frame_id, alive)
        self.assertEqual(client.dropped, 0)
        self.assertEqual(client.alive, set(), "touches left alive on the host")
        # The NDJSON of the same run: one line per frame, the cancellation
        # in the last frame's report, and that frame is the closing bundle's.
        frames = [line["frame"] for line in lines]
        times = [line["t_us"] for line in lines]
        self.assertTrue(all(b > a for a, b in zip(frames, frames[1:])))
        self.assertTrue(all(b > a for a, b in zip(times, times[1:])))
        last = lines[-1]
        self.assertTrue(last["touches"])
        self.assertTrue(all(t["phase"] == "cancelled" for t in last["touches"]), last)
        self.assertEqual(ids[-1], last["frame"] + 1)


if __name__ == "__main__":
    unittest.main()
