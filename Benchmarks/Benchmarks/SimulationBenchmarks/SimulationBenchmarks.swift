import Benchmark
import ForceCore
import PanelFirmware

/// The simulated panel (`kind = "sim"`) rendering one frame, for today's
/// boards and the envelope's corners (noise, wander, drift spread, thermal
/// lag, hysteresis, other spreading kernels), with a press down and the
/// temperature ramping: the host's time and mallocs per frame.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo,
    maxDuration: .seconds(2), maxIterations: 10_000)

  let root: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)  // Benchmarks/Benchmarks/SimulationBenchmarks/SimulationBenchmarks.swift
    return parts.joined(separator: "/")
  }()

  for name in ["sim-plate4", "sim-plate4-noisy", "sim-grid", "sim-grid-noisy", "sim-grid-gaussian"] {
    Benchmark("Simulated frame: \(name)") { benchmark in
      let board = try Board.load(path: root + "/boards/\(name).toml")
      let press = ScriptedTouch(start_s: 0, x_mm: 63, y_mm: 41, force_n: 1.5, hold_s: 1e6)
      let scenario = Scenario(
        name: "ramp", duration_s: 1e6, temperature: [Keyframe(0, 25), Keyframe(1e6, 35)], touches: [press])
      var panel = SimulatedPanel(
        board: board, parameters: try board.simulationParameters, scenario: scenario, speed: 0)
      var frame = RawFrame(cellCount: board.cellCount)
      for _ in 0..<100 { _ = try panel.next(into: &frame) }
      var sum: Int64 = 0
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        _ = try panel.next(into: &frame)
        sum &+= Int64(frame.counts[0])
      }
      benchmark.stopMeasurement()
      blackHole(sum)
    }
  }
}
