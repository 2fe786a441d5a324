#!/usr/bin/env bash
# The real Linux I2C path: i2c-stub emulates a chip at the NAU7802's address
# (0x2a) on an SMBus-only adapter, i2c-dev gives it /dev/i2c-N; panelctl
# finds it with `scan` and reads its registers through LinuxI2CBus's SMBus
# fallback (the stub refuses I2C_RDWR with EOPNOTSUPP).
set -euo pipefail
modprobe i2c-dev
modprobe i2c-stub chip_addr=0x2a
bus=""
for d in /sys/bus/i2c/devices/i2c-*; do
  if [ "$(cat "$d/name")" = "SMBus stub driver" ]; then bus=/dev/${d##*/}; fi
done
[ -n "$bus" ] || { echo "no SMBus stub adapter in /sys/bus/i2c/devices"; exit 1; }
n=${bus#/dev/i2c-}
echo "stub adapter: $bus (I2C_FUNCS: $(i2cdetect -F "$n" | grep -c yes) capabilities)"

# The stub's registers start at 0: give it what a NAU7802 holds after
# power-up. REV_ID (0x1F) = 0x0F; PU_CTRL (0x00) = PUD|PUA|PUR|CS|CR = 0x3e;
# ADCO (0x12..0x14) = 0x80 0x00 0x01 (-8388607, the most negative code + 1).
i2cset -y "$n" 0x2a 0x1f 0x0f
i2cset -y "$n" 0x2a 0x00 0x3e
i2cset -y "$n" 0x2a 0x12 0x80
i2cset -y "$n" 0x2a 0x13 0x00
i2cset -y "$n" 0x2a 0x14 0x01

fail() { echo "FAILED: $*"; exit 1; }

echo "\$ panelctl scan --bus $bus"
out=$("$PANELCTL" scan --bus "$bus")
echo "$out"
echo "$out" | grep -q '^20:.* 2a' || fail "0x2a missing from the table"
echo "$out" | grep -q '^0x2a  NAU7802 *REV_ID 0x0f' || fail "0x2a not identified as a NAU7802"
[ "$(echo "$out" | grep -c '^0x')" = 1 ] || fail "something other than 0x2a answered"

echo "\$ panelctl scan --bus $n 0x29 0x2b   (i2cdetect-style range)"
"$PANELCTL" scan --bus "$n" 0x29 0x2b

# A missing device and an empty address are errors naming the device.
set +e
msg=$("$PANELCTL" scan --bus /dev/i2c-9 2>&1); rc=$?
set -e
echo "\$ panelctl scan --bus /dev/i2c-9  ->  exit $rc: $msg"
[ "$rc" = 1 ] && echo "$msg" | grep -q '/dev/i2c-9' || fail "a missing bus was not reported"

# A board file on the stub bus: one NAU7802 at 0x2a, found; then the same
# board with an EEPROM at 0x50 that is not there, named by bus and address.
board() {
  cat <<TOML
[board]
name = "stub-nau7802"
[panel]
width_mm = 100.0
height_mm = 100.0
[[cell]]
x_mm = 50.0
y_mm = 50.0
[frontend]
kind = "nau7802"
bus = "$bus"
$1
[sampling]
rate_hz = 10
TOML
}
board "" >"$VM_TMP/stub.toml"
echo "\$ panelctl scan --board stub.toml 0x28 0x2f"
"$PANELCTL" scan --board "$VM_TMP/stub.toml" 0x28 0x2f

board $'[frontend.eeprom]\nkind = "24c02"\naddress = 0x50' >"$VM_TMP/stub-eeprom.toml"
set +e
out=$("$PANELCTL" scan --board "$VM_TMP/stub-eeprom.toml" 0x28 0x2f 2>&1); rc=$?
set -e
echo "\$ panelctl scan --board stub-eeprom.toml 0x28 0x2f  ->  exit $rc"
echo "$out" | grep -v '^panelctl: error' | tail -3
echo "$out" | grep '^panelctl: error'
[ "$rc" = 1 ] || fail "a missing EEPROM did not fail the scan"
echo "$out" | grep -q "^panelctl: error: no answer from $bus address 0x50 (24C02)" || fail "the missing EEPROM was not named"

# The driver's register reads through LinuxI2CBus on the real kernel
# (Tests/PanelHardwareTests/Linux/I2CStubKernelTests.swift).
# A filter that matches nothing passes too, so the count is checked.
expected_tests=3
echo "\$ swift-testing --filter I2CStubKernelTests (PANEL_I2C_STUB_BUS=$bus)"
set +e
out=$(PANEL_I2C_STUB_BUS=$bus "$TESTS" --testing-library swift-testing --filter I2CStubKernelTests 2>&1)
rc=$?
set -e
out=$(echo "$out" | sed 's/\x1b\[[0-9;]*m//g; s/Test run with/in-VM test run with/' | grep -v '^↳' || true)
echo "$out"
[ "$rc" = 0 ] || fail "I2CStubKernelTests failed (exit $rc)"
echo "$out" | grep -q "in-VM test run with $expected_tests tests .*passed" ||
  fail "expected $expected_tests I2CStubKernelTests to run and pass"
