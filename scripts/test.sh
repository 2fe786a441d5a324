#!/usr/bin/env bash
# Everything CI checks: installs what is missing, builds, runs every test
# (swift test), and proves ForceCore allocation-free by compiling it as
# Embedded Swift with -no-allocations.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
build_deps

echo "== build" >&2
swift build --build-tests

echo "== swift test" >&2
swift test --skip-build

echo "== real kernel paths in a VM: scripts/vm/run.sh (PANEL_VM=0 skips)" >&2
if [ "${PANEL_VM:-1}" != 0 ]; then bash scripts/vm/run.sh; fi

echo "== Embedded Swift, -no-allocations: ForceCore" >&2
bash scripts/embedded-check.sh
echo "== all checks passed" >&2
