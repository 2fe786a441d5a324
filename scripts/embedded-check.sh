#!/usr/bin/env bash
# Compiles ForceCore, PanelTouch (tracker, stage machine, regions, the
# frame report: peek and pop) and CoreRunner (the touch stack's loop the
# firmware runs) as Embedded Swift with -no-allocations at -Osize for the host and
# four microcontroller targets: any heap allocation is a compile error, so
# this proves the core and the touch layer allocation-free where they are
# meant to run.
#   (host)                  the machine this runs on, e.g. x86_64-unknown-linux-gnu
#   armv6m-none-none-eabi   Cortex-M0+ (RP2040)
#   armv7em-none-none-eabi  Cortex-M4F / M7 (STM32, nRF52)
#   riscv32-none-none-eabi  RV32 (ESP32-C3, GD32V)
#   aarch64-none-none-elf   Cortex-A53 and up, bare metal
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
host="$(uname -m)-unknown-linux-gnu"
for target in "$host" armv6m-none-none-eabi armv7em-none-none-eabi riscv32-none-none-eabi aarch64-none-none-elf; do
  d="$out/$target"
  mkdir -p "$d"
  # ForceCore and CoreRunner as a firmware project takes them: alone, with
  # no package name (so neither may use `package` access).
  swift=(swiftc -target "$target" -Osize -enable-experimental-feature Embedded -wmo -parse-as-library
    -Xfrontend -no-allocations -I "$d")
  "${swift[@]}" -module-name ForceCore -emit-module -emit-module-path "$d/ForceCore.swiftmodule" \
    -c Sources/ForceCore/*.swift -o "$d/ForceCore.o"
  find Sources/PanelTouch -name '*.swift' -print0 | sort -z | xargs -0 \
    "${swift[@]}" -package-name forcepanel -module-name PanelTouch -emit-module -emit-module-path "$d/PanelTouch.swiftmodule" \
    -c -o "$d/PanelTouch.o"
  "${swift[@]}" -module-name CoreRunner -c Sources/CoreRunner/*.swift -o "$d/CoreRunner.o"
  core=$(elf_sections "$d/ForceCore.o" | awk '$1 ~ /^\.text/ { n += $2 } END { print n }')
  touch=$(elf_sections "$d/PanelTouch.o" | awk '$1 ~ /^\.text/ { n += $2 } END { print n }')
  echo "ForceCore, CoreRunner, PanelTouch: Embedded Swift -no-allocations for $target: ok" \
    "(.text: ForceCore $core bytes, PanelTouch $touch bytes)" >&2
done
