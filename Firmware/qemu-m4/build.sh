#!/usr/bin/env bash
# Builds the Cortex-M4 firmware (QEMU's mps2-an386) into OUT/firmware.elf:
# ForceCore, PanelTouch, CoreRunner and this folder's Swift as Embedded
# Swift (-Osize, -no-allocations), the start-up in C, linked by the Swift
# toolchain's ld.lld with libgcc (64-bit and double helpers) and newlib
# (memcpy, memset, sqrt, round) from Debian's gcc-arm-none-eabi and
# libnewlib-arm-none-eabi. OUT/firmware.map shows where every byte comes from.
#
#   Firmware/qemu-m4/build.sh OUT
set -euo pipefail
out=${1:?usage: build.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
if ! command -v swiftc >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swiftc ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
tools=$(dirname "$(command -v swiftc)")  # the toolchain's clang and ld.lld
swift=(swiftc -target armv7em-none-none-eabi -Osize -g -enable-experimental-feature Embedded -wmo
  -parse-as-library -Xfrontend -no-allocations -Xfrontend -function-sections -package-name forcepanel -I "$out" ${FIRMWARE_SWIFT_FLAGS:-})
"${swift[@]}" -module-name ForceCore -emit-module -emit-module-path "$out/ForceCore.swiftmodule" \
  -c "$root"/Sources/ForceCore/*.swift -o "$out/ForceCore.o"
find "$root/Sources/PanelTouch" -name '*.swift' -print0 | sort -z | xargs -0 \
  "${swift[@]}" -module-name PanelTouch -emit-module -emit-module-path "$out/PanelTouch.swiftmodule" \
  -c -o "$out/PanelTouch.o"
"${swift[@]}" -module-name CoreRunner -emit-module -emit-module-path "$out/CoreRunner.swiftmodule" \
  -c "$root"/Sources/CoreRunner/*.swift -o "$out/CoreRunner.o"
"${swift[@]}" -enable-experimental-feature Extern -module-name Firmware \
  -c "$here"/*.swift -o "$out/Firmware.o"
gcc_flags=(-mthumb -mcpu=cortex-m4 -mfloat-abi=soft)
"$tools/clang" --target=armv7em-none-eabi "${gcc_flags[@]}" -Os -g -ffreestanding -ffunction-sections -fdata-sections \
  -Wall -Werror -c "$here/startup.c" -o "$out/startup.o"
"$tools/ld.lld" -T "$here/link.ld" --gc-sections -Map "$out/firmware.map" -o "$out/firmware.elf" \
  "$out/startup.o" "$out/Firmware.o" "$out/CoreRunner.o" "$out/PanelTouch.o" "$out/ForceCore.o" \
  "$(arm-none-eabi-gcc "${gcc_flags[@]}" -print-file-name=libm.a)" \
  "$(arm-none-eabi-gcc "${gcc_flags[@]}" -print-file-name=libc.a)" \
  "$(arm-none-eabi-gcc "${gcc_flags[@]}" -print-libgcc-file-name)"
