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

  for (cells, fingers) in [(4, 0), (48, 0), (256, 10)] {
    let name = fingers == 0 ? "Frame path \(cells) cells" : "Frame path \(cells) cells, \(fingers) touches"
    Benchmark(name) { benchmark in
      let board = BenchmarkFixtures.board(cells: cells)
      let loop = ScanLoop(
        source: LoopedFrames(BenchmarkFixtures.frames(board, count: 2000, fingers: fingers)), board: board,
        calibration: BenchmarkFixtures.calibration(board))
      let encoder = NDJSONEncoder(interaction: board.interaction)
      let buffer = ByteBuffer(capacity: 64 * 1024)
      var most = 0
      for _ in 0..<2000 {  // seeded, in steady state
        _ = try loop.step()
        most = max(most, loop.report.touchCount)
      }
      precondition(fingers == 0 || most == fingers, "\(most) of the scenario's \(fingers) touches found")
      var bytes = 0
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        _ = try loop.step()
        loop.withReport { r in if !r.isEmpty { encoder.encode(&r, into: buffer) } }
        bytes &+= buffer.count
        buffer.removeAll()
      }
      benchmark.stopMeasurement()
      blackHole(bytes)
    }

    guard fingers == 0 else { continue }
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
