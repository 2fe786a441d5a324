import CI2C
import Glibc
import PanelFirmware
import Testing

@testable import PanelHardware

enum StubBus {
  static var path: String? {
    guard let v = getenv("PANEL_I2C_STUB_BUS") else { return nil }
    return String(cString: v)
  }
}


/// The real kernel's I2C path, run inside the VM by
/// scripts/vm/checks/i2c-stub.sh (skipped elsewhere): i2c-stub emulates a
/// chip at 0x2a on an SMBus-only adapter, seeded with a NAU7802's
/// registers; `PANEL_I2C_STUB_BUS` names its /dev/i2c-N.
@Suite(.serialized, .enabled(if: StubBus.path != nil, "only in the VM: PANEL_I2C_STUB_BUS names the i2c-stub bus"))
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

  @Test func theNAU7802DriverWorksThroughSMBus() throws {
    let linux = try LinuxI2CBus(path: try #require(Self.bus))
    var bus = linux
    let nau = NAU7802()
    // REV_ID (read byte data); PU_CTRL as its register type.
    #expect(try RegisterIO.read(NAU7802.Register.revisionID.rawValue, at: nau.address, on: &bus) == 0x0F)
    let pu = try nau.read(NAU7802.PUCtrl.self, on: &bus)
    #expect(pu.powerUpDigital && pu.powerUpAnalog && pu.powerUpReady && pu.conversionReady)
    // The ready bit through the driver, then the 3-byte ADCO burst (I2C
    // block read) sign-extended.
    #expect(try nau.isConversionReady(on: &bus))
    #expect(try nau.readConversion(on: &bus) == -8_388_607)
    // configure: CTRL1+CTRL2 as one 3-byte write (I2C block write),
    // PU_CTRL, ADC, PGA, PWR_CTRL, PU_CTRL with CS; read back.
    let settings = NAU7802Settings()
    try nau.configure(settings, on: &bus)
    #expect(try nau.read(NAU7802.Ctrl1.self, on: &bus) == NAU7802.ctrl1(settings))
    #expect(try nau.read(NAU7802.Ctrl2.self, on: &bus) == NAU7802.ctrl2(settings))
    #expect(try nau.read(NAU7802.PUCtrl.self, on: &bus).cycleStart)
    #expect(try RegisterIO.read(NAU7802.Register.adc.rawValue, at: nau.address, on: &bus) == 0x30)
    // The stub is only memory: the written PU_CTRL has no CR.
    #expect(try !nau.isConversionReady(on: &bus))
  }

  @Test func anAddressTheStubDoesNotEmulateIsANack() throws {
    var bus = try LinuxI2CBus(path: try #require(Self.bus))
    #expect(throws: I2CError.nack(0x2b)) { try RegisterIO.read(0x00, at: 0x2b, on: &bus) }
    #expect(BusScanner.probe(0x2b, on: &bus) == .absent)
    #expect(BusScanner.probe(0x2a, on: &bus) == .present(ChipIdentity(kind: .nau7802, evidence: "REV_ID 0x0f")))
  }
}
