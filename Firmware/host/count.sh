#!/usr/bin/env bash
# ForceCore's cost per frame on the host, over core scripts (docs/firmware.md,
# "Core script"): builds Main.swift against this tree's ForceCore, PanelTouch
# and CoreRunner (swiftc -O -wmo, as one program), then for each script
# prints instructions per frame in ForcePipeline.process (valgrind's
# callgrind, one pass) and the best wall-clock time of 5 passes.
#
#   Firmware/host/count.sh SCRIPT.core...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swift=(swiftc -O -wmo -parse-as-library -package-name forcepanel -I "$out")
"${swift[@]}" -module-name ForceCore -emit-module -emit-module-path "$out/ForceCore.swiftmodule" \
  -c "$root"/Sources/ForceCore/*.swift -o "$out/ForceCore.o"
find "$root/Sources/PanelTouch" -name '*.swift' -print0 | sort -z | xargs -0 \
  "${swift[@]}" -module-name PanelTouch -emit-module -emit-module-path "$out/PanelTouch.swiftmodule" \
  -c -o "$out/PanelTouch.o"
"${swift[@]}" -module-name HostCount "$root"/Sources/CoreRunner/*.swift "$here/Main.swift" \
  "$out/ForceCore.o" "$out/PanelTouch.o" -o "$out/host-count"
for script in "$@"; do
  frames=$(grep -c '^frame' "$script")
  collected=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" \
    --toggle-collect='$s9ForceCore0A8PipelineV7processyyAA8RawFrameVzF' "$out/host-count" "$script" 1 2>&1 |
    sed -n 's/.*Collected : //p')
  echo "$script: $((collected / frames)) instructions a frame in ForcePipeline.process (callgrind);" \
    "$("$out/host-count" "$script" 5)"
done
