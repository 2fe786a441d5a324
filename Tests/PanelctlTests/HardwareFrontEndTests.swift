import Foundation
import Testing

/// Simulated twins driven through the real binary: stream, info, and bad
/// [frontend] input.
@Suite struct HardwareFrontEndTests {
  static func boardText(_ name: String) throws -> String {
    try String(contentsOfFile: Panelctl.root + "/boards/\(name).toml", encoding: .utf8)
      .replacingOccurrences(of: "\"../scenarios/", with: "\"\(Panelctl.root)/scenarios/")
  }

  @Test(arguments: ["sim-plate4-nau7802", "sim-plate4-ads122c04", "sim-grid-frame"])
  func twinsStreamTheDemoScenario(_ name: String) throws {
    let r = try Panelctl.run(["stream", "--board", "boards/\(name).toml", "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty)
    let lines = try ReportLine.decode(r.lines)
    let events = lines.flatMap(\.events).map(\.type)
    #expect(events.contains("peek") && events.contains("pop"))
  }

  /// Bring-up before calibration: `--uncalibrated` runs each twin on the
  /// nominal sensitivity its board file gives (chip gain and reference,
  /// the cells' rated output and capacity): touches with forces near the
  /// true ones, force `unavailable` (`no_calibration`), the touch-and-hold
  /// fallback instead of peek and pop. `monitor` too.
  @Test(arguments: ["sim-plate4-nau7802", "sim-plate4-ads122c04", "sim-grid-frame"])
  func twinsStreamUncalibrated(_ name: String) throws {
    let r = try Panelctl.run(["stream", "--board", "boards/\(name).toml", "--speed", "0", "--uncalibrated"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty)
    let lines = try InteractionLine.decode(r)
    let events = InteractionStreamTests.seen(lines)
    #expect(events.first?.type == "capability" && events.first?.extra == "unavailable no_calibration")
    #expect(events.contains { $0.type == "long_press" } && !events.contains { $0.type == "peek" || $0.type == "pop" })
    // Both demos press to 4.6 N; the nominal sensitivity is within 10 % of the twin's.
    let peak = try ReportLine.decode(r.lines).flatMap(\.touches).map(\.force_n).max() ?? 0
    #expect(peak > 4.6 * 0.85 && peak < 4.6 * 1.15, "peak \(peak) N")
    let monitor = try Panelctl.run(["monitor", "--board", "boards/\(name).toml", "--speed", "0", "--uncalibrated", "--frames", "200"])
    #expect(monitor.status == 0, "\(monitor.stderr)")
  }

  /// Without a calibration file the error says how to run without one.
  @Test func aMissingCalibrationNamesUncalibrated() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4-nau7802.toml", encoding: .utf8)
      .replacingOccurrences(of: "../scenarios/", with: Panelctl.root + "/scenarios/")
    let board = try BadInputTests.write(text, "twin.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", board, "--speed", "0", "--frames", "10"])
    BadInputTests.expectOneLineError(r, contains: ["no calibration for board \"sim-plate4-nau7802\"", "--calibration FILE", "--uncalibrated"])
  }

  /// `--fallback-calibration` stands in for a panel without a record (a
  /// twin's EEPROM starts blank) and cannot be combined with
  /// `--calibration`, which overrides the panel's record.
  @Test func aFallbackCalibrationStandsInForThePanelsRecord() throws {
    let twin = ["stream", "--board", "boards/sim-plate4-nau7802.toml", "--speed", "0", "--frames", "20"]
    let ok = try Panelctl.run(twin + ["--fallback-calibration", "calibration/sim-plate4-nau7802.toml"])
    #expect(ok.status == 0, "\(ok.stderr)")
    let missing = try Panelctl.run(twin + ["--fallback-calibration", "/nonexistent/cal.toml"])
    BadInputTests.expectOneLineError(missing, contains: ["no calibration", "looked for /nonexistent/cal.toml"])
    let both = try Panelctl.run(
      twin + ["--calibration", "calibration/sim-plate4-nau7802.toml", "--fallback-calibration", "x.toml"])
    #expect(both.status == 64 && both.stderr.contains("--fallback-calibration"), "\(both.stderr)")
  }

  @Test func idleFramesCountAsAsked() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4-nau7802.toml", "--speed", "0", "--idle", "--frames", "50"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.lines.count == 50)
  }

  @Test func infoIdentifiesChipsRegistersAndHealth() throws {
    let r = try Panelctl.run(["info", "--board", "boards/sim-plate4-nau7802.toml", "--frames", "32"])
    #expect(r.status == 0, "\(r.stderr)")
    for part in [
      "front end    nau7802 on sim (simulated) at 400 kHz, TCA9548A at 0x70, data ready on /dev/gpiochip0 lines 17, 27, 22, 23",
      "chips        4 x NAU7802: gain 128, 320 SPS, LDO 3.3 V",
      "timing       8 transfers, 308 bit times per frame: 2.38 ms",
      "chip 2       sim mux 0x70 channel 2 address 0x2a (NAU7802): ready",
      "PU_CTRL 0xbe (PUD PUA PUR CS CR AVDDS); CTRL1 0x27 (gain 128, LDO 3.3 V); CTRL2 0x70 (320 SPS, channel 1, CALS 0, CAL_ERR 0)",
      "REV_ID 0x0f",
      "eeprom       sim address 0x50 (24C32): 4096 bytes, 32-byte pages",
      "health       frames 32, invalid 0, missed 0, stale 0, late ready 0, retries 0, bus errors 0, re-inits 0",
    ] {
      #expect(r.stdout.contains(part), "missing \"\(part)\" in:\n\(r.stdout)")
    }
  }

  @Test func infoOnTheOtherBoards() throws {
    let ads = try Panelctl.run(["info", "--board", "boards/sim-plate4-ads122c04.toml"])
    #expect(ads.stdout.contains("chip 3       sim address 0x45 (ADS122C04): ready"), "\(ads.stdout)")
    #expect(ads.stdout.contains("MUX ain0ain1, gain 128; 600 SPS, continuous, VREF external"))
    let frame = try Panelctl.run(["info", "--board", "boards/sim-grid-frame.toml"])
    #expect(frame.stdout.contains("ID \"FP\" 1.0, CELLS 48, MAX_RATE 2000, CTRL 0x01, RATE 500"), "\(frame.stdout)")
    let sim = try Panelctl.run(["info", "--board", "boards/sim-plate4.toml"])
    #expect(sim.stdout.contains("front end    sim: the simulated panel delivers frames directly"))
    #expect(sim.stdout.contains("health       frames 64, invalid 0"))
    // The noise the core measures, and the thresholds it takes from it: the
    // quiet plate keeps the board's, the noisy grid raises them.
    #expect(sim.stdout.contains("thresholds   touch on 0.080 N, off 0.050 N"), "\(sim.stdout)")
    let noisy = try Panelctl.run(["info", "--board", "boards/sim-grid-noisy.toml", "--frames", "1000"])
    let noise = noisy.stdout.split(separator: "\n").first { $0.hasPrefix("noise ") }.map(String.init) ?? ""
    let median = Double(noise.split(separator: " ").dropFirst().first { Double($0) != nil } ?? "") ?? 0
    #expect(median > 5 && median < 15, "\(noisy.stdout)")
    let on = noisy.stdout.split(separator: "\n").first { $0.hasPrefix("thresholds") }.flatMap {
      $0.split(separator: " ").compactMap { Double($0) }.first
    }
    #expect((on ?? 0) > 0.09, "\(noisy.stdout)")
  }

  @Test(arguments: [
    ("mux = 0x70 ", "mux = 0x78 ", ["[frontend] mux", "0x78 is not a TCA9548A address (0x70...0x77)"]),
    ("mux = 0x70 ", "mux = 0x80 ", ["[frontend] mux", "0x80 is not a 7-bit I2C address"]),
    ("channels = [0, 1, 2, 3]", "channels = [0, 1, 9, 3]", ["[frontend] channels[3]", "mux channel 9 is out of range (0...7)"]),
    ("kind = \"nau7802\"", "kind = \"hx711\"", ["[frontend] kind", "unknown front end \"hx711\""]),
    ("kind = \"24c32\"", "kind = \"24c512\"", ["[frontend.eeprom] kind", "\"24c512\" is not an EEPROM this driver knows"]),
    ("address = 0x50", "address = 0x5a", ["[frontend.eeprom] address", "0x5a is not a 24C32 address (0x50...0x57)"]),
  ])
  func badFrontEndKeysNameTheField(_ change: (String, String, [String])) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try Self.boardText("sim-plate4-nau7802")
    #expect(text.contains(change.0))
    let path = try BadInputTests.write(text.replacingOccurrences(of: change.0, with: change.1), "b.toml", in: dir)
    for command in [["stream", "--board", path, "--speed", "0"], ["info", "--board", path]] {
      let r = try Panelctl.run(command)
      BadInputTests.expectOneLineError(r, contains: [path + ":"] + change.2)
    }
  }

  @Test func anADSAddressOutOfRangeIsNamed() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try Self.boardText("sim-plate4-ads122c04").replacingOccurrences(
      of: "addresses = [0x40, 0x41, 0x44, 0x45]", with: "addresses = [0x40, 0x41, 0x50, 0x45]")
    let path = try BadInputTests.write(text, "b.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", path, "--speed", "0"])
    BadInputTests.expectOneLineError(r, contains: [path + ":", "[frontend] addresses[3]", "0x50 is not an ADS122C04 address (0x40...0x4f)"])
  }

  @Test func aChipThatDoesNotAnswerIsNamedByBusChannelAndAddress() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try Self.boardText("sim-plate4-nau7802").replacingOccurrences(
      of: "host_overhead_us = 200.0", with: "host_overhead_us = 200.0\nabsent = [1]")
    let path = try BadInputTests.write(text, "b.toml", in: dir)
    let r = try Panelctl.run([
      "stream", "--board", path, "--calibration", "calibration/sim-plate4-nau7802.toml", "--speed", "0",
    ])
    BadInputTests.expectOneLineError(r, contains: ["sim mux 0x70 channel 1 address 0x2a (NAU7802): no acknowledge from 0x2a"])
    let info = try Panelctl.run(["info", "--board", path])
    BadInputTests.expectOneLineError(info, contains: ["sim mux 0x70 channel 1 address 0x2a (NAU7802)"])
  }

  @Test func simTruthWorksForTwins() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("cal.toml").path
    let r = try Panelctl.run(["sim", "truth", "--board", "boards/sim-plate4-nau7802.toml", "--out", out])
    #expect(r.status == 0, "\(r.stderr)")
    let written = try String(contentsOfFile: out, encoding: .utf8)
    let committed = try String(contentsOfFile: Panelctl.root + "/calibration/sim-plate4-nau7802.toml", encoding: .utf8)
    #expect(written == committed)
  }
}
