#!/usr/bin/env bash
# Boots the Debian kernel once under virtme-ng (QEMU, software emulation) and
# runs every scripts/vm/checks/*.sh inside that one boot, against the host's
# own file system (read-only 9p root plus overlays) and the built panelctl.
#
#   bash scripts/vm/run.sh                 # every check
#   bash scripts/vm/run.sh i2c-stub ...    # only the named checks (file stems)
#   bash scripts/vm/run.sh --setup         # install what is missing, boot nothing
#
# Exit status: 0 when every check passed, 1 when one failed or the VM did not
# run to the end, 64 for a bad argument. The full console log is kept in
# .build-vm/last.log.
#
# A check is a bash script run as root inside the guest, in the repository
# root, with these in its environment:
#   PANELCTL   the panelctl binary built on the host (debug)
#   REPO       the repository root (read-only inside the guest)
#   VM_TMP     a writable scratch directory inside the guest
#   BUILD_DIR  the SwiftPM build directory (.build/debug)
#   TESTS      the Swift test bundle; a check runs suites that only the VM
#              enables with `"$TESTS" --testing-library swift-testing --filter NAME`
# It passes by exiting 0. Whatever it prints is shown with its name in front.
# Kernel modules come from the kernel being booted (modprobe works).
#
# Installs when missing: qemu-system-x86 linux-image-amd64 busybox-static kmod
# i2c-tools, python3-venv, and gcc with python3-dev (python-evdev has no wheel
# for Debian 12's Python and compiles) (apt); virtme-ng and python-evdev into
# .build-vm/venv (pip). KVM is not used: on this host it fails (QEMU MSR
# assertion, then a hang), so it runs under TCG.
#
# The guest runs as root whoever runs this script (vng --user root): the
# checks load modules and open /dev/uinput. The whole boot is limited to
# PANEL_VM_TIMEOUT seconds (600) and each check inside it to
# PANEL_VM_CHECK_TIMEOUT (240), so a hung boot or check fails in minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
. scripts/lib.sh

VM_DIR=$REPO/.build-vm
VENV=$VM_DIR/venv
VNG_VERSION=1.42
mkdir -p "$VM_DIR"

setup_only=0
selected=()
for a in "$@"; do
  case "$a" in
    --setup) setup_only=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "scripts/vm/run.sh: unknown option $a" >&2; exit 64 ;;
    *)
      if [ ! -f "scripts/vm/checks/$a.sh" ]; then
        echo "scripts/vm/run.sh: no check scripts/vm/checks/$a.sh" >&2; exit 64
      fi
      selected+=("$a") ;;
  esac
done

# --- what the VM needs ---------------------------------------------------
t0=$(date +%s)
apt_need qemu-system-x86 linux-image-amd64 busybox-static kmod i2c-tools python3-venv gcc python3-dev
if [ ! -x "$VENV/bin/vng" ]; then
  echo "installing virtme-ng $VNG_VERSION into $VENV (pip)" >&2
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION" >&2
fi
# python-evdev for checks/uinput.sh (the guest runs this venv's python).
if ! "$VENV/bin/python" -c "import evdev" >/dev/null 2>&1; then
  echo "installing python-evdev into $VENV (pip)" >&2
  "$VENV/bin/pip" install -q "evdev==2.0.0" >&2
fi
# The kernel linux-image-amd64 stands for (its Depends names the image
# package, linux-image-VERSION), not whatever sorts first in /boot: a
# Debian cloud image also has linux-image-VERSION-cloud-amd64, whose
# trimmed module set lacks i2c-stub and uinput.
image=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null | grep -o 'linux-image-[^ ,]*' | head -1 || true)
version=${image#linux-image-}
KERNEL=/boot/vmlinuz-$version
if [ -z "$version" ] || [ ! -f "$KERNEL" ] || [ ! -d "/lib/modules/$version/kernel" ]; then
  echo "scripts/vm/run.sh: linux-image-amd64 depends on '${image:-nothing}', but $KERNEL" \
    "or /lib/modules/$version is missing (apt-get install --reinstall $image)" >&2
  exit 1
fi
echo "== vm: setup $(( $(date +%s) - t0 )) s, kernel $KERNEL" >&2
[ "$setup_only" = 1 ] && exit 0

# --- what the checks run -------------------------------------------------
echo "== vm: build panelctl and the tests" >&2
swift build --build-tests >&2
BUILD_DIR=$(swift build --show-bin-path)

if [ ${#selected[@]} -eq 0 ]; then
  for f in scripts/vm/checks/*.sh; do selected+=("$(basename "$f" .sh)"); done
fi

# --- one boot, every check -----------------------------------------------
LOG=$VM_DIR/last.log
echo "== vm: boot (TCG), checks: ${selected[*]}" >&2
t1=$(date +%s)
set +e
# Piped through cat: QEMU's separate stdout/stderr handles would overwrite
# each other if both were redirected to one file. timeout ends a hung boot
# (SIGTERM, then SIGKILL 10 s later); it exits 124 then.
VM_TIMEOUT=${PANEL_VM_TIMEOUT:-600}
PATH="$VENV/bin:$PATH" timeout -k 10 "$VM_TIMEOUT" "$VENV/bin/vng" --disable-kvm --user root \
  --run "$KERNEL" --memory 1G --cpus 2 \
  --exec "PANEL_VM_CHECK_TIMEOUT=${PANEL_VM_CHECK_TIMEOUT:-240} bash $REPO/scripts/vm/guest.sh $REPO $BUILD_DIR ${selected[*]}" \
  2>&1 | cat >"$LOG"
rc=${PIPESTATUS[0]}
set -e
cat "$LOG"
secs=$(( $(date +%s) - t1 ))
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "== vm: FAILED: no end after ${VM_TIMEOUT} s (PANEL_VM_TIMEOUT), the VM was stopped; log: $LOG" >&2
  exit 1
fi
if ! grep -q '^== vm: guest done' "$LOG"; then
  echo "== vm: FAILED: the guest did not run to the end (vng exit $rc, ${secs} s); log: $LOG" >&2
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  echo "== vm: FAILED (${secs} s): $(grep -c '^== vm: FAIL' "$LOG") check(s) failed; log: $LOG" >&2
  exit 1
fi
echo "== vm: all checks passed (${secs} s)" >&2
