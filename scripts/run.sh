#!/usr/bin/env bash
# The main job: build panelctl and stream the simulated plate's demo
# scenario (taps, a firm press through peek to pop, a sliding touch) as
# NDJSON reports. Any arguments replace the default ones.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
build_deps
swift build -c release --product panelctl >&2
if [ $# -eq 0 ]; then
  set -- stream --board boards/sim-plate4.toml
fi
exec .build/release/panelctl "$@"
