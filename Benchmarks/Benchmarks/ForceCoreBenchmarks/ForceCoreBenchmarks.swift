import Benchmark
import DoubleReference
import ForceCore
import PanelFirmware

/// ForceCore per frame at 4, 48 and 256 cells, and the same computation in
/// Double. Each figure is per frame (scaling factor 1000 iterations).
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
    timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)

  for cells in [4, 48, 256] {
    forceCoreBenchmark("ForceCore frame \(cells) cells", cells: cells)
    if cells == 256 {
      // The same grid with one baseline rate (`drift_min_s = drift_up_s`):
      // what the adaptive rate's candidates cost.
      forceCoreBenchmark("ForceCore frame 256 cells, one baseline rate", cells: cells) { c, _ in
        c.driftMin_ms = c.driftUp_ms
      }
    }
    if cells == 4 {
      // A plate with a calibration's cross-talk correction (4 x 4 coupling).
      forceCoreBenchmark("ForceCore frame 4 cells with coupling", cells: cells) { _, coupling in
        coupling = CouplingMatrix(size: 4)
        for i in 0..<4 { for j in 0..<4 where i != j { coupling.set(i, j, 0.01 * Double(i - j)) } }
      }
    }

    Benchmark("Double reference frame \(cells) cells") { benchmark in
      let board = BenchmarkFixtures.board(cells: cells)
      let frames = BenchmarkFixtures.frames(board, count: 2000).map { f in
        (raw: (0..<f.cellCount).map { f.counts[$0] }, t: f.temperature.celsius)
      }
      var pipeline = DoublePipeline(board: board, calibration: BenchmarkFixtures.calibration(board))
      for f in frames { pipeline.process(raw: f.raw, temperature: f.t) }
      var i = 0
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        pipeline.process(raw: frames[i].raw, temperature: frames[i].t)
        i = i + 1 == frames.count ? 0 : i + 1
      }
      benchmark.stopMeasurement()
      blackHole(pipeline.contacts.count)
    }
  }
}

/// ForceCore alone on the benchmark fixture's frames for `cells`, looped,
/// after one pass to seed it; `setUp` may change the board's core
/// configuration and give a cross-talk matrix.
func forceCoreBenchmark(
  _ name: String, cells: Int, setUp: @escaping @Sendable (inout CoreConfiguration, inout CouplingMatrix) -> Void = { _, _ in }
) {
  Benchmark(name) { benchmark in
    let board = BenchmarkFixtures.board(cells: cells)
    var frames = BenchmarkFixtures.frames(board, count: 2000)
    var configuration = board.coreConfiguration
    var coupling = CouplingMatrix()
    setUp(&configuration, &coupling)
    var pipeline = ForcePipeline(
      geometry: board.geometry, calibration: BenchmarkFixtures.calibration(board).coreCalibration,
      configuration: configuration, coupling: coupling)
    for i in frames.indices { pipeline.process(&frames[i]) }  // seeded, in steady state
    var i = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      pipeline.process(&frames[i])
      i = i + 1 == frames.count ? 0 : i + 1
    }
    benchmark.stopMeasurement()
    blackHole(pipeline.contacts.count)
  }
}
