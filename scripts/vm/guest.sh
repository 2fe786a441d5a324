#!/usr/bin/env bash
# Runs inside the VM (started by scripts/vm/run.sh): every named check in
# turn, each line of its output prefixed with its name; exits non-zero when
# one failed. Each check is stopped after PANEL_VM_CHECK_TIMEOUT seconds
# (240; SIGTERM, SIGKILL 5 s later) and then fails. Arguments: REPO
# BUILD_DIR CHECK...
set -uo pipefail
REPO=$1
BUILD_DIR=$2
shift 2
export REPO BUILD_DIR PANELCTL=$BUILD_DIR/panelctl
export TESTS=$BUILD_DIR/ForcePanelPackageTests.xctest
export VM_TMP
VM_TMP=$(mktemp -d /tmp/vm-checks.XXXXXX)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
CHECK_TIMEOUT=${PANEL_VM_CHECK_TIMEOUT:-240}
cd "$REPO" || exit 1
echo "== vm: guest up: kernel $(uname -r), $(nproc) cpu"
passed=0
failed=0
for c in "$@"; do
  t0=$(date +%s)
  echo "== vm: check $c"
  timeout -k 5 "$CHECK_TIMEOUT" bash "scripts/vm/checks/$c.sh" 2>&1 | sed -u "s/^/[$c] /"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "== vm: FAIL $c (no end after $CHECK_TIMEOUT s, stopped)"
    failed=$((failed + 1))
  elif [ "$rc" -eq 0 ]; then
    echo "== vm: PASS $c ($(( $(date +%s) - t0 )) s)"
    passed=$((passed + 1))
  else
    echo "== vm: FAIL $c (exit $rc, $(( $(date +%s) - t0 )) s)"
    failed=$((failed + 1))
  fi
done
echo "== vm: guest done: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
