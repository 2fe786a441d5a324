#!/usr/bin/env bash
# ForceCore on an emulated Cortex-M4, bit for bit against the host.
#
# Builds the firmware (Firmware/qemu-m4: ForceCore as Embedded Swift,
# -Osize, -no-allocations), records three simulated panels (a 4-cell plate,
# a 48-cell grid, a 256-cell grid; Firmware/scenarios), exports each
# recording with its board's core setup as a core script (`panelctl core
# export`), runs the script through the host's ForceCore (`panelctl core
# run`) and through the firmware on QEMU's mps2-an386 board, and fails
# unless the two traces are byte-identical. Nothing is compared with a
# stored file: both sides are computed from the same sources on every run.
#
# QEMU runs with -icount shift=0 (a fixed virtual time per instruction), so
# SysTick ticks inside ForcePipeline.process count instructions; the
# firmware measures a loop of known length to turn ticks into instructions.
# Prints instructions per frame and the stack used. With --figures, also
# ForceCore's flash and RAM on each of the four targets (the table in
# docs/performance.md).
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
[ -x "$panelctl" ] || swift build --product panelctl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

Firmware/qemu-m4/build.sh "$work/fw" >&2

# The 256-cell panel: sim-grid's cells, 16 x 16, and its true calibration.
sed -e 's/^name = "sim-grid"/name = "sim-grid256"/' -e 's/^cols = 8/cols = 16/' -e 's/^rows = 6/rows = 16/' \
  -e 's/^width_mm = .*/width_mm = 320.0/' -e 's/^height_mm = .*/height_mm = 320.0/' -e '/^scenario = /d' \
  boards/sim-grid.toml >"$work/sim-grid256.toml"
"$panelctl" sim truth --board "$work/sim-grid256.toml" --out "$work/sim-grid256-cal.toml"

# name board calibration scenario
panels=(
  "plate4 boards/sim-plate4.toml calibration/sim-plate4.toml Firmware/scenarios/plate.toml"
  "grid48 boards/sim-grid.toml calibration/sim-grid.toml Firmware/scenarios/grid.toml"
  "grid256 $work/sim-grid256.toml $work/sim-grid256-cal.toml Firmware/scenarios/grid.toml"
)
declare -A stats
for panel in "${panels[@]}"; do
  read -r name board cal scenario <<<"$panel"
  d="$work/$name"
  mkdir -p "$d"
  "$panelctl" record --board "$board" --calibration "$cal" --scenario "$scenario" --speed 0 --out "$d/rec.csv"
  "$panelctl" core export "$d/rec.csv" --board "$board" --calibration "$cal" >"$d/run.core"
  "$panelctl" core run "$d/run.core" >"$d/host.trace"
  status=0
  timeout 600 qemu-system-arm -M mps2-an386 -icount shift=0 -nographic -monitor none -serial none \
    -kernel "$work/fw/firmware.elf" \
    -semihosting-config "enable=on,target=native,arg=firmware,arg=$d/run.core,arg=$d/mcu.trace" \
    >"$d/mcu.out" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    cat "$d/mcu.out" >&2
    echo "firmware-check: $name: the emulated Cortex-M4 exited with status $status" >&2
    exit 1
  fi
  if ! cmp -s "$d/host.trace" "$d/mcu.trace"; then
    echo "firmware-check: $name: the Cortex-M4's trace differs from the host's (< host, > Cortex-M4):" >&2
    diff "$d/host.trace" "$d/mcu.trace" | head -20 >&2 || true
    exit 1
  fi
  stats[$name]=$(grep '^firmware: frames' "$d/mcu.out")
  frames=$(($(wc -l <"$d/host.trace") - 1))
  touched=$(awk '$4 == 1' "$d/host.trace" | wc -l)
  contacts=$(awk '$7 > 1' "$d/host.trace" | wc -l)
  echo "firmware-check: $name: $frames frames ($touched touched, $contacts with several contacts): Cortex-M4 trace identical to the host's" >&2
done

# The measurements: instructions from SysTick ticks and the yardstick loop;
# time and rate at 120 MHz and one instruction per cycle (a floor: loads,
# branches and flash wait states take more).
echo "firmware-check: ForcePipeline.process on the emulated Cortex-M4 (QEMU -icount):" >&2
for panel in "${panels[@]}"; do
  read -r name _ <<<"$panel"
  echo "$name ${stats[$name]}"
done >"$work/stats"
python3 - "$work/stats" <<'PY'
import sys
print("| cells | instructions per frame: mean | largest frame | largest frame at 120 MHz | frame rate it sustains | process() stack | firmware stack high-water |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    name, rest = line.split(" ", 1)
    words = rest.split()
    f = {words[i]: int(words[i + 1]) for i in range(len(words) - 1) if words[i + 1].isdigit()}
    per_tick = f["yardstick_instructions"] / f["yardstick_ticks"]
    mean = f["process_ticks"] * per_tick / f["frames"]
    big = f["largest_frame_ticks"] * per_tick
    cells = {"plate4": "4 (plate)", "grid48": "48 (grid)", "grid256": "256 (grid)"}[name]
    print(f"| {cells} | {mean:,.0f} | {big:,.0f} | {big / 120:,.0f} us | {120e6 / big:,.0f} Hz "
          f"| {f['process_stack']:,} B | {f['stack_high_water']:,} B |")
PY
echo "firmware-check: ForcePipeline is $(sed -E 's/.* pipeline_bytes ([0-9]+).*/\1/' <<<"${stats[grid256]}") bytes on the Cortex-M4" >&2

[ "$figures" = 1 ] || exit 0

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
echo "firmware-check: the Cortex-M4 firmware image (Firmware/qemu-m4, everything linked):" >&2
elf_sections "$work/fw/firmware.elf" | awk '
  $1 ~ /^\.(text|rodata|ARM)/ { flash += $2 }
  $1 ~ /^\.data/ { flash += $2; ram += $2 }
  $1 ~ /^\.bss/ { ram += $2 }
  END { printf "flash (.text + .rodata + .data) %d B, RAM .data + .bss %d B\n", flash, ram }' >&2
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
