#!/usr/bin/env bash
# Compiles ForceCore, and CoreRunner (the frame loop the firmware runs), as
# Embedded Swift with -no-allocations at -Osize for four microcontroller
# targets: any heap allocation is a compile error, so this proves the core
# allocation-free where it is meant to run.
#   armv6m-none-none-eabi   Cortex-M0+ (RP2040)
#   armv7em-none-none-eabi  Cortex-M4F / M7 (STM32, nRF52)
#   riscv32-none-none-eabi  RV32 (ESP32-C3, GD32V)
#   aarch64-none-none-elf   Cortex-A53 and up, bare metal
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for target in armv6m-none-none-eabi armv7em-none-none-eabi riscv32-none-none-eabi aarch64-none-none-elf; do
  d="$out/$target"
  mkdir -p "$d"
  swift=(swiftc -target "$target" -Osize -enable-experimental-feature Embedded -wmo -parse-as-library
    -Xfrontend -no-allocations -I "$d")
  "${swift[@]}" -module-name ForceCore -emit-module -emit-module-path "$d/ForceCore.swiftmodule" \
    -c Sources/ForceCore/*.swift -o "$d/ForceCore.o"
  "${swift[@]}" -module-name CoreRunner -c Sources/CoreRunner/*.swift -o "$d/CoreRunner.o"
  text=$(elf_sections "$d/ForceCore.o" | awk '$1 ~ /^\.text/ { n += $2 } END { print n }')
  echo "ForceCore, CoreRunner: Embedded Swift -no-allocations for $target: ok (ForceCore .text $text bytes)" >&2
done
