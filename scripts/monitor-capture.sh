#!/usr/bin/env bash
# Runs `panelctl monitor` in a detached 80x24 tmux terminal on the simulated
# grid while two fingers press and slide (scenarios/two-finger-press.toml),
# and prints the screen at the moment finger 1 has reached STAGE (default
# peek) with finger 2 down. The capture in docs/streaming.md comes from it:
#   bash scripts/monitor-capture.sh [STAGE]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
apt_need tmux
stage=${1:-peek}
swift build --product panelctl >&2
bin="$(swift build --show-bin-path)/panelctl"
sock="panelctl-capture-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
tmux -L "$sock" new-session -d -x 80 -y 24 -s m -c "$PWD" \
  "$bin monitor --board boards/sim-grid.toml --scenario scenarios/two-finger-press.toml --speed 1 --refresh 20; sleep 60"
for _ in $(seq 1 400); do
  screen=$(tmux -L "$sock" capture-pane -p -t m)
  if grep -q "^    1 .* $stage\$" <<<"$screen" && grep -q "^    2 " <<<"$screen"; then
    printf '%s\n' "$screen"
    exit 0
  fi
  sleep 0.02
done
echo "monitor-capture: finger 1 never reached $stage with finger 2 down" >&2
exit 1
