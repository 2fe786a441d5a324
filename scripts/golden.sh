#!/usr/bin/env bash
# The golden outputs (Tests/Golden/outputs.sha256, checked by
# GoldenOutputTests in swift test): every report stream, recording,
# calibration record, certificate and evaluation table of the repository's
# scenarios and the evaluation's quick set, by SHA-256.
#
#   bash scripts/golden.sh check       # what swift test checks
#   bash scripts/golden.sh update      # rewrite the golden file after a change on purpose
#   bash scripts/golden.sh dump DIR    # write every output under DIR (check, too)
#
# To see what a change did: dump on the commit before and after, diff -r.
set -euo pipefail
cd "$(dirname "$0")/.."
filter=GoldenOutputTests
case "${1:-check}" in
  check) exec swift test --filter "$filter" ;;
  update) GOLDEN_UPDATE=1 exec swift test --filter "$filter" ;;
  dump)
    [ $# -eq 2 ] || { echo "usage: scripts/golden.sh dump DIR" >&2; exit 64; }
    mkdir -p "$2"
    GOLDEN_DUMP="$(cd "$2" && pwd)" exec swift test --filter "$filter" ;;
  *) echo "usage: scripts/golden.sh [check|update|dump DIR]" >&2; exit 64 ;;
esac
