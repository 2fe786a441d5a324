import CI2C
import Glibc
import Testing

enum StubBus {
  static var path: String? {
    guard let v = getenv("PANEL_I2C_STUB_BUS") else { return nil }
    return String(cString: v)
  }
}

@testable import PanelFirmware

/// The real kernel's I2C path, run inside the VM by
/// scripts/vm/checks/i2c-stub.sh (skipped elsewhere): i2c-stub emulates a
/// chip at 0x2a on an SMBus-only adapter, seeded with a NAU7802's
/// registers; `PANEL_I2C_STUB_BUS` names its /dev/i2c-N.
@Suite(.enabled(if: StubBus.path != nil, "only in the VM: PANEL_I2C_STUB_BUS names the i2c-stub bus"))
struct I2CStubKernelTests {
  static var bus: String? { StubBus.path }

  @Test func theStubIsAnSMBusOnlyAdapterThatRefusesI2CRDWR() throws {
    let path = try #require(Self.bus)
    let bus = try LinuxI2CBus(path: path)
    #expect(!bus.usesCombinedTransfers)
    #expect(bus.functionality.contains([.smbusReadByteData, .smbusReadI2CBlock, .smbusWriteI2CBlock]))
    #expect(!bus.functionality.contains(.i2c))
    // What LinuxI2CBus avoids: a combined transfer on the stub.
    let fd = open(path, O_RDWR)
    defer { close(fd) }
    var pointer: UInt8 = 0x1f
    var value: UInt8 = 0
    let result = withUnsafeMutablePointer(to: &pointer) { w in
      withUnsafeMutablePointer(to: &value) { r in
        var messages = [
          i2c_msg(addr: 0x2a, flags: 0, len: 1, buf: w), i2c_msg(addr: 0x2a, flags: ci2c_flag_read, len: 1, buf: r),
        ]
        return ci2c_rdwr(fd, &messages, 2)
      }
    }
    #expect(result == -1 && errno == EOPNOTSUPP)
  }

  @Test func theDriversRegisterReadsGoThroughSMBus() throws {
    var bus = try LinuxI2CBus(path: try #require(Self.bus))
    let nau = NAU7802.address
    // REV_ID (byte data read), PU_CTRL as its register type.
    #expect(try RegisterIO.read(0x1F, at: nau, on: &bus) == 0x0F)
    let pu = NAU7802.PUCtrl(rawValue: try RegisterIO.read(NAU7802.PUCtrl.address, at: nau, on: &bus))
    #expect(pu.powerUpDigital && pu.powerUpAnalog && pu.powerUpReady && pu.conversionReady)
    // ADCO_B2..B0 as one 3-byte burst (SMBus I2C block read), sign-extended.
    var adc: (UInt8, UInt8, UInt8) = (0, 0, 0)
    try withUnsafeMutableBytes(of: &adc) { (p) throws(I2CError) in try RegisterIO.read(0x12, into: p, at: nau, on: &bus) }
    #expect(adc == (0x80, 0x00, 0x01))
    #expect(Int32(bitPattern: (UInt32(adc.0) << 24) | (UInt32(adc.1) << 16) | (UInt32(adc.2) << 8)) >> 8 == -8_388_607)
    // A register write (byte data) reads back.
    var ctrl1 = NAU7802.Ctrl1()
    ctrl1.gain = .x128
    try RegisterIO.write(NAU7802.Ctrl1.address, ctrl1.rawValue, at: nau, on: &bus)
    #expect(try RegisterIO.read(NAU7802.Ctrl1.address, at: nau, on: &bus) == ctrl1.rawValue)
  }

  @Test func anAddressTheStubDoesNotEmulateIsANack() throws {
    var bus = try LinuxI2CBus(path: try #require(Self.bus))
    #expect(throws: I2CError.nack(0x2b)) { try RegisterIO.read(0x00, at: 0x2b, on: &bus) }
    #expect(BusScanner.probe(0x2b, on: &bus) == .absent)
    #expect(BusScanner.probe(0x2a, on: &bus) == .present(ChipIdentity(kind: .nau7802, evidence: "REV_ID 0x0f")))
  }
}
