#!/usr/bin/env python3
"""Where a frame's instructions go on the emulated Cortex-M4.

Runs the firmware (Firmware/qemu-m4) on a core script under QEMU with
`-d exec,nochain,in_asm`: QEMU prints each translation block's
instructions when it translates it, and a line each time it executes one
(`nochain` so that no execution goes unlogged). Every execution inside a
frame (between the meter's reads of SysTick around the touch stack, or
with `--core` around ForcePipeline.process only) counts each instruction
of its block once; the instructions' addresses are mapped to functions and source
lines with the toolchain's `llvm-symbolizer`. Prints instructions per
frame by function and by source line (docs/firmware.md, "Where the
instructions go").

    Firmware/profile.py FIRMWARE.elf SCRIPT.core [--frames N] [--skip M] [--top K] [--core]
        [--within NAME [--addresses]]

`--frames N` runs the script's first N frames (default 400), `--skip M`
leaves the first M of them out of the counts (default 100: seeding and
the first frames' setup). The log streams through a pipe: nothing large is
written to disk.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("script")
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--skip", type=int, default=100)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--core", action="store_true", help="ForceCore's part of each frame only (ForcePipeline.process)")
    ap.add_argument("--within", help="only the lines of outermost functions whose name contains this")
    ap.add_argument("--addresses", action="store_true",
                    help="with --within: executions per instruction address, in address order")
    ap.add_argument("--qemu-machine", default="mps2-an386")
    a = ap.parse_args()

    work = tempfile.mkdtemp()
    try:
        script = os.path.join(work, "run.core")
        n = 0
        with open(a.script) as src, open(script, "w") as dst:
            for line in src:
                if line.startswith("frame"):
                    n += 1
                    if n > a.frames:
                        break
                dst.write(line)
        fifo = os.path.join(work, "log")
        os.mkfifo(fifo)
        qemu = subprocess.Popen(
            ["qemu-system-arm", "-M", a.qemu_machine, "-icount", "shift=0", "-nographic", "-monitor", "none",
             "-serial", "none", "-kernel", a.elf, "-d", "exec,nochain,in_asm", "-D", fifo,
             "-semihosting-config",
             f"enable=on,target=native,arg=firmware,arg={script},arg={os.path.join(work, 'trace')}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        blocks = {}        # block start -> [instruction addresses]
        counts = collections.Counter()  # block start -> executions inside the frame path
        current = None     # the block being disassembled
        inside = False
        marked = False
        ticks = 0
        frames = 0
        previous = ""
        exec_re = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] ?(\S*)")
        insn_re = re.compile(r"^0x([0-9a-f]+):")
        with open(fifo, errors="replace") as log:
            for line in log:
                if line.startswith("Trace"):
                    current = None
                    m = exec_re.match(line)
                    if not m:
                        continue
                    pc = int(m.group(1), 16)
                    symbol = m.group(2)
                    # A call is where the symbol changes (QEMU splits
                    # `systick_now` into blocks at its device read).
                    called = symbol != previous
                    previous = symbol
                    # Each frame: stack_mark, then systick_now four times:
                    # the frame starts, ForceCore starts, ForceCore ends,
                    # the frame ends (Firmware/qemu-m4/Main.swift's meter).
                    if symbol == "stack_mark":
                        marked = True
                        ticks = 0
                    elif symbol == "systick_now" and called and marked:
                        ticks += 1
                        if ticks == 1:
                            frames += 1
                        inside = frames > a.skip and (ticks == 2 if a.core else ticks in (1, 2, 3))
                        if ticks == 4:
                            marked = False
                        continue
                    if inside:
                        counts[pc] += 1
                elif line.startswith("IN:"):
                    current = None
                elif line.startswith("0x"):
                    m = insn_re.match(line)
                    if m:
                        addr = int(m.group(1), 16)
                        if current is None:
                            current = addr
                            blocks[addr] = []
                        blocks[current].append(addr)
                elif line.startswith("----"):
                    current = None
        qemu.wait()
        measured = frames - a.skip
        if measured <= 0:
            sys.exit(f"profile: only {frames} frames ran; nothing measured")
        per_insn = collections.Counter()
        for pc, k in counts.items():
            for addr in blocks.get(pc, []):
                per_insn[addr] += k
        symbolizer = shutil.which("llvm-symbolizer") or os.path.join(
            os.path.dirname(shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"), "llvm-symbolizer")
        addrs = sorted(per_insn)
        out = subprocess.run([symbolizer, "--obj", a.elf, "--functions=linkage", "--no-demangle", "--inlines"],
                             input="\n".join(hex(x) for x in addrs) + "\n", capture_output=True, text=True).stdout
        records = [r.strip().split("\n") for r in out.strip().split("\n\n")]
        by_function = collections.Counter()
        by_line = collections.Counter()
        demangle = os.path.join(os.path.dirname(symbolizer), "swift-demangle")
        names = sorted({rec[-2] for rec in records if len(rec) >= 2})
        pretty = dict(zip(names, subprocess.run(
            [demangle, "--simplified"], input="\n".join(names) + "\n", capture_output=True, text=True
        ).stdout.split("\n"))) if os.path.exists(demangle) else {}
        for addr, rec in zip(addrs, records):
            k = per_insn[addr]
            # The innermost inlined frame is first: its line is where the
            # instruction comes from; the outermost function is what ran.
            outer = rec[-2] if len(rec) >= 2 else "?"
            if a.within and a.within not in pretty.get(outer, outer):
                continue
            line = rec[1] if len(rec) > 1 else "?"
            line = re.sub(r"^.*/(Sources|Firmware)/", r"\1/", line)
            line = re.sub(r":\d+$", "", line)  # drop the column
            by_line[line] += k
            by_function[outer] += k
        total = sum(per_insn.values())
        if a.addresses and a.within:
            for addr, rec in zip(addrs, records):
                outer = rec[-2] if len(rec) >= 2 else "?"
                if a.within in pretty.get(outer, outer):
                    print(f"{addr:08x} {per_insn[addr] / measured:8.1f}")
            return
        print(f"{measured} frames (of {frames}; the first {a.skip} left out): {total / measured:,.0f} instructions a frame")
        print("\nby function (outermost, inlined code counted where it was inlined):")
        for name, k in by_function.most_common(a.top):
            print(f"{k / measured:10,.0f}  {100 * k / total:5.1f} %  {pretty.get(name, name)[:110]}")
        print("\nby source line (innermost):")
        for line, k in by_line.most_common(a.top):
            print(f"{k / measured:10,.0f}  {100 * k / total:5.1f} %  {line}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
