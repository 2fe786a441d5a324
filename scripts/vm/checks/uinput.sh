#!/usr/bin/env bash
# The real Linux input path: `panelctl stream --uinput` creates a multi-touch
# device through /dev/uinput (the uinput module of the booted Debian kernel)
# while two fingers press and slide on the simulated grid; python-evdev
# reads the device's events and checks them against the NDJSON reports of
# the same run (uinput_check.py).
set -euo pipefail
modprobe uinput
[ -c /dev/uinput ] || { echo "no /dev/uinput after modprobe uinput"; exit 1; }
PY=$REPO/.build-vm/venv/bin/python
"$PY" -c "import evdev" 2>/dev/null || { echo "python-evdev missing from $PY: run scripts/vm/run.sh --setup"; exit 1; }
exec "$PY" "$REPO/scripts/vm/checks/uinput_check.py"
