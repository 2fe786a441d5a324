import ForceCore

/// The raw frames, as a recording (docs/formats.md), written while
/// the panel streams: `FILE.partial` as it grows, renamed to `FILE` at the
/// end (see `RecordingWriter`). A file that cannot be written ends the run.
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

  public init(path: String, board: Board) throws(FileError) {
    cellCount = board.cellCount
    flushEvery = UInt64(max(board.rate_hz, 1))
    box = Box(
      try RecordingWriter(path: path, header: RecordingHeader(cellCount: board.cellCount, hasTemperature: true)))
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    guard loop.frames > recorded else { return }
    recorded = loop.frames
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
      throw .file(error)
    }
  }

  public mutating func finish() throws(SinkError) {
    guard let writer = box.writer.take() else { return }
    do { try writer.finish() } catch { throw .file(error) }
  }
}

extension RawFrame {
  /// `body` with the counts, read in place (`mutating` only for that: a
  /// frame read through a borrow is copied whole first, a kilobyte).
  mutating func withCounts<R, E: Error>(_ body: (UnsafeBufferPointer<Int32>) throws(E) -> R) throws(E) -> R {
    try counts.span.withUnsafeBufferPointer(body)
  }
}
