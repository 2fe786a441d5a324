#!/usr/bin/env bash
# ForceCore's x86-64 instructions per frame on the benchmarks' own fixture
# (ForceCoreBenchmarks' frames and setup), counted by valgrind's callgrind:
# builds Count/ForceCoreCount (release), then for each cell count runs it
# under callgrind, collecting only inside its loop of 2000 frames after the
# seeding pass, and prints instructions a frame. The fixture's hash is
# printed too: two trees that print the same hash ran the same frames.
#
#   Benchmarks/count.sh [CELLS...]      (default: 4 48 256)
set -euo pipefail
cd "$(dirname "$0")"
[ $# -gt 0 ] || set -- 4 48 256
swift build -c release --product ForceCoreCount >&2
bin="$(swift build -c release --show-bin-path)/ForceCoreCount"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Debian 12's valgrind (3.19) cannot read the DWARF 5 a release build
# carries: count a copy without it (the symbols stay).
objcopy --strip-debug "$bin" "$out/count"
frames=2000
for cells in "$@"; do
  log=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" --toggle-collect='*countedFrames*' \
    "$out/count" "$cells" "$frames" 2>&1)
  collected=$(sed -n 's/.*Collected : //p' <<<"$log")
  echo "$(grep '^cells' <<<"$log"): $((collected / frames)) instructions a frame"
done
