#!/usr/bin/env python3
"""Per-member summary of a population evaluation, as docs/robustness.md shows it.

Usage: scripts/robustness-members.py DIR/evaluation.json [--counts]

Reads the `evaluation.json` that `panelctl sim evaluate --out DIR` writes and
prints one Markdown row per panel: calibration, taps against their
Cramer-Rao bound, the outer band (position, force, peek/pop), pairs, close
pairs, pinch, held fingers, parked objects, start-up. A figure that misses
its bar carries `!`. With --counts it prints the misses per scenario
instead (figures and panels).
"""
import json
import sys
from collections import Counter


def members(d):
    rows = []
    for p in d["panels"]:
        kind = "grid" if "grid" in p["kind"] or "grid" in p["name"] else "plate"
        sc = {s["name"]: s for s in p["scenarios"]}

        def mk(s, k, fmt="%.2f"):
            if s not in sc:
                return "-"
            v = sc[s]["metrics"].get(k)
            if v is None:
                return "-"
            return (fmt % v) + ("!" if k in sc[s]["misses"] else "")

        misses = sum(len(s["misses"]) for s in p["scenarios"])
        cal = p["calibration"]
        if not cal["passed"]:
            misses += 1
        calibration = "pass" if cal["passed"] else f"fail ({cal.get('failed_checks')})"
        pairs = "-" if "pairs" not in sc else " / ".join(
            [mk("pairs", "pairs_stable"), mk("pairs", "pairs_merged"),
             mk("pairs", "pairs_alternating"), mk("pairs", "id_swaps", "%d"),
             mk("pairs", "false_touches", "%d")])
        close = "-" if "close-pairs" not in sc else (
            mk("close-pairs", "pairs_alternating") + " / " + mk("close-pairs", "id_swaps", "%d"))
        pinch = "-" if "pinch" not in sc else (
            mk("pinch", "pairs_alternating") + " / " + mk("pinch", "id_swaps", "%d"))
        cells = [
            p["name"], kind, f"{p['rate_hz']:.0f}", calibration,
            mk("taps", "position_rms_mm"), mk("taps", "position_crb_mm"),
            mk("edges", "position_rms_mm"), mk("edges", "force_error_pct"),
            mk("edges", "peek_only") + " / " + mk("edges", "pop_once"),
            pairs, close, pinch, mk("held", "held_kept"),
            mk("held", "absorbed_s", "%.1f") + ", " + mk("parked", "absorbed_s", "%.1f"),
            mk("startup", "recall"), str(misses),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    head = ("| panel | kind | frames/s | calibration | taps pos mm | taps CRB mm | edges pos mm "
            "| edges force % | edges peek/pop | pairs 2 / merged / alt / swaps / false "
            "| close alt / swaps | pinch alt / swaps | held kept | absorbed s (held, parked) "
            "| start-up recall | misses |")
    rule = "|---|---|---:|---|---:|---:|---:|---:|---|---|---|---|---:|---|---:|---:|"
    return "\n".join([head, rule] + rows)


def counts(d):
    figures, panels = Counter(), Counter()
    order = []
    for p in d["panels"]:
        for s in p["scenarios"]:
            if s["name"] not in order:
                order.append(s["name"])
            figures[s["name"]] += len(s["misses"])
            panels[s["name"]] += 1 if s["misses"] else 0
        if not p["calibration"]["passed"]:
            figures["calibration"] += 1
            panels["calibration"] += 1
    order.append("calibration")
    lines = ["| scenario | figures missed | on panels |", "|---|---:|---:|"]
    lines += [f"| {n} | {figures[n]} | {panels[n]} |" for n in order]
    missed = {p["name"] for p in d["panels"]
              if not p["calibration"]["passed"] or any(s["misses"] for s in p["scenarios"])}
    lines.append(f"\nSeed {d['seed']}: {len(d['misses'])} scenario figures miss their bars and "
                 f"{figures['calibration']} calibrations fail a check; {len(missed)} of "
                 f"{len(d['panels'])} panels miss something.")
    return "\n".join(lines)


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = argv[1]
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 1
    try:
        print(counts(d) if "--counts" in argv[2:] else members(d))
    except BrokenPipeError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
