import ForceCore

#if canImport(Glibc)
  import Glibc
#endif

/// The report stream as NDJSON lines (CONTRACTS.md section 4) to an output:
/// standard output (lossless) or a TCP host (never waits; drops counted).
///
/// Written: every frame with a touch or an event; with `idle` every frame;
/// with `image` every frame, each line carrying the force image (`image_n`).
public struct NDJSONSink<Output: MessageOutput>: FrameSink {
  public let output: Output
  let encoder: NDJSONEncoder
  let line: ByteBuffer
  let idle: Bool
  let image: Bool

  public init(output: Output, board: Board, idle: Bool = false, image: Bool = false) {
    self.output = output
    encoder = NDJSONEncoder(interaction: board.interaction)
    // A report line is under 4 KiB; an image adds under 16 bytes a cell.
    line = ByteBuffer(capacity: 8192 + 16 * Capacity.cells)
    self.idle = idle
    self.image = image
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    guard idle || image || !loop.report.isEmpty else {
      output.poll()
      return
    }
    encoder.encode(loop.report, into: line)
    if image {
      encoder.appendImage(loop.pipeline.image.span, cellCount: loop.pipeline.cellCount, to: line)
    }
    try output.send(line)
  }

  public mutating func finish() throws(SinkError) { output.close() }
  public var isClosed: Bool { output.isClosed }
  public var summary: String? { output.summary }
}

/// A bundle encoder of one TUIO version.
public protocol TUIOBundleEncoder {
  mutating func encode(_ report: borrowing FrameReport, time: OSCTimeTag, into out: ByteBuffer)
}

extension TUIO2Encoder: TUIOBundleEncoder {}

extension TUIO1Encoder: TUIOBundleEncoder {
  public mutating func encode(_ report: borrowing FrameReport, time: OSCTimeTag, into out: ByteBuffer) {
    encode(report, into: out)
  }
}

/// TUIO bundles, one datagram per frame, to a UDP host. Frames with a
/// touch or an event are always sent; so is the first frame, and while the
/// panel is idle one bundle a second (every frame with `idle`) keeps the
/// host's alive list current.
/// Frame times become Unix time: the first frame is stamped with the
/// current wall-clock time and later ones keep the panel's own spacing.
public struct TUIOSink<Encoder: TUIOBundleEncoder, Output: MessageOutput>: FrameSink {
  public let output: Output
  var encoder: Encoder
  let bundle = ByteBuffer(capacity: 8192)
  let idleEvery: UInt64
  /// Idle frames since the last bundle (the first frame is always sent, so
  /// a host learns the source at once).
  var idleRun = UInt64.max - 1
  var epochOffset_us: Int64?
  /// Bundles too large for the buffer (never expected: 16 touches and 32
  /// events fit in half of it).
  public private(set) var oversized: UInt64 = 0

  public init(encoder: Encoder, output: Output, board: Board, idle: Bool = false) {
    self.encoder = encoder
    self.output = output
    idleEvery = idle ? 1 : UInt64(max(1, board.rate_hz))
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    if loop.report.isEmpty {
      idleRun &+= 1
      guard idleRun >= idleEvery else {
        output.poll()
        return
      }
    }
    idleRun = 0
    let t = loop.report.time.rawValue
    if epochOffset_us == nil { epochOffset_us = TUIOSink.unixMicroseconds() - t }
    encoder.encode(loop.report, time: OSCTimeTag(unixMicroseconds: t + epochOffset_us!), into: bundle)
    guard !bundle.overflowed else {
      oversized += 1
      bundle.removeAll()
      return
    }
    try output.send(bundle)
  }

  public mutating func finish() throws(SinkError) { output.close() }
  public var isClosed: Bool { output.isClosed }
  public var summary: String? { output.summary }

  static func unixMicroseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
  }
}
