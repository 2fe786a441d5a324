#!/usr/bin/env bash
# Everything CI checks: installs what is missing, builds, starts a
# throw-away PostgreSQL cluster for the factory database, runs every test
# (swift test), checks every import against the module graph in
# Package.swift, proves ForceCore and PanelTouch allocation-free by
# compiling them as Embedded Swift with -no-allocations for the host and
# four microcontroller targets, runs ForceCore on an emulated Cortex-M4
# against the host, and fuzzes each reader of outside input for a short
# fixed number of runs. The benchmarks are
# compiled, not run (timing belongs in docs/performance.md, not in a
# pass/fail check).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
build_deps
apt_need tmux  # MonitorTests draw the live view in a real terminal

stage "the repository stands alone: its docs and sources refer to nothing outside it"
if grep -rn "CONTRACTS.md\|shared/reference\|host-and-rigs" README.md docs Sources; then
  echo "scripts/test.sh: the lines above refer to files that are not in the repository" >&2
  exit 1
fi

stage "the module graph: every import in Sources/ is one Package.swift allows (scripts/check-imports.sh)"
bash scripts/check-imports.sh

stage "one way to the kernel: files, sockets, poll and pipes only through the syscall shims (scripts/check-kernel-calls.sh)"
bash scripts/check-kernel-calls.sh

# Each configuration is built once: the debug build with its tests (swift
# test, the VM), the release panelctl (the host-side and timing checks,
# scripts/run.sh).
stage "build: debug with the tests"
swift build --build-tests
stage "build: release panelctl (what scripts/run.sh runs; the host-side and timing checks drive it)"
swift build -c release --product panelctl
RELEASE_PANELCTL="$(swift build -c release --show-bin-path)/panelctl"

stage "docs claims: every panelctl command line in README and docs/ parses, every claim in docs/claims.toml holds"
PANELCTL="$(swift build --show-bin-path)/panelctl" python3 scripts/docs-claims.py

stage "a throw-away PostgreSQL cluster for the factory database's tests (scripts/postgres.sh), stopped at the end"
postgres_deps
FACTORY_TEST_PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/forcepanel-pg.XXXXXX")
stop_postgres() {
  bash scripts/postgres.sh stop "$FACTORY_TEST_PGDIR" >/dev/null 2>&1 || true
  rm -rf "$FACTORY_TEST_PGDIR"
}
trap stop_postgres EXIT
FACTORY_TEST_POSTGRES=$(bash scripts/postgres.sh start "$FACTORY_TEST_PGDIR")
export FACTORY_TEST_POSTGRES FACTORY_TEST_PGDIR

stage "swift test (the timing suites run alone below)"
swift test --skip-build --skip HoldUpTests --skip HostileFileTests

# The wall-clock bounds (frame gaps, SIGTERM, serve under floods) measure
# panelctl: they run alone, against the release binary, not beside 500
# other tests sharing the machine's cores.
stage "timing: the wall-clock suites alone, against the release panelctl (scripts/timing-tests.sh)"
PANELCTL="$RELEASE_PANELCTL" bash scripts/timing-tests.sh

stage "host side: TUIO through python-osc and python-tuio; the systemd unit; panelctl serve over WebSocket and in Chromium"
host_venv
browser_deps
PANELCTL="$RELEASE_PANELCTL" \
  "$HOST_VENV/bin/python" -m unittest discover -s Tests/host -t Tests/host -p 'test_*.py'

stage "real kernel paths in a VM: scripts/vm/run.sh (PANEL_VM=0 skips)"
if [ "${PANEL_VM:-1}" != 0 ]; then bash scripts/vm/run.sh; fi

stage "benchmarks compile (run: cd Benchmarks && swift package --disable-sandbox benchmark)"
swift build --package-path Benchmarks

stage "fuzzing: each reader of outside input, 20000 executions from its seeds (docs/reliability.md)"
bash scripts/fuzz.sh 20000

stage "Embedded Swift, -no-allocations: ForceCore and PanelTouch for the host and four microcontroller targets"
bash scripts/embedded-check.sh

stage "ForceCore on an emulated Cortex-M4 (QEMU), bit for bit against the host"
bash scripts/firmware-check.sh
stage "all checks passed"
