import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware

/// The frame rate simulated twins reach on the simulated clock, against
/// what the bus-timing model allows (BusBudget). Simulated time, not wall
/// time: deterministic.
@Suite struct BusTimingTests {
  /// Frames per simulated second over `frames` frames after bring-up.
  static func rate(_ board: Board, frames: Int = 400) throws -> (measured: Double, model: Double, budget: BusBudget) {
    var fe = try FrontEndFactory.make(board: board, options: RunOptions(speed: 0, frames: frames + 20))
    try fe.start()
    var frame = RawFrame(cellCount: board.cellCount)
    var times: [Int64] = []
    var valid = true
    while try fe.next(into: &frame) {
      times.append(frame.time.rawValue)
      valid = valid && frame.valid
    }
    #expect(valid)
    let t = times.suffix(frames)
    let measured = Double(t.count - 1) / (Double(t.last! - t.first!) / 1e6)
    let c = try board.driverConfiguration
    let budget = BusBudget(configuration: c)
    let timing = I2CBusTiming(khz: c.bus_khz, hostOverhead_us: board.frontEnd.twinParameters?.hostOverhead_us ?? 200)
    return (measured, budget.modelFrameRate(c, timing), budget)
  }

  @Test func theNAU7802TwinReachesTheModelsRate() throws {
    let r = try Self.rate(Repo.board("sim-plate4-nau7802"))
    #expect(r.budget == BusBudget(transfers: 8, bitTimes: 308))
    #expect(abs(r.measured - r.model) / r.model < 0.10, "\(r)")
  }

  @Test(arguments: [
    // Polling at 400 kHz: 12 transfers, 464 bit times: bus-bound below 320/s.
    ("gpio_chip = \"/dev/gpiochip0\"\ndrdy_lines = [17, 27, 22, 23]", ""),
    // 100 kHz with data-ready lines: bus-bound.
    ("bus_khz = 400", "bus_khz = 100"),
    // No host overhead: the chips' 320/s.
    ("host_overhead_us = 200.0", "host_overhead_us = 0.0"),
  ])
  func variantsFollowTheModel(_ edit: (String, String)) throws {
    let r = try Self.rate(BoardText.variant("sim-plate4-nau7802", [edit]))
    #expect(abs(r.measured - r.model) / r.model < 0.10, "\(r)")
  }

  @Test func pollingIsBusBound() throws {
    let r = try Self.rate(BoardText.variant("sim-plate4-nau7802", [("gpio_chip = \"/dev/gpiochip0\"\ndrdy_lines = [17, 27, 22, 23]", "")]))
    #expect(r.budget == BusBudget(transfers: 12, bitTimes: 464))
    #expect(r.model < 300)
  }

  @Test(arguments: ["sim-plate4-ads122c04", "sim-grid-frame"])
  func theOtherTwinsReachTheModelsRate(_ name: String) throws {
    let r = try Self.rate(Repo.board(name))
    #expect(abs(r.measured - r.model) / r.model < 0.10, "\(r)")
  }
}
