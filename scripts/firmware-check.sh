#!/usr/bin/env bash
# The touch stack on an emulated Cortex-M4, bit for bit against the host,
# within its instruction budgets.
#
# Builds the firmware (Firmware/qemu-m4: ForceCore, PanelTouch and
# CoreRunner as Embedded Swift, -Osize, -no-allocations), records three
# simulated panels (a 4-cell plate, a 48-cell grid, a 256-cell grid;
# Firmware/scenarios: presses, taps, slides, a dead cell, a parked load, a
# temperature ramp, with items and the host's control lines), exports each
# recording with its board's setup, items and control lines as a core
# script (`panelctl core export`), runs the script through the host's touch
# stack (`panelctl core run`) and through the firmware on QEMU's
# mps2-an386 board, and fails unless the two traces (ForceCore's line and
# the frame report of every frame) are byte-identical, unless they have at
# least one peek, one pop, one quick-actions event and one sensitivity
# change, and unless each recording's instructions per frame stay within
# its budget (Firmware/budgets.txt). Nothing is compared with a stored
# trace: both sides are computed from the same sources on every run.
#
# QEMU runs with -icount shift=0 (a fixed virtual time per instruction), so
# SysTick ticks inside a frame count instructions; the firmware measures a
# loop of known length to turn ticks into instructions. With --figures,
# also the firmware for a 48-cell core (its RAM), the Cortex-M0+ build's
# instructions per frame, ForceCore's flash and RAM on each of four targets
# and where the firmware's flash goes (the tables in docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
figures=0
case "${1:-}" in
  --figures) figures=1 ;;
  "") ;;
  *) echo "usage: scripts/firmware-check.sh [--figures]" >&2; exit 64 ;;
esac
apt_need qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi

panelctl="$(swift build --show-bin-path)/panelctl"
# Always brought up to date (a no-op when it is): an older binary left in
# .build would write the traces of older sources than the firmware's.
swift build --product panelctl >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

Firmware/qemu-m4/build.sh "$work/fw" >&2

# The 256-cell panel: sim-grid's cells, 16 x 16, and its true calibration.
sed -e 's/^name = "sim-grid"/name = "sim-grid256"/' -e 's/^cols = 8/cols = 16/' -e 's/^rows = 6/rows = 16/' \
  -e 's/^width_mm = .*/width_mm = 320.0/' -e 's/^height_mm = .*/height_mm = 320.0/' -e '/^scenario = /d' \
  boards/sim-grid.toml >"$work/sim-grid256.toml"
"$panelctl" sim truth --board "$work/sim-grid256.toml" --out "$work/sim-grid256-cal.toml"

# name board calibration scenario (Firmware/scenarios/NAME.toml, .regions.toml, .control)
panels=(
  "plate4 boards/sim-plate4.toml calibration/sim-plate4.toml Firmware/scenarios/plate"
  "grid48 boards/sim-grid.toml calibration/sim-grid.toml Firmware/scenarios/grid"
  "grid256 $work/sim-grid256.toml $work/sim-grid256-cal.toml Firmware/scenarios/grid"
)

# run_firmware ELF SCRIPT TRACE OUT: the firmware on the emulated board.
run_firmware() {
  local status=0
  timeout 900 qemu-system-arm -M mps2-an386 -icount shift=0 -nographic -monitor none -serial none \
    -kernel "$1" -semihosting-config "enable=on,target=native,arg=firmware,arg=$2,arg=$3" >"$4" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    cat "$4" >&2
    echo "firmware-check: $1 on $2: the emulated core exited with status $status" >&2
    exit 1
  fi
}

for panel in "${panels[@]}"; do
  read -r name board cal scenario <<<"$panel"
  d="$work/$name"
  mkdir -p "$d"
  "$panelctl" record --board "$board" --calibration "$cal" --scenario "$scenario.toml" --speed 0 --out "$d/rec.csv" \
    2>/dev/null
  "$panelctl" core export "$d/rec.csv" --board "$board" --calibration "$cal" \
    --regions "$scenario.regions.toml" --control "$scenario.control" >"$d/run.core"
  "$panelctl" core run "$d/run.core" >"$d/host.trace"
  run_firmware "$work/fw/firmware.elf" "$d/run.core" "$d/mcu.trace" "$d/mcu.out"
  if ! cmp -s "$d/host.trace" "$d/mcu.trace"; then
    echo "firmware-check: $name: the Cortex-M4's trace differs from the host's (< host, > Cortex-M4):" >&2
    diff "$d/host.trace" "$d/mcu.trace" | head -20 >&2 || true
    exit 1
  fi
  # What the recording must show: a frame report's events are
  # `<kind> <touch> <item> <origin>` after its touches (EventKind's raw
  # values: peek 0, pop 1, quick actions 4, sensitivity 9).
  events=$(awk '$1 == "report" { n = $7; i = 8 + 11 * n; m = $i; for (e = 0; e < m; e++) print $(i + 1 + 4 * e) }' \
    "$d/host.trace" | sort -n | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
  for kind in "0 peek" "1 pop" "4 quick actions" "9 sensitivity change"; do
    read -r code what <<<"$kind"
    if ! grep -q "\b$code:" <<<"$events"; then
      echo "firmware-check: $name: no $what in the frame reports (events by kind: $events)" >&2
      exit 1
    fi
  done
  frames=$(grep -c '^[0-9]' "$d/host.trace")
  reports=$(grep -c '^report' "$d/host.trace")
  touched=$(awk '$4 == 1' "$d/host.trace" | wc -l)
  echo "firmware-check: $name: $frames frames ($touched touched, $reports with a report; events by kind $events):" \
    "Cortex-M4 trace identical to the host's" >&2
  echo "$name $(grep '^firmware: frames' "$d/mcu.out")" >>"$work/stats"
done

# The measurements and the budgets: instructions from SysTick ticks and the
# yardstick loop; time and rate at 120 MHz and one instruction per cycle (a
# floor: loads, branches and flash wait states take more).
echo "firmware-check: the touch stack on the emulated Cortex-M4 (QEMU -icount), instructions per frame:" >&2
python3 - "$work/stats" Firmware/budgets.txt <<'PY'
import sys

def measures(path):
    out = {}
    for line in open(path):
        name, rest = line.split(" ", 1)
        w = rest.split()
        f = {w[i]: int(w[i + 1]) for i in range(len(w) - 1) if w[i + 1].isdigit()}
        per = f["yardstick_instructions"] / f["yardstick_ticks"]
        out[name] = f | {
            "stack": f["process_ticks"] * per / f["frames"], "stack_max": f["largest_frame_ticks"] * per,
            "core": f["core_ticks"] * per / f["frames"], "core_max": f["largest_core_ticks"] * per}
    return out

m = measures(sys.argv[1])
budgets = {}
for line in open(sys.argv[2]):
    line = line.split("#", 1)[0].split()
    if line:
        budgets[(line[0], line[1])] = int(line[2])
cells = {"plate4": "4 (plate)", "grid48": "48 (grid)", "grid256": "256 (grid)"}
print("| cells | touch stack: mean | largest frame | largest at 120 MHz | ForceCore alone: mean | largest frame "
      "| budget: stack / ForceCore | frame's stack |")
print("|---|---|---|---|---|---|---|---|")
over = []
for name, f in m.items():
    bs, bc = budgets.get((name, "stack")), budgets.get((name, "core"))
    print(f"| {cells[name]} | {f['stack']:,.0f} | {f['stack_max']:,.0f} | {f['stack_max'] / 120:,.0f} us "
          f"| {f['core']:,.0f} | {f['core_max']:,.0f} | {bs:,} / {bc:,} | {f['process_stack']:,} B |")
    if f["stack"] > bs:
        over.append(f"{name}: the touch stack takes {f['stack']:,.0f} instructions a frame, its budget is {bs:,}")
    if f["core"] > bc:
        over.append(f"{name}: ForceCore takes {f['core']:,.0f} instructions a frame, its budget is {bc:,}")
f = m["grid256"]
print(f"\nstatic state {f['state_bytes']:,} B (ForcePipeline {f['pipeline_bytes']:,} B), "
      f"stack high-water {f['stack_high_water']:,} B of {f['stack_size']:,} B", file=sys.stderr)
for o in over:
    print(f"firmware-check: over budget: {o} (Firmware/budgets.txt)", file=sys.stderr)
sys.exit(1 if over else 0)
PY

[ "$figures" = 1 ] || exit 0

# The same scripts on the firmware for a 48-cell core (Capacity.cells 48:
# its RAM) and on the Cortex-M0+ build (armv6m, run by the same emulated
# core: its instructions per frame); both traces still the host's.
Firmware/qemu-m4/build.sh "$work/fw48" --cells 48 >&2
Firmware/qemu-m4/build.sh "$work/fw-m0" --target armv6m >&2
: >"$work/stats-m0"
for panel in "${panels[@]}"; do
  read -r name _ <<<"$panel"
  d="$work/$name"
  if [ "$name" != grid256 ]; then
    run_firmware "$work/fw48/firmware.elf" "$d/run.core" "$d/mcu48.trace" "$d/mcu48.out"
    cmp -s "$d/host.trace" "$d/mcu48.trace" || { echo "firmware-check: $name: the 48-cell build's trace differs" >&2; exit 1; }
  fi
  run_firmware "$work/fw-m0/firmware.elf" "$d/run.core" "$d/m0.trace" "$d/m0.out"
  cmp -s "$d/host.trace" "$d/m0.trace" || { echo "firmware-check: $name: the Cortex-M0+ build's trace differs" >&2; exit 1; }
  echo "$name $(grep '^firmware: frames' "$d/m0.out")" >>"$work/stats-m0"
done
echo >&2
echo "firmware-check: the Cortex-M0+ build (armv6m) on the same emulated core, instructions per frame:" >&2
python3 - "$work/stats-m0" <<'PY'
import sys
print("| cells | touch stack: mean | largest frame | ForceCore alone: mean | largest frame |")
print("|---|---|---|---|---|")
cells = {"plate4": "4 (plate)", "grid48": "48 (grid)", "grid256": "256 (grid)"}
for line in open(sys.argv[1]):
    name, rest = line.split(" ", 1)
    w = rest.split()
    f = {w[i]: int(w[i + 1]) for i in range(len(w) - 1) if w[i + 1].isdigit()}
    per = f["yardstick_instructions"] / f["yardstick_ticks"]
    print(f"| {cells[name]} | {f['process_ticks'] * per / f['frames']:,.0f} | {f['largest_frame_ticks'] * per:,.0f} "
          f"| {f['core_ticks'] * per / f['frames']:,.0f} | {f['largest_core_ticks'] * per:,.0f} |")
PY

# RAM and flash of the whole stack at 48 and 256 cells: the firmware's
# image (its static state sized for the core's capacity) and what a frame
# needs of the stack.
echo >&2
echo "firmware-check: the Cortex-M4 firmware at 48 and 256 cells (everything linked):" >&2
printf '| core capacity | flash: .text + .rodata + .data | RAM: .data + .bss | of it the run state | ForcePipeline | stack high-water |\n|---|---|---|---|---|---|\n'
for build in "48 fw48 grid48" "256 fw grid256"; do
  read -r cap fw name <<<"$build"
  out="$work/$name/$([ "$fw" = fw48 ] && echo mcu48 || echo mcu).out"
  elf_sections "$work/$fw/firmware.elf" | awk -v cap="$cap" -v line="$(grep '^firmware: frames' "$out")" '
    $1 ~ /^\.(text|rodata|ARM)/ { flash += $2 }
    $1 ~ /^\.data/ { flash += $2; ram += $2 }
    $1 ~ /^\.bss/ { ram += $2 }
    END {
      n = split(line, w, " ")
      for (i = 1; i < n; i++) f[w[i]] = w[i + 1]
      printf "| %d cells | %d B | %d B | %d B | %d B | %d B |\n", cap, flash, ram, f["state_bytes"], f["pipeline_bytes"], f["stack_high_water"]
    }'
done

# Footprints: Firmware/probe (ForceCore, its state in static storage, set up
# from integers, one call per frame) on each target, linked with
# --gc-sections; compiler and C library helpers not included.
echo >&2
echo "firmware-check: ForceCore's footprint per target (Firmware/probe; -Osize; without compiler and C library helpers):" >&2
printf '| target | flash: .text + .rodata | RAM: .data + .bss |\n|---|---|---|\n'
for t in armv6m-none-none-eabi armv7em-none-none-eabi riscv32-none-none-eabi aarch64-none-none-elf; do
  p="$work/probe-$t"
  mkdir -p "$p"
  sw=(swiftc -target "$t" -Osize -enable-experimental-feature Embedded -wmo -parse-as-library
    -Xfrontend -no-allocations -Xfrontend -function-sections -package-name forcepanel -I "$p")
  "${sw[@]}" -module-name ForceCore -emit-module -emit-module-path "$p/ForceCore.swiftmodule" \
    -c Sources/ForceCore/*.swift -o "$p/ForceCore.o"
  "${sw[@]}" -module-name Probe -c Firmware/probe/Probe.swift -o "$p/Probe.o"
  "$SWIFT_TOOLS/ld.lld" --gc-sections --unresolved-symbols=ignore-all -e forcecore_frame --undefined=forcecore_setup \
    -o "$p/probe.elf" "$p/Probe.o" "$p/ForceCore.o"
  elf_sections "$p/probe.elf" | awk -v t="$t" '
    $1 ~ /^\.(text|rodata|srodata)/ { flash += $2 }
    $1 ~ /^\.(data|bss|sdata|sbss)/ { ram += $2 }
    END { printf "| %s | %d B | %d B |\n", t, flash, ram }'
done
echo >&2
echo "firmware-check: where the Cortex-M4 firmware's flash goes (256 cells):" >&2
python3 - "$work/fw/firmware.map" <<'PY' >&2
import collections, re, sys
# ld.lld's map: output sections at one indent, input sections below them.
share = collections.Counter()
section = None
for line in open(sys.argv[1]):
    m = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)", line)
    if not m:
        continue
    size, indent, what = int(m.group(1), 16), len(m.group(2)), m.group(3)
    if indent == 0:
        section = what
    elif indent == 8 and section in (".text", ".rodata", ".data") and ":(" in what:
        source = what.split(":(")[0].split("/")[-1]
        source = re.sub(r"\(.*\)$", "", source)  # libgcc.a(_udivmoddi4.o) -> libgcc.a
        share[source] += size
print("flash by input: " + ", ".join(f"{name} {n} B" for name, n in share.most_common()))
PY
