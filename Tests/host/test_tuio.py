"""TUIO 2.0 and TUIO 1.1 from `panelctl stream`, received on loopback by
independent decoders (python-osc; python-tuio's dispatcher for 1.1) and
checked against the NDJSON reports of the same run (`--echo`), plus the
strict wire checks those decoders do not make: 4-byte alignment, exact
type-tag strings, argument counts, message order."""

import contextlib
import io
import os
import re
import tomllib
import unittest

from pythonosc.osc_bundle import OscBundle
from pythonosc.osc_message import OscMessage

import hostlib

BOARDS = ["sim-plate4", "sim-grid"]
SPEED = "3"

PTR_TAGS = ",iii" + "f" * 11
TUIO2_TAGS = {
    "/tuio2/frm": ",itis",
    "/tuio2/ptr": PTR_TAGS,
    "/forcepanel/stage": ",isf",
    "/forcepanel/event": ",si",
}


def board_file(name):
    with open(os.path.join(hostlib.ROOT, "boards", name + ".toml"), "rb") as f:
        return tomllib.load(f)


def python_osc_messages(datagram):
    """Every message python-osc finds in a datagram, as (address, params)."""
    bundle = OscBundle(datagram)
    out = []
    for element in bundle:
        assert isinstance(element, OscMessage), "nested bundles are not sent"
        out.append((element.address, list(element.params)))
    return out


def stream(board, fmt):
    """Runs the board's demo at speed 3 to a loopback receiver; returns the
    datagrams, the NDJSON reports echoed by the same run, and stderr."""
    rx = hostlib.UDPReceiver()
    run = hostlib.panelctl([
        "stream", "--board", f"boards/{board}.toml", "--speed", SPEED, "--format", fmt,
        "--to", f"127.0.0.1:{rx.port}", "--echo"])
    datagrams = rx.stop()
    if run.returncode != 0:
        raise AssertionError(f"panelctl failed ({run.returncode}): {run.stderr}")
    return datagrams, hostlib.reports(run.stdout), run.stderr


def active(touch):
    return touch["phase"] not in ("ended", "cancelled")


class Common:
    def check_summary(self, stderr, datagrams, fmt):
        m = re.search(fmt + r" udp 127\.0\.0\.1:\d+: sent (\d+), dropped (\d+)", stderr)
        self.assertIsNotNone(m, stderr)
        self.assertEqual(int(m.group(2)), 0, stderr)
        self.assertEqual(int(m.group(1)), len(datagrams), "datagrams lost on loopback")


class TUIO2Tests(unittest.TestCase, Common):
    def test_tuio2_matches_the_ndjson_reports(self):
        for board in BOARDS:
            with self.subTest(board=board):
                self.check_board(board)

    def check_board(self, board):
        spec = board_file(board)
        width, height = spec["panel"]["width_mm"], spec["panel"]["height_mm"]
        max_force = spec["interaction"]["max_force"]
        serial = spec["frontend"]["serial"]
        datagrams, lines, stderr = stream(board, "tuio")
        self.check_summary(stderr, datagrams, "tuio")
        self.assertGreater(len(lines), 100)

        bundles = {}
        last_fid = 0
        first_time = None
        for d in datagrams:
            messages = hostlib.strict_bundle(d)
            # Exact type tags, argument counts, order: frm first, alv last.
            self.assertEqual(messages[0][0], "/tuio2/frm")
            self.assertEqual(messages[-1][0], "/tuio2/alv")
            for address, tags, args in messages:
                if address == "/tuio2/alv":
                    self.assertEqual(tags, "," + "i" * len(args))
                else:
                    self.assertEqual(tags, TUIO2_TAGS[address], address)
                self.assertEqual(len(args), len(tags) - 1)
            self.assertEqual([m[0] for m in messages].count("/tuio2/alv"), 1)
            # python-osc decodes the same values.
            decoded = python_osc_messages(d)
            self.assertEqual([a for a, _ in decoded], [m[0] for m in messages])
            for (address, params), (_, tags, args) in zip(decoded, messages):
                self.assertEqual(len(params), len(tags) - 1, address)
                if address == "/tuio2/frm":
                    self.assertEqual(params[0], args[0])
                    self.assertEqual(params[2:], args[2:])
                else:
                    self.assertEqual(params, args, address)
            fid, time, dim, source = messages[0][2]
            self.assertGreater(fid, last_fid, "frame ids increase")
            last_fid = fid
            self.assertEqual(dim, (round(width * 10) << 16) | round(height * 10))
            self.assertEqual(source, f"{board}/{serial}:0@0x7F000001")
            bundles[fid] = (hostlib.ntp_seconds(time), messages)

        first_line = lines[0]
        first_time = bundles[first_line["frame"] + 1][0]
        matched = 0
        for line in lines:
            fid = line["frame"] + 1
            self.assertIn(fid, bundles, f"frame {line['frame']} has no bundle")
            time, messages = bundles[fid]
            # Frame times keep the panel's spacing.
            self.assertAlmostEqual(
                time - first_time, (line["t_us"] - first_line["t_us"]) / 1e6, delta=2e-6)
            ptrs = {m[2][0]: m[2] for m in messages if m[0] == "/tuio2/ptr"}
            stages = {m[2][0]: m[2] for m in messages if m[0] == "/forcepanel/stage"}
            events = [(m[2][0], m[2][1]) for m in messages if m[0] == "/forcepanel/event"]
            alive = messages[-1][2]
            live = [t for t in line["touches"] if active(t)]
            self.assertEqual(alive, [t["id"] for t in live], f"alive, frame {line['frame']}")
            self.assertEqual(sorted(ptrs), sorted(alive))
            for t in live:
                s_id, tu_id, c_id, x, y, angle, shear, radius, press = ptrs[t["id"]][:9]
                self.assertAlmostEqual(x, t["x_mm"] / width, delta=1e-4)
                self.assertAlmostEqual(y, t["y_mm"] / height, delta=1e-4)
                self.assertAlmostEqual(press, min(1.0, t["force"] / max_force), delta=5e-4)
                self.assertGreater(press, 0)
                self.assertEqual(stages[t["id"]][1], t["stage"])
                self.assertAlmostEqual(stages[t["id"]][2], t["force_n"], delta=1e-3)
                matched += 1
            self.assertEqual(events, [(e["type"], e["touch"]) for e in line["events"]])
        self.assertGreater(matched, 100)
        # Bundles without a report are idle keep-alives: nothing alive.
        reported = {line["frame"] + 1 for line in lines}
        for fid, (_, messages) in bundles.items():
            if fid not in reported:
                self.assertEqual([m[0] for m in messages], ["/tuio2/frm", "/tuio2/alv"])
                self.assertEqual(messages[-1][2], [])
        # Every stage the run went through reached the host.
        seen = {m[2][1] for _, ms in bundles.values() for m in ms if m[0] == "/forcepanel/stage"}
        self.assertTrue({"peek", "pop"} <= seen or board != "sim-plate4", seen)


class TUIO1Tests(unittest.TestCase, Common):
    def test_tuio1_matches_the_ndjson_reports(self):
        from pythontuio.dispatcher import TuioDispatcher, TuioListener

        for board in BOARDS:
            with self.subTest(board=board):
                spec = board_file(board)
                width, height = spec["panel"]["width_mm"], spec["panel"]["height_mm"]
                datagrams, lines, stderr = stream(board, "tuio1")
                self.check_summary(stderr, datagrams, "tuio1")

                # python-tuio's own dispatcher (the one its TuioClient runs)
                # turns each datagram into cursors; one refresh per bundle.
                snapshots = []

                class Recorder(TuioListener):
                    def refresh(self, _time):
                        snapshots.append([(c.session_id, c.position) for c in dispatcher.cursors])

                dispatcher = TuioDispatcher()
                dispatcher.add_listener(Recorder())
                fseqs = []
                for d in datagrams:
                    messages = hostlib.strict_bundle(d)
                    kinds = [m[2][0] if m[0] == "/tuio/2Dcur" else m[0] for m in messages]
                    self.assertEqual(kinds[:2], ["source", "alive"])
                    self.assertEqual(kinds[-1], "fseq")
                    for address, tags, args in messages:
                        if address == "/tuio/2Dcur":
                            expected = {
                                "source": ",ss", "set": ",sifffff", "fseq": ",si",
                                "alive": ",s" + "i" * (len(args) - 1)}[args[0]]
                        else:
                            expected = TUIO2_TAGS[address]
                        self.assertEqual(tags, expected)
                        self.assertEqual(len(args), len(tags) - 1)
                    self.assertEqual(messages[0][2][1], f"{board}/{spec['frontend']['serial']}@0x7F000001")
                    fseqs.append(messages[-1][2][1])
                    with contextlib.redirect_stdout(io.StringIO()):
                        dispatcher.call_handlers_for_packet(d, ("127.0.0.1", 0))
                self.assertEqual(len(snapshots), len(datagrams))
                self.assertEqual(fseqs, sorted(set(fseqs)), "fseq increases")
                by_fseq = dict(zip(fseqs, snapshots))
                matched = 0
                for line in lines:
                    cursors = dict(by_fseq[line["frame"] + 1])
                    live = [t for t in line["touches"] if active(t)]
                    self.assertEqual(sorted(cursors), sorted(t["id"] for t in live))
                    for t in live:
                        x, y = cursors[t["id"]]
                        self.assertAlmostEqual(x, t["x_mm"] / width, delta=1e-4)
                        self.assertAlmostEqual(y, t["y_mm"] / height, delta=1e-4)
                        matched += 1
                self.assertGreater(matched, 100)


if __name__ == "__main__":
    unittest.main()
