#!/usr/bin/env bash
# Instructions per frame on the benchmarks' own fixture, counted by
# valgrind's callgrind (x86-64, deterministic):
#
#   Benchmarks/count.sh [CELLS...]      ForceCore alone (default: 4 48 256):
#     builds Count/ForceCoreCount (release), runs it under callgrind,
#     collecting only inside its loop of 2000 frames after the seeding
#     pass, and prints instructions a frame.
#   Benchmarks/count.sh --path          the whole frame path, as
#     FramePathBenchmarks runs it (frame -> ForceCore -> contacts ->
#     tracker -> interaction -> NDJSON bytes) at 4 and 48 cells and at 256
#     cells with 10 touches: Count/FramePathCount, the same way; prints the
#     total and, inclusive, ForceCore's part (ForcePipeline.process) and
#     the rest.
#
# The fixture's hash is printed too: two trees that print the same hash
# ran the same frames (and the same output hash: made the same bytes).
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
frames=2000
if [ "${1:-}" = --path ]; then
  swift build -c release --product FramePathCount >&2
  # Debian 12's valgrind (3.19) cannot read the DWARF 5 a release build
  # carries: count a copy without it (the symbols stay).
  objcopy --strip-debug "$(swift build -c release --show-bin-path)/FramePathCount" "$out/count"
  for run in "4 0" "48 0" "256 10"; do
    set -- $run
    log=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" --toggle-collect='*countedFrames*' \
      "$out/count" "$1" "$2" "$frames" 2>&1)
    total=$(($(sed -n 's/.*Collected : //p' <<<"$log") / frames))
    core=$(callgrind_annotate --inclusive=yes --threshold=100 "$out/callgrind.out" |
      awk '!found && /s9ForceCore0A8PipelineV7processyyAA8RawFrameVzF / { gsub(",", "", $1); print $1; found = 1 }')
    core=$((core / frames))
    echo "$(grep '^cells' <<<"$log" | sed 's/ ns a frame.*//'): $total instructions a frame," \
      "ForceCore $core, the rest $((total - core))"
  done
  exit 0
fi
[ $# -gt 0 ] || set -- 4 48 256
swift build -c release --product ForceCoreCount >&2
bin="$(swift build -c release --show-bin-path)/ForceCoreCount"
# Debian 12's valgrind (3.19) cannot read the DWARF 5 a release build
# carries: count a copy without it (the symbols stay).
objcopy --strip-debug "$bin" "$out/count"
for cells in "$@"; do
  log=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" --toggle-collect='*countedFrames*' \
    "$out/count" "$cells" "$frames" 2>&1)
  collected=$(sed -n 's/.*Collected : //p' <<<"$log")
  echo "$(grep '^cells' <<<"$log"): $((collected / frames)) instructions a frame"
done
