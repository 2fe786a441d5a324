import Benchmark
import DoubleReference
import ForceCore
import PanelFirmware
import PanelServe

#if canImport(Glibc)
  import Glibc
#endif

/// The streaming encoders (TUIO 2.0, TUIO 1.1, NDJSON, uinput events) per
/// frame with 1 and 10 touches moving, the whole path from a raw frame to a
/// TUIO datagram on a real UDP socket, and to the ring of `panelctl serve`
/// with 20 WebSocket clients. Each figure is per frame.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
    timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)

  let board = BenchmarkFixtures.board(cells: 48)
  let source = TUIOSource(board: board, serial: "BENCH-0001", address: "0x7F000001")

  for touches in [1, 10] {
    let label = "\(touches) touch\(touches == 1 ? "" : "es")"

    Benchmark("TUIO 2.0 bundle, \(label)") { benchmark in
      var encoder = TUIO2Encoder(source: source)
      let out = ByteBuffer(capacity: TUIO2Encoder.maxBundleBytes)
      eachReport(benchmark, touches: touches, board: board) { report in
        defer { out.removeAll() }
        encoder.encode(&report, time: .immediate, into: out)
        return out.count
      }
    }

    Benchmark("TUIO 1.1 bundle, \(label)") { benchmark in
      var encoder = TUIO1Encoder(source: source)
      let out = ByteBuffer(capacity: TUIO1Encoder.maxBundleBytes)
      eachReport(benchmark, touches: touches, board: board) { report in
        defer { out.removeAll() }
        encoder.encode(&report, into: out)
        return out.count
      }
    }

    Benchmark("NDJSON line, \(label)") { benchmark in
      let encoder = NDJSONEncoder(interaction: board.interaction)
      let out = ByteBuffer(capacity: 8192)
      eachReport(benchmark, touches: touches, board: board) { report in
        defer { out.removeAll() }
        encoder.encode(&report, into: out)
        return out.count
      }
    }

    Benchmark("uinput events, \(label)") { benchmark in
      var encoder = MultiTouchEncoder(axes: MultiTouchAxes(board: board))
      let out = InputEventBuffer(capacity: MultiTouchEncoder.maxEventsPerFrame)
      eachReport(benchmark, touches: touches, board: board) { report in
        encoder.encode(&report, into: out)
        return out.count
      }
    }
  }

  Benchmark("NDJSON line with the force image, 48 cells") { benchmark in
    let encoder = NDJSONEncoder(interaction: board.interaction)
    let out = ByteBuffer(capacity: 8192)
    var image = CellArray<Force_mN>(repeating: .zero)
    for k in 0..<48 { image[k] = Force_mN(newtons: Double(k) * 0.013) }
    eachReport(benchmark, touches: 1, board: board) { report in
      defer { out.removeAll() }
      encoder.encode(&report, into: out)
      encoder.appendImage(image.span, cellCount: 48, to: out)
      return out.count
    }
  }

  Benchmark("Stream path 48 cells, TUIO 2.0 over UDP") { benchmark in
    // A receiving socket on loopback, drained as the benchmark goes.
    let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
        bind(receiver, p, length)
        return getsockname(receiver, p, &length)
      }
    }
    defer { close(receiver) }
    let udp = try UDPOutput(
      to: SocketAddress("127.0.0.1:\(UInt16(bigEndian: a.sin_port))", datagram: true), kind: "tuio")
    var sink = TUIOSink(encoder: TUIO2Encoder(source: source), output: udp, board: board, idle: true)
    let loop = ScanLoop(
      source: LoopedFrames(BenchmarkFixtures.frames(board, count: 2000)), board: board,
      calibration: BenchmarkFixtures.calibration(board))
    for _ in 0..<2000 { _ = try loop.step() }  // seeded, in steady state
    var scratch = [UInt8](repeating: 0, count: 4096)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      _ = try loop.step()
      try sink.consume(loop)
      while recv(receiver, &scratch, scratch.count, 0) > 0 {}
    }
    benchmark.stopMeasurement()
    blackHole(udp.sent)
  }

  // `panelctl serve`'s side of the loop: each frame's report line (and,
  // with an image client, the line with the force image) copied into the
  // hub's ring, where 20 clients read it at their own pace (here they do
  // not read: the ring laps them, as it would a stalled browser).
  for image in [false, true] {
    Benchmark("Stream path 48 cells, serve to 20 clients\(image ? " (one reading the image)" : "")") { benchmark in
      let hub = ServeHub(capacity: 20)
      for i in 0..<20 { _ = hub.join(kind: image && i == 0 ? .image : .idle, address: "client \(i)", control: true) }
      var sink = ServeSink(hub: hub, board: board)
      let loop = ScanLoop(
        source: LoopedFrames(BenchmarkFixtures.frames(board, count: 2000)), board: board,
        calibration: BenchmarkFixtures.calibration(board))
      for _ in 0..<2000 {
        _ = try loop.step()
        try sink.consume(loop)
      }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        _ = try loop.step()
        try sink.consume(loop)
      }
      benchmark.stopMeasurement()
      blackHole(hub.totals.dropped)
    }
  }
}

/// The measured loop of the encoder benchmarks: `encode` (which returns
/// what it wrote, bytes or events) on each of the 64 reports in turn, read
/// in place. The reports are this run's own, made before the measurement.
func eachReport(
  _ benchmark: Benchmark, touches: Int, board: Board, _ encode: (inout FrameReport) -> Int
) {
  var frames = reports(touches: touches, board: board)
  var written = 0
  var i = 0
  benchmark.startMeasurement()
  for _ in benchmark.scaledIterations {
    written &+= encode(&frames[i])
    i = (i + 1) & 63
  }
  benchmark.stopMeasurement()
  blackHole(written)
}

/// 64 consecutive reports with `touches` touches moving across the panel.
func reports(touches: Int, board: Board) -> [FrameReport] {
  var frames: [FrameReport] = []
  for f in 0..<64 {
    var r = FrameReport()
    r.frame = UInt64(f)
    r.time = Time_us(rawValue: Int64(f) * 2000)
    for i in 0..<touches {
      let x = board.width_mm * (0.1 + 0.08 * Double(i)) + Double(f) * 0.2
      let y = board.height_mm * (0.2 + 0.06 * Double(i)) + Double(f) * 0.1
      r.append(
        TouchReport(
          touch: TrackedTouch(
            id: UInt32(i + 1), phase: f == 0 ? .began : .moved, x: Length_um(millimetres: x),
            y: Length_um(millimetres: y), force: Force_mN(newtons: 0.5 + 0.05 * Double(f % 20))),
          stage: i % 2 == 0 ? .peek : .hint))
    }
    if f % 16 == 8 { r.append(TouchEvent(kind: .peek, touch: 1)) }
    frames.append(r)
  }
  return frames
}
