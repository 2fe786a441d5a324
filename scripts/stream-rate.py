#!/usr/bin/env python3
"""Wall-clock frame rate of a panelctl command that prints one line per frame.

Usage: scripts/stream-rate.py panelctl stream --board B.toml --idle --duration 10 --speed 1
Skips the first 100 lines (bring-up, pacing start) and prints the rate over the rest.
"""
import subprocess, sys, time
cmd = sys.argv[1:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
t = []
for line in p.stdout:
    t.append(time.monotonic())
p.wait()
skip = 100
n = len(t) - skip
print(f"lines {len(t)}; wall rate over lines {skip}..{len(t)}: {(n-1)/(t[-1]-t[skip]):.1f} /s; rc {p.returncode}; stderr {p.stderr.read()!r}")
