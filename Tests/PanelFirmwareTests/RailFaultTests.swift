import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelHardware
@testable import PanelSimulation
@testable import PanelStreaming
@testable import PanelTouch

/// A bridge ADC whose input rails (an open bridge reads positive full
/// scale, 0x7FFFFF; an overload negative, 0x800000) delivers a valid
/// transfer carrying a code that is no measurement. Through the whole scan
/// loop on the simulated twins: the frame stays valid (the other cells keep
/// working), the core holds the cell at its baseline and counts the
/// samples, no touch is reported, and force capability becomes unavailable
/// naming the cell after a quarter of a second, available again half a
/// second after the repair.
@Suite struct RailFaultTests {
  enum Chip: String, CaseIterable { case nau7802, ads122c04 }

  struct Run {
    var touches = 0
    var invalid = 0
    /// (time s, capability) per frame.
    var capabilities: [(Double, ForceCapability)] = []
  }

  /// Runs `seconds` of an idle panel; `fault(k, on)` sets cell 1's chip's
  /// input fault when the run is between 1 s and 2 s.
  static func run<F: FrontEnd>(_ loop: ScanLoop<F>, rate: Int, seconds: Double, fault: (Bool) -> Void) throws -> Run {
    var r = Run()
    var on = false
    let frames = Int(Double(rate) * seconds)
    for k in 0..<frames {
      let t = Double(k) / Double(rate)
      let want = t >= 1 && t < 2
      if want != on {
        fault(want)
        on = want
      }
      guard try loop.step() else { break }
      if !loop.frame.valid { r.invalid += 1 }
      r.touches += loop.report.touchCount
      r.capabilities.append((t, loop.report.capability))
    }
    return r
  }

  @Test(arguments: Chip.allCases, [SimulatedInputFault.openBridge, .negativeOverload])
  func aRailedCellMakesNoTouchAndForceUnavailable(_ chip: Chip, _ fault: SimulatedInputFault) throws {
    let board = try Repo.board(chip == .nau7802 ? "sim-plate4-nau7802" : "sim-plate4-ads122c04")
    let calibration = try FrontEndFactory.trueCalibration(board: board, created: "test")
    let r: Run
    let railed: Int
    switch chip {
    case .nau7802:
      var twin = try Twins.nau7802(board)
      try twin.frontEnd.start()
      let loop = ScanLoop(source: twin.frontEnd, board: board, calibration: calibration)
      let cell = twin.hardware.nau7802s[1]
      r = try Self.run(loop, rate: board.rate_hz, seconds: 3) { cell.inputFault = $0 ? fault : nil }
      railed = Int(loop.pipeline.health.saturatedSamples)
      #expect(loop.interaction.health.railSamples == UInt64(railed))
    case .ads122c04:
      var twin = try Twins.ads122c04(board)
      try twin.frontEnd.start()
      let loop = ScanLoop(source: twin.frontEnd, board: board, calibration: calibration)
      let cell = twin.hardware.ads122c04s[1]
      r = try Self.run(loop, rate: board.rate_hz, seconds: 3) { cell.inputFault = $0 ? fault : nil }
      railed = Int(loop.pipeline.health.saturatedSamples)
      #expect(loop.interaction.health.railSamples == UInt64(railed))
    }
    let rate = Double(board.rate_hz)
    #expect(r.touches == 0)
    #expect(r.invalid == 0, "one railed cell does not invalidate the frame")
    // One second of the cell's samples at the rail (give or take the
    // conversion in flight at each switch).
    #expect(abs(Double(railed) - rate) <= 2, "\(railed) samples at the rail")
    let unavailable = r.capabilities.filter { !$0.1.isAvailable }
    #expect(unavailable.first?.1 == ForceCapability(state: .unavailable, reason: .cellFault, cell: 1))
    #expect(abs((unavailable.first?.0 ?? 0) - 1.25) < 3 / rate)
    #expect(abs((unavailable.last?.0 ?? 0) - 2.5) < 3 / rate)
    #expect(r.capabilities.last?.1 == .available)
  }

  /// A scenario's open cell (`[[fault]]`) opens the twin's bridge: the
  /// chip reads 0x7FFFFF whatever its own offset (the ADS122C04 has no
  /// offset calibration, so a signal at full scale alone would not rail).
  @Test(arguments: ["sim-plate4-nau7802", "sim-plate4-ads122c04"])
  func aScenarioFaultRailsTheTwinsChip(_ name: String) throws {
    let board = try Repo.board(name)
    let scenario = Scenario(
      name: "open", duration_s: 1, touches: [], faults: [CellFault(cell: 2, start_s: 0.2, end_s: 0.6)])
    let (c, hw) = try Twins.hardware(board, scenario: scenario)
    var fe = FrontEndFactory.driverFrontEnd(
      configuration: c, bus: hw.bus, clock: hw.clock, lines: hw.dataReadyLines(), options: RunOptions(speed: 0))
    try fe.start()
    hw.signals.origin_ns = hw.clock.now_ns
    var frame = RawFrame(cellCount: board.cellCount)
    var railed = 0
    var others = 0
    for _ in 0..<board.rate_hz {
      guard try fe.next(into: &frame) else { break }
      #expect(frame.valid)
      if frame.counts[2] == RawCounts.max { railed += 1 }
      for k in [0, 1, 3] where frame.counts[k] == RawCounts.max || frame.counts[k] == RawCounts.min { others += 1 }
    }
    #expect(abs(railed - board.rate_hz * 4 / 10) <= 2, "\(railed) frames with cell 2 at the rail")
    #expect(others == 0)
  }
}
