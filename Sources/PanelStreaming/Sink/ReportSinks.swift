import ForceCore
import PanelFormats
import PanelHardware
import PanelTouch

/// The report stream as NDJSON lines (docs/formats.md) to an output:
/// standard output (lossless) or a TCP host (never waits; drops counted).
///
/// Written: every frame with a touch or an event; with `idle` every frame;
/// with `image` every frame, each line carrying the force image (`image_n`).
///
/// The line buffer holds the longest line there can be
/// (`NDJSONEncoder.maxLineBytes`, the force image's bytes). A line that
/// does not fit even so is dropped whole, never written cut short, and
/// counted (`oversized`, in the summary).
public struct NDJSONSink<Output: MessageOutput>: FrameSink {
  public let output: Output
  let encoder: NDJSONEncoder
  let line: ByteBuffer
  let idle: Bool
  let image: Bool
  /// Lines dropped because they did not fit the line buffer.
  public private(set) var oversized: UInt64 = 0

  public init(output: Output, board: Board, idle: Bool = false, image: Bool = false) {
    let imageBytes = image ? NDJSONEncoder.imageFieldsBytes : 0
    self.init(output: output, board: board, idle: idle, image: image, lineBytes: NDJSONEncoder.maxLineBytes + imageBytes)
  }

  /// With a line buffer of `lineBytes` (tests: a small one overflows).
  init(output: Output, board: Board, idle: Bool, image: Bool, lineBytes: Int) {
    self.output = output
    encoder = NDJSONEncoder(interaction: board.interaction)
    line = ByteBuffer(capacity: lineBytes)
    self.idle = idle
    self.image = image
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    guard idle || image || !loop.report.isEmpty else {
      output.poll()
      return
    }
    encoder.encode(&loop.report, into: line)
    if image { encoder.appendImageFields(of: loop, to: line) }
    guard !line.overflowed else {
      oversized += 1
      line.removeAll()
      output.poll()
      return
    }
    try output.send(line)
  }

  public mutating func finish() throws(SinkError) { output.close() }
  public var isClosed: Bool { output.isClosed }
  public var summary: String? {
    Oversized.summary(output.summary, oversized, "ndjson lines")
  }
}

extension NDJSONEncoder {
  /// The most `appendImageFields` adds to a line.
  public static let imageFieldsBytes = 96 + 2 * imageBytesPerCell * Capacity.cells

  /// What `--image` adds to the line of `loop`'s last frame just written
  /// into `line`: the force image (`image_n`), each cell's noise
  /// (`noise_n`) and the touch thresholds in effect.
  public func appendImageFields<Source: FrontEnd>(of loop: ScanLoop<Source>, to line: ByteBuffer) {
    appendImage(loop.pipeline.image.span, cellCount: loop.pipeline.cellCount, to: line)
    appendNoise(
      loop.pipeline.noise.sigma.span, cellCount: loop.pipeline.cellCount,
      thresholds: loop.pipeline.effectiveThresholds, to: line)
  }
}

/// The end-of-run words for messages dropped as too large for their buffer.
enum Oversized {
  static func summary(_ output: String?, _ count: UInt64, _ what: String) -> String? {
    guard count > 0 else { return output }
    let dropped = "\(count) \(what) too long for the buffer, dropped"
    return output.map { $0 + "; " + dropped } ?? dropped
  }
}

/// A bundle encoder of one TUIO version.
public protocol TUIOBundleEncoder {
  /// Appends one bundle (`inout` only so that the report is read in place).
  mutating func encode(_ report: inout FrameReport, time: OSCTimeTag, into out: ByteBuffer)
}

extension TUIO2Encoder: TUIOBundleEncoder {}

extension TUIO1Encoder: TUIOBundleEncoder {
  public mutating func encode(_ report: inout FrameReport, time: OSCTimeTag, into out: ByteBuffer) {
    encode(&report, into: out)
  }
}

/// TUIO bundles, one datagram per frame, to a UDP host. Frames with a
/// touch or an event are always sent; so are the first and the last frame
/// (the closing bundle: touches still down are cancelled in it, so its
/// alive list is empty), and while the
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
  /// The first frame's time and the Unix time it was stamped with.
  var epoch: (frame_us: Int64, unix_us: Int64)?
  /// Bundles too large for the buffer, dropped (never expected: 16
  /// touches and 32 events fit in half of it); in the summary.
  public private(set) var oversized: UInt64 = 0

  public init(encoder: Encoder, output: Output, board: Board, idle: Bool = false) {
    self.encoder = encoder
    self.output = output
    idleEvery = idle ? 1 : UInt64(max(1, board.rate_hz))
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    // The last frame is always sent: its bundle closes the host's alive
    // list, with a frame id newer than every bundle before it.
    if loop.report.isEmpty && !loop.ended {
      idleRun &+= 1
      guard idleRun >= idleEvery else {
        output.poll()
        return
      }
    }
    idleRun = 0
    let t = loop.report.time.rawValue
    let start = epoch ?? (t, unixMicroseconds())
    epoch = start
    // A recording's times have any origin: the distance from the first
    // frame saturates, and so does the sum.
    let unix = Saturating.add(start.unix_us, Saturating.subtract(t, start.frame_us))
    encoder.encode(&loop.report, time: OSCTimeTag(unixMicroseconds: unix), into: bundle)
    guard !bundle.overflowed else {
      oversized += 1
      bundle.removeAll()
      return
    }
    try output.send(bundle)
  }

  public mutating func finish() throws(SinkError) { output.close() }
  public var isClosed: Bool { output.isClosed }
  public var summary: String? { Oversized.summary(output.summary, oversized, "tuio bundles") }
}
