import Foundation
import Testing

/// `panelctl scan` as a user runs it: bad input is one line naming the
/// field or the device, with a non-zero exit.
@Suite struct ScanCommandTests {
  @Test func aBusDeviceThatDoesNotExist() throws {
    let r = try Panelctl.run(["scan", "--bus", "/dev/i2c-250"])
    BadInputTests.expectOneLineError(r, contains: ["/dev/i2c-250", "does not exist"])
  }

  @Test func aBusGivenByNumberIsTheDevicePath() throws {
    let r = try Panelctl.run(["scan", "--bus", "250"])
    BadInputTests.expectOneLineError(r, contains: ["/dev/i2c-250"])
  }

  @Test func aFileThatIsNotAnI2CAdapter() throws {
    let r = try Panelctl.run(["scan", "--bus", "/dev/null"])
    BadInputTests.expectOneLineError(r, contains: ["/dev/null", "not an I2C adapter"])
  }

  @Test(arguments: [
    (["0x80"], "first address 0x80 is out of range (allowed: 0x00...0x7f)"),
    (["0x10", "200"], "last address 200 is out of range (allowed: 0x00...0x7f)"),
    (["zz"], "first address \"zz\" is not a number"),
    (["0x50", "0x20"], "first address 0x50 is after last address 0x20"),
    (["--channel", "8"], "--channel 8 is out of range (allowed: 0...7)"),
    (["--channel=-1"], "--channel -1 is out of range (allowed: 0...7)"),
    (["--mux", "0x20", "--channel", "1"], "--mux 0x20 is out of range (allowed: 0x70...0x77)"),
    (["--mux", "0x71"], "--mux needs --channel"),
  ])
  func anAddressOrChannelOutOfRange(arguments: [String], message: String) throws {
    let r = try Panelctl.run(["scan", "--bus", "/dev/i2c-250"] + arguments)
    BadInputTests.expectOneLineError(r, contains: [message], status: 64)
  }

  @Test(
    .enabled(if: !FileManager.default.fileExists(atPath: "/dev/i2c-1"), "this machine has /dev/i2c-1"),
    arguments: ["rpi4-nau7802x4", "rpi4-ads122c04x4", "rpi4-frame-grid"])
  func aRealBoardOnAMachineWithoutItsBus(name: String) throws {
    let r = try Panelctl.run(["scan", "--board", "boards/\(name).toml"])
    BadInputTests.expectOneLineError(
      r, contains: ["boards/\(name).toml:", "[frontend] bus", "I2C bus /dev/i2c-1 does not exist"])
  }

  @Test func boardAndBusTogether() throws {
    let r = try Panelctl.run(["scan", "--bus", "1", "--board", "boards/rpi4-nau7802x4.toml"])
    BadInputTests.expectOneLineError(r, contains: ["--bus and --board"], status: 64)
  }

  @Test func noBusAtAll() throws {
    let r = try Panelctl.run(["scan"])
    BadInputTests.expectOneLineError(r, contains: ["--bus"], status: 64)
  }
}

/// `panelctl scan --board` on a simulated twin: the real scan over the
/// simulated chips, wired as the board says.
@Suite struct ScanSimulatedBoardTests {
  @Test func theTwinsChipsAllAnswer() throws {
    let r = try Panelctl.run(["scan", "--board", "boards/sim-plate4-nau7802.toml"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("sim (simulated), mux 0x70 channel 3\n"))
    #expect(r.stdout.contains("0x2a  NAU7802       REV_ID 0x0f"))
    #expect(r.stdout.contains("  ok       sim mux 0x70 channel 3 address 0x2a (NAU7802)"))
    #expect(r.stdout.contains("  ok       sim address 0x50 (24C32)"))
    #expect(!r.stdout.contains("FAILED"))
  }

  @Test func theADS122C04TwinsChipsAreToldByRREG() throws {
    let r = try Panelctl.run(["scan", "--board", "boards/sim-plate4-ads122c04.toml", "0x40", "0x4f"])
    #expect(r.status == 0, "\(r.stderr)")
    for a in ["0x40", "0x41", "0x44", "0x45"] {
      #expect(r.stdout.contains(a + "  ADS122C04     config "))
      #expect(r.stdout.contains("  ok       sim address \(a) (ADS122C04)"))
    }
  }

  @Test func aChipThatDoesNotAnswerIsNamedByBusChannelAndAddress() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var text = try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4-nau7802.toml", encoding: .utf8)
    text = text.replacingOccurrences(of: "host_overhead_us = 200.0", with: "host_overhead_us = 200.0\nabsent = [2]")
    text = text.replacingOccurrences(of: "\"../scenarios/", with: "\"" + Panelctl.root + "/scenarios/")
    let board = try BadInputTests.write(text, "b.toml", in: dir)
    let r = try Panelctl.run(["scan", "--board", board, "0x2a", "0x2a"])
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: no answer from sim mux 0x70 channel 2 address 0x2a (NAU7802)\n")
    #expect(r.stdout.contains("  FAILED   no answer from sim mux 0x70 channel 2 address 0x2a (NAU7802)"))
    #expect(r.stdout.contains("  ok       sim mux 0x70 channel 3 address 0x2a (NAU7802)"))
  }
}
