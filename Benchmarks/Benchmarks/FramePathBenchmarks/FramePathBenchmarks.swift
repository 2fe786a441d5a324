import Benchmark
import DoubleReference
import ForceCore
import PanelFirmware

/// The whole frame path: frame -> ForceCore -> contacts -> tracker ->
/// stages -> NDJSON bytes, for the two simulated boards, and the same in
/// plain Double code. Each figure is per frame.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
    timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)

  for cells in [4, 48] {
    Benchmark("Frame path \(cells) cells") { benchmark in
      let board = BenchmarkFixtures.board(cells: cells)
      let loop = ScanLoop(
        source: LoopedFrames(BenchmarkFixtures.frames(board, count: 2000)), board: board,
        calibration: BenchmarkFixtures.calibration(board))
      let encoder = NDJSONEncoder(interaction: board.interaction)
      let buffer = ByteBuffer(capacity: 64 * 1024)
      for _ in 0..<2000 { _ = try loop.step() }  // seeded, in steady state
      var bytes = 0
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        _ = try loop.step()
        if !loop.report.isEmpty { encoder.encode(loop.report, into: buffer) }
        bytes &+= buffer.count
        buffer.removeAll()
      }
      benchmark.stopMeasurement()
      blackHole(bytes)
    }

    Benchmark("Double reference frame path \(cells) cells") { benchmark in
      let board = BenchmarkFixtures.board(cells: cells)
      let frames = BenchmarkFixtures.frames(board, count: 2000).map { f in
        (raw: (0..<f.cellCount).map { f.counts[$0] }, t: f.temperature.celsius)
      }
      var pipeline = DoublePipeline(board: board, calibration: BenchmarkFixtures.calibration(board))
      var tracker = DoubleTracker()
      for f in frames { pipeline.process(raw: f.raw, temperature: f.t) }
      var i = 0
      var bytes = 0
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        pipeline.process(raw: frames[i].raw, temperature: frames[i].t)
        if let line = tracker.update(pipeline.contacts, time: Int64(i) * 2000, frame: i) { bytes &+= line.utf8.count }
        i = i + 1 == frames.count ? 0 : i + 1
      }
      benchmark.stopMeasurement()
      blackHole(bytes)
    }
  }
}
