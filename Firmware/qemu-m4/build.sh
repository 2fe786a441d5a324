#!/usr/bin/env bash
# Builds the firmware for QEMU's mps2-an386 board into OUT/firmware.elf:
# ForceCore, PanelTouch, CoreRunner and this folder's Swift as Embedded
# Swift (-Osize, -no-allocations), the start-up in C, linked by the Swift
# toolchain's ld.lld with libgcc (64-bit and double helpers) and newlib
# (memcpy, memset, sqrt, round) from Debian's gcc-arm-none-eabi and
# libnewlib-arm-none-eabi. OUT/firmware.map shows where every byte comes from.
#
#   Firmware/qemu-m4/build.sh OUT [--target armv7em|armv6m] [--cells 16|48|64|128|256]
#
# --target armv7em (the default) compiles for the board's Cortex-M4;
# armv6m for a Cortex-M0+ (its instruction set, which the M4 also runs: the
# M0+ build's instructions per frame are counted on the same emulated
# board). --cells sizes the core's per-cell storage (Capacity.cells; 256 by
# default) and the static storage of the run's state with it.
set -euo pipefail
out=${1:?usage: build.sh OUT [--target armv7em|armv6m] [--cells 16|48|64|128|256]}
shift
target=armv7em
cells=256
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --cells) cells=$2; shift 2 ;;
    *) echo "build.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
if ! command -v swiftc >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swiftc ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
tools=$(dirname "$(command -v swiftc)")  # the toolchain's clang and ld.lld
case "$target" in
  armv7em) cpu=cortex-m4 ;;
  armv6m) cpu=cortex-m0plus ;;
  *) echo "build.sh: --target is armv7em or armv6m" >&2; exit 64 ;;
esac
# The run state's static storage (startup.c; the firmware checks that the
# state fits): CoreRunState at each capacity, rounded up.
case "$cells" in
  16) defines=(-D FORCECORE_CELLS_16); state_kib=32 ;;
  48) defines=(-D FORCECORE_CELLS_48); state_kib=96 ;;
  64) defines=(-D FORCECORE_CELLS_64); state_kib=64 ;;
  128) defines=(-D FORCECORE_CELLS_128); state_kib=112 ;;
  256) defines=(); state_kib=192 ;;
  *) echo "build.sh: --cells is 16, 48, 64, 128 or 256" >&2; exit 64 ;;
esac
# -Osize, without LLVM's machine outliner (which -Osize turns on): it turns
# sequences the frame path's loops share into calls, a few hundred bytes
# of flash for a few percent more instructions a frame.
swift=(swiftc -target "$target-none-none-eabi" -Osize -g -enable-experimental-feature Embedded -wmo
  -parse-as-library -Xfrontend -no-allocations -Xfrontend -function-sections -Xllvm -enable-machine-outliner=never
  -package-name forcepanel -I "$out" ${defines[@]+"${defines[@]}"})
"${swift[@]}" -module-name ForceCore -emit-module -emit-module-path "$out/ForceCore.swiftmodule" \
  -c "$root"/Sources/ForceCore/*.swift -o "$out/ForceCore.o"
find "$root/Sources/PanelTouch" -name '*.swift' -print0 | sort -z | xargs -0 \
  "${swift[@]}" -module-name PanelTouch -emit-module -emit-module-path "$out/PanelTouch.swiftmodule" \
  -c -o "$out/PanelTouch.o"
"${swift[@]}" -module-name CoreRunner -emit-module -emit-module-path "$out/CoreRunner.swiftmodule" \
  -c "$root"/Sources/CoreRunner/*.swift -o "$out/CoreRunner.o"
"${swift[@]}" -enable-experimental-feature Extern -module-name Firmware \
  -c "$here"/*.swift -o "$out/Firmware.o"
gcc_flags=(-mthumb -mcpu=$cpu -mfloat-abi=soft)
"$tools/clang" --target=$target-none-eabi "${gcc_flags[@]}" -Os -g -ffreestanding -ffunction-sections -fdata-sections \
  -DRUN_STATE_BYTES="($state_kib * 1024)" -Wall -Werror -c "$here/startup.c" -o "$out/startup.o"
"$tools/ld.lld" -T "$here/link.ld" --gc-sections -Map "$out/firmware.map" -o "$out/firmware.elf" \
  "$out/startup.o" "$out/Firmware.o" "$out/CoreRunner.o" "$out/PanelTouch.o" "$out/ForceCore.o" \
  "$(arm-none-eabi-gcc "${gcc_flags[@]}" -print-file-name=libm.a)" \
  "$(arm-none-eabi-gcc "${gcc_flags[@]}" -print-file-name=libc.a)" \
  "$(arm-none-eabi-gcc "${gcc_flags[@]}" -print-libgcc-file-name)"
