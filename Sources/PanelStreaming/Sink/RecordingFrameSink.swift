import ForceCore
import PanelFormats
import PanelHardware

/// The raw frames, as a recording (docs/formats.md), written while
/// the panel streams: `FILE.partial` as it grows, renamed to `FILE` at the
/// end (see `RecordingWriter`).
///
/// A file that cannot be written (a full disk) stops the recording, not
/// the stream: one line on standard error at once, the `.partial` file
/// kept with its whole rows, the frames not recorded counted, and
/// `finish()` reports the failure when the stream ends.
public struct RecordingFrameSink: FrameSink {
  final class Box {
    var writer: RecordingWriter?
    init(_ writer: consuming RecordingWriter) { self.writer = consume writer }
  }
  let box: Box
  let cellCount: Int
  /// Rows between flushes of the `.partial` file: about one second's.
  let flushEvery: UInt64
  /// Frames recorded: a report made without a new frame (the touches
  /// cancelled at the end of a run) adds no row.
  var recorded: UInt64 = 0
  /// Why the recording stopped, and at which frame; nil while it runs.
  public private(set) var stopped: (error: FileError, frame: UInt64)?
  /// Frames streamed after the recording stopped.
  public private(set) var notRecorded: UInt64 = 0

  public init(path: String, board: Board) throws(FileError) {
    cellCount = board.cellCount
    flushEvery = UInt64(max(board.rate_hz, 1))
    box = Box(
      try RecordingWriter(path: path, header: RecordingHeader(cellCount: board.cellCount, hasTemperature: true)))
    // The header at once (a run killed early still names its columns); a
    // disk already full stops the recording, not the stream.
    do { try box.writer?.flush() } catch { stop(error, frame: 0) }
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    guard loop.frames > recorded else { return }
    recorded = loop.frames
    guard stopped == nil else {
      notRecorded += 1
      return
    }
    let time = loop.frame.time.rawValue
    let temperature = loop.frame.hasTemperature ? loop.frame.temperature.celsius : nil
    let n = cellCount
    do {
      try loop.frame.withCounts { counts throws(FileError) in
        try box.writer?.append(
          tUs: time, counts: UnsafeBufferPointer(rebasing: counts[0..<n]), temperatureC: temperature)
      }
      if recorded % flushEvery == 0 { try box.writer?.flush() }
    } catch {
      notRecorded += 1
      stop(error, frame: loop.frames)
    }
  }

  /// Ends the recording after a failed write; the stream goes on.
  mutating func stop(_ error: FileError, frame: UInt64) {
    stopped = (error, frame)
    box.writer = nil  // flushes what it can; the .partial file stays
    StandardError.line("panelctl: warning: recording stopped at frame \(frame), the stream goes on: \(error)\n")
  }

  public mutating func finish() throws(SinkError) {
    if let stopped { throw .output(Self.stoppedText(stopped.error, stopped.frame, notRecorded)) }
    guard let writer = box.writer.take() else { return }
    do { try writer.finish() } catch { throw .file(error) }
  }

  public var summary: String? {
    stopped.map { "recording stopped at frame \($0.frame), \(notRecorded) frames not recorded" }
  }

  static func stoppedText(_ error: FileError, _ frame: UInt64, _ missing: UInt64) -> String {
    "recording stopped at frame \(frame) (\(missing) frames from there not recorded; \(error.file) keeps the whole rows written before): \(error.message)"
  }
}

extension RawFrame {
  /// `body` with the counts, read in place (`mutating` only for that: a
  /// frame read through a borrow is copied whole first, a kilobyte).
  mutating func withCounts<R, E: Error>(_ body: (UnsafeBufferPointer<Int32>) throws(E) -> R) throws(E) -> R {
    try counts.span.withUnsafeBufferPointer(body)
  }
}
