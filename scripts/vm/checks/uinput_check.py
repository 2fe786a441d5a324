"""Reads the multi-touch device `panelctl stream --uinput` creates with
python-evdev and checks it against the NDJSON reports of the same run:
capabilities (INPUT_PROP_DIRECT, slots, axes, resolution), then every
multi-touch state the device went through (tracking ids, positions in
0.01 mm, pressure in mN) and the single-touch emulation."""

import errno
import json
import os
import select
import signal
import subprocess
import sys
import threading

import evdev
from evdev import ecodes as e

PANELCTL = os.environ["PANELCTL"]
REPO = os.environ["REPO"]
# The run is idle for 2 s before the first touch and 1.5 s after the last
# one (time to read everything before the device goes away: a destroyed
# device's unread events are lost). The check does not rely on the first
# margin: panelctl is stopped (SIGSTOP) as soon as it names its device,
# the device is opened and found untouched, and only then does panelctl
# go on (SIGCONT), so however slow the emulated machine, the reader sees
# every event the run makes.
ARGS = ["stream", "--board", "boards/sim-grid.toml", "--scenario", "scenarios/two-finger-press.toml",
        "--speed", "1", "--duration", "5", "--uinput"]
WIDTH, HEIGHT, MAX_PRESSURE = 16000, 12000, 5336  # sim-grid: 160 x 120 mm; 6.67 x 0.8 N


def fail(message):
    print("FAILED:", message)
    running = globals().get("proc")
    if running is not None and running.poll() is None:
        running.kill()  # also when stopped: SIGKILL ends a stopped process
    sys.exit(1)


print("$ panelctl " + " ".join(ARGS))
proc = subprocess.Popen([PANELCTL] + ARGS, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
stdout = []
reader = threading.Thread(target=lambda: stdout.extend(proc.stdout), daemon=True)
reader.start()
first = proc.stderr.readline()
print(first.rstrip())
if "/dev/input/event" not in first:
    fail("panelctl did not name its event node")
proc.send_signal(signal.SIGSTOP)
node = first.split(" is ")[1].split()[0]
dev = evdev.InputDevice(node)
print(f"device: {dev.name!r} at {dev.path}, props {dev.input_props(verbose=True)}")
# The device as it is now, before any event was read: no touch yet.
if e.BTN_TOUCH in dev.active_keys():
    fail("the device was already touched when it was opened: events were missed")
proc.send_signal(signal.SIGCONT)

# What the device says it is.
if e.INPUT_PROP_DIRECT not in dev.input_props():
    fail("no INPUT_PROP_DIRECT")
caps = dev.capabilities(absinfo=True)
if e.BTN_TOUCH not in caps.get(e.EV_KEY, []):
    fail("no BTN_TOUCH")
absinfo = dict(caps[e.EV_ABS])
expected = {
    e.ABS_MT_SLOT: (0, 9, 0), e.ABS_MT_TRACKING_ID: (0, 65535, 0),
    e.ABS_MT_POSITION_X: (0, WIDTH, 100), e.ABS_MT_POSITION_Y: (0, HEIGHT, 100),
    e.ABS_MT_PRESSURE: (0, MAX_PRESSURE, 0), e.ABS_X: (0, WIDTH, 100), e.ABS_Y: (0, HEIGHT, 100),
    e.ABS_PRESSURE: (0, MAX_PRESSURE, 0)}
for code, (lo, hi, res) in expected.items():
    info = absinfo.get(code)
    if info is None or (info.min, info.max, info.resolution) != (lo, hi, res):
        fail(f"{e.ABS[code]}: {info}, expected min {lo} max {hi} resolution {res}")
print("capabilities: " + ", ".join(f"{e.ABS[c]} {absinfo[c].min}..{absinfo[c].max}" for c in expected))

# Every event until the device goes away (ENODEV) with panelctl's exit.
events = []
while True:
    ready, _, _ = select.select([dev.fd], [], [], 0.2)
    try:
        if ready:
            batch = list(dev.read())
            if any(ev.type == e.EV_SYN and ev.code == e.SYN_DROPPED for ev in batch):
                fail("SYN_DROPPED: the device's buffer overflowed, events were lost")
            events.extend(batch)
    except BlockingIOError:
        pass
    except OSError as error:
        if error.errno != errno.ENODEV:
            raise
        break
    if not ready and proc.poll() is not None:
        break
proc.wait()
reader.join()
rest = proc.stderr.read()
print(rest.rstrip())
if proc.returncode != 0:
    fail(f"panelctl exited {proc.returncode}")
print(f"{len(events)} events read, {len(stdout)} report lines")

# The state after each SYN_REPORT, as a reader of the device sees it.
slots, slot = {}, 0
single = {"btn": 0, "x": 0, "y": 0, "p": 0}
seen = []
for ev in events:
    if ev.type == e.EV_ABS:
        if ev.code == e.ABS_MT_SLOT:
            slot = ev.value
        elif ev.code == e.ABS_MT_TRACKING_ID:
            if ev.value < 0:
                slots.pop(slot, None)
            else:
                slots[slot] = {"id": ev.value}
        elif ev.code in (e.ABS_MT_POSITION_X, e.ABS_MT_POSITION_Y, e.ABS_MT_PRESSURE):
            key = {e.ABS_MT_POSITION_X: "x", e.ABS_MT_POSITION_Y: "y", e.ABS_MT_PRESSURE: "p"}[ev.code]
            slots[slot][key] = ev.value
        elif ev.code in (e.ABS_X, e.ABS_Y, e.ABS_PRESSURE):
            single[{e.ABS_X: "x", e.ABS_Y: "y", e.ABS_PRESSURE: "p"}[ev.code]] = ev.value
    elif ev.type == e.EV_KEY and ev.code == e.BTN_TOUCH:
        single["btn"] = ev.value
    elif ev.type == e.EV_SYN and ev.code == e.SYN_REPORT:
        touches = tuple(sorted((s["id"], s["x"], s["y"], s["p"]) for s in slots.values()))
        st = (single["btn"], single["x"], single["y"], single["p"]) if single["btn"] else (0, single["p"])
        seen.append((touches, st))

# The same states from the NDJSON reports. The single-touch axes follow one
# touch, the oldest down when the pointer was up, until it ends; in that
# frame the pointer lifts, even with other touches down.
wanted = []
followed = None
for line in stdout:
    report = json.loads(line)
    live = [t for t in report["touches"] if t["phase"] not in ("ended", "cancelled")]
    touches = tuple(sorted(
        (t["id"] & 0xFFFF, round(t["x_mm"] * 100), round(t["y_mm"] * 100),
         min(MAX_PRESSURE, round(t["force_n"] * 1000))) for t in live))
    by_id = {t["id"]: t for t in live}
    if followed is not None and followed not in by_id:
        followed = None
        st = (0, 0)
    else:
        if followed is None and live:
            followed = min(by_id)
        if followed is not None:
            t = by_id[followed]
            st = (1, round(t["x_mm"] * 100), round(t["y_mm"] * 100),
                  min(MAX_PRESSURE, round(t["force_n"] * 1000)))
        else:
            st = (0, 0)
    wanted.append((touches, st))


def changes(states):
    out = []
    for s in states:
        if not out or out[-1] != s:
            out.append(s)
    return out


got, want = changes(seen), changes(wanted)
print(f"distinct states: device {len(got)}, reports {len(want)}")
for i, (a, b) in enumerate(zip(got, want)):
    if a != b:
        fail(f"state {i}: device {a}, reports {b}")
if len(got) != len(want):
    fail(f"device went through {len(got)} states, the reports {len(want)}")
ids = {t[0] for touches, _ in got for t in touches}
most = max(len(touches) for touches, _ in got)
peak = max(t[3] for touches, _ in got for t in touches)
print(f"tracking ids {sorted(ids)}, up to {most} at once, peak pressure {peak} mN: every state matches")
if most < 2 or len(ids) < 2:
    fail("the scenario should have two fingers down at once")
