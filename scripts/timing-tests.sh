#!/usr/bin/env bash
# The timing tests: the bounds that are wall-clock figures (frame gaps
# against real time, SIGTERM within 100 ms, a hostile file refused within a
# second, report gaps and clients served while `serve` is flooded). They
# measure panelctl, so they drive the *release* binary (what a panel runs)
# and run alone, one after the other, never beside the rest of the suite.
#
#   bash scripts/timing-tests.sh           # what scripts/test.sh runs
#   TIMING_HOG=1 bash scripts/timing-tests.sh
#       the same with a busy loop on one core beside them (a shell
#       spinning for the whole run, pinned to CPU 1 with taskset where
#       there is one): every bound must hold with the machine's other
#       core busy (docs/reliability.md)
#
# Needs the debug test build (swift build --build-tests) and the release
# panelctl (swift build -c release --product panelctl); PANELCTL names
# another binary.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
PANELCTL=${PANELCTL:-"$(swift build -c release --show-bin-path)/panelctl"}
if [ ! -x "$PANELCTL" ]; then
  echo "scripts/timing-tests.sh: no release panelctl at $PANELCTL (swift build -c release --product panelctl)" >&2
  exit 1
fi
export PANELCTL
host_venv

if [ "${TIMING_HOG:-0}" = 1 ]; then
  if command -v taskset >/dev/null && taskset -c 1 true 2>/dev/null; then
    taskset -c 1 sh -c 'while :; do :; done' &
  else
    sh -c 'while :; do :; done' &
  fi
  hog=$!
  trap 'kill "$hog" 2>/dev/null || true' EXIT
  echo "== timing tests with a busy loop on one core beside them (pid $hog)" >&2
fi

echo "== timing: swift test --filter 'HoldUpTests|HostileFileTests' against $PANELCTL" >&2
swift test --skip-build --filter 'HoldUpTests|HostileFileTests'

echo "== timing: Tests/host/timing_*.py (panelctl serve under load and floods) against $PANELCTL" >&2
"$HOST_VENV/bin/python" -m unittest discover -v -s Tests/host -t Tests/host -p 'timing_*.py'
