import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelSimulation

/// The core's health counters (`info`, the monitor, `/status.json`, the
/// core script's `health` line) each against the cause its name says, on
/// the simulated boards' demos: presses alone count nothing; injected
/// spikes and an open cell count exactly what was injected.
@Suite struct HealthCounterTests {
  /// A board and the demo it plays when no scenario is given.
  static func demo(_ name: String) throws -> (Board, Scenario) {
    let board = try Repo.board(name)
    let parameters = try board.simulationParameters
    let scenario = try Scenario.load(path: Paths.resolve(parameters.scenario, relativeTo: board.file), board: board)
    return (board, scenario)
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func theDemosPressesCountNothing(_ name: String) throws {
    let (board, scenario) = try Self.demo(name)
    let run = try SimRun(board: board, scenario: scenario) { $0.spikeRate_hz = 0 }
    #expect(run.touches.contains { $0.stage == .pop }, "the demo presses through to pop")
    #expect(run.injectedSpikes == 0)
    #expect(run.health.spikes == 0)
    #expect(run.health.saturatedSamples == 0)
    #expect(run.health.invalidFrames == 0)
    #expect(run.health.reseeds == 0)
    #expect(run.health.absorbedLoads == 0)
    #expect(UInt64(run.health.frames) == run.frames)
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func spikesCountTheInjectedOnesAmongPresses(_ name: String) throws {
    let (board, scenario) = try Self.demo(name)
    for rate in [0.2, 20] {
      let run = try SimRun(board: board, scenario: scenario) { $0.spikeRate_hz = rate }
      #expect(run.touches.contains { $0.stage == .pop })
      #expect(rate < 1 || run.injectedSpikes > 20)
      #expect(Int(run.health.spikes) == run.injectedSpikes, "\(rate)/s: counted \(run.health.spikes), injected \(run.injectedSpikes)")
    }
  }

  @Test func saturatedCountsAnOpenCellsSamplesAndNoSpikes() throws {
    var (board, scenario) = try Self.demo("sim-plate4")
    scenario.faults = [CellFault(cell: 2, start_s: 1.0, end_s: 1.5)]
    let run = try SimRun(board: board, scenario: scenario) { $0.spikeRate_hz = 0 }
    // Frame k is rendered at k / rate (µs, rounded down).
    let rate = Int64(board.rate_hz)
    let open = (0..<Int64(run.frames)).filter { k in
      let t = Double(k * 1_000_000 / rate) / 1e6
      return t >= 1.0 && t < 1.5
    }.count
    #expect(open > 100)
    #expect(Int(run.health.saturatedSamples) == open)
    #expect(run.health.spikes == 0)
  }
}
