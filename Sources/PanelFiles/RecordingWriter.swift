#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a raw recording CSV (see `RecordingHeader`) without ever exposing a
/// half-written file under the final name.
///
/// Rows go to `path + ".partial"` through a reusable buffer written in large
/// chunks (no allocation per row). `finish()` flushes, fsyncs, renames the
/// file to `path` and fsyncs the directory. A writer dropped without
/// `finish()` (an error, a crash of the caller's loop) flushes what it can and
/// leaves the `.partial` file in place: recordings are never lost.
///
/// What `path` may name is `OutputFile`'s rule: a link to a regular file
/// is followed (the `.partial` file is beside the file it names), and
/// `/dev/null` or `/dev/stdout` is written to directly, without a
/// `.partial` file or a rename.
///
/// It is `~Copyable` because it owns an open file: it can be moved, not copied.
/// `append` checks rows the way `RecordingReader` does (counts within 24 bits,
/// `t_us` not going backwards), so whatever it writes can be read back.
public struct RecordingWriter: ~Copyable {
  /// The columns being written.
  public let header: RecordingHeader
  /// The final path (the file is `path + ".partial"` until `finish()`).
  public let path: String
  /// The number of rows appended so far.
  public private(set) var rowCount = 0
  private let sink: RecordingSink
  private var lastTUs: Int64?

  /// Creates (or truncates) `path + ".partial"` and writes the header row
  /// (see `OutputFile` for what `path` may name).
  /// `header.cellCount` must be at least 1.
  public init(path: String, header: RecordingHeader) throws(FileError) {
    guard header.cellCount >= 1 else {
      throw FileError(file: path, message: "a recording needs at least one cell")
    }
    let maxRowBytes = 20 + header.cellCount * 9 + (header.hasTemperature ? 22 : 0) + 1
    let sink = try RecordingSink(target: OutputFile.target(path), capacity: max(64 * 1024, 2 * maxRowBytes))
    sink.maxRowBytes = maxRowBytes
    try sink.append(header.headerRow + "\n")
    self.header = header
    self.path = path
    self.sink = sink
  }

  /// Appends one row. `counts` must hold at least `cellCount` values, each
  /// within the 24-bit range; `tUs` must be within +-2^62 and not less than
  /// the previous row's. `temperatureC` is written with three decimals (nil,
  /// or a value outside `ValueBound.temperature_c`, writes an empty field)
  /// and is ignored when the header has no `temp_c` column.
  /// On error nothing of the row is written.
  public mutating func append(tUs: Int64, counts: UnsafeBufferPointer<Int32>, temperatureC: Double?)
    throws(FileError)
  {
    let cellCount = header.cellCount
    let line = rowCount + 2
    guard counts.count >= cellCount else {
      throw FileError(
        file: path, line: line, message: "append got \(counts.count) counts, the header has \(cellCount) cells")
    }
    if tUs.magnitude > RecordingReader.maxTime_us.magnitude {
      throw FileError(
        file: path, line: line, field: "column t_us", message: "\(tUs) is outside |t_us| < 2^62")
    }
    if let lastTUs, tUs < lastTUs {
      throw FileError(file: path, line: line, message: "t_us goes backwards (\(tUs) after \(lastTUs))")
    }
    for cell in 0..<cellCount where !RecordingHeader.countRange.contains(counts[cell]) {
      let range = RecordingHeader.countRange
      throw FileError(
        file: path, line: line, field: "column raw_\(cell)",
        message: "\(counts[cell]) is outside the 24-bit range \(range.lowerBound)...\(range.upperBound)")
    }

    let destination = try sink.reserve()
    var count = RecordingText.put(tUs, at: destination)
    for cell in 0..<cellCount {
      destination[count] = UInt8(ascii: ",")
      count += 1 + RecordingText.put(Int64(counts[cell]), at: destination + count + 1)
    }
    if header.hasTemperature {
      destination[count] = UInt8(ascii: ",")
      count += 1
      // A temperature outside what the reader accepts (a sensor glitch, NaN)
      // is not a reading: the field stays empty and the recording goes on.
      if let temperatureC, ValueBound.temperature_c.contains(temperatureC) {
        count += RecordingText.putMillis(temperatureC, at: destination + count)
      }
    }
    destination[count] = UInt8(ascii: "\n")
    sink.commit(count + 1)
    lastTUs = tUs
    rowCount += 1
  }

  /// Writes buffered rows to the `.partial` file (without fsync).
  public mutating func flush() throws(FileError) {
    try sink.flush()
  }

  /// Flushes, fsyncs, renames `path + ".partial"` to `path` and fsyncs the
  /// directory. If it fails, the `.partial` file stays.
  public consuming func finish() throws(FileError) {
    try sink.finish()
  }
}

/// The open `.partial` file (or device) and its write buffer.
final class RecordingSink {
  /// The file written: `FILE.partial`, or a device.
  let partialPath: String
  /// Where `finish()` renames the file to; nil for a device.
  let finalPath: String?
  private var fd: Int32
  private let buffer: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  /// Bytes buffered.
  private var count = 0
  /// Bytes of the buffer already written to the file (a failed flush resumes here).
  private var written = 0
  /// Bytes in the file: whole rows only, once a flush has ended.
  private var fileBytes = 0
  /// The most one row can take; `reserve()` guarantees this much room.
  var maxRowBytes = 0

  init(target: OutputTarget, capacity: Int) throws(FileError) {
    switch target {
    case .device(let device):
      fd = try OutputFile.openDevice(device)
      partialPath = device
      finalPath = nil
    case .file(let file):
      partialPath = file + ".partial"
      finalPath = file
      // A `.partial` left by an earlier run is replaced, never followed
      // (a link there could lead anywhere).
      do throws(Errno) {
        try FileSystem.unlink(partialPath)
      } catch where error == .noSuchFileOrDirectory {
      } catch {
        throw FilesPOSIX.failure(partialPath, "cannot replace", error)
      }
      do throws(Errno) {
        fd = try FileDescriptor.open(partialPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o644).rawValue
      } catch {
        throw FilesPOSIX.failure(partialPath, "cannot create", error)
      }
    }
    self.capacity = capacity
    buffer = .allocate(capacity: capacity)
  }

  deinit {
    if fd >= 0 {
      try? flush()
      FileDescriptor(rawValue: fd).close()
    }
    buffer.deallocate()
  }

  /// Buffers `text` (used for the header).
  func append(_ text: String) throws(FileError) {
    for byte in text.utf8 {
      if count == capacity {
        try flush()
      }
      buffer[count] = byte
      count += 1
    }
  }

  /// Room for one row at the end of the buffer, flushing first if needed.
  func reserve() throws(FileError) -> UnsafeMutablePointer<UInt8> {
    if capacity - count < maxRowBytes {
      try flush()
    }
    return buffer + count
  }

  /// Keeps `bytes` written at the pointer `reserve()` returned.
  func commit(_ bytes: Int) {
    count += bytes
  }

  /// Writes the buffer, looping on short writes. When a write fails (a
  /// full disk, a file size limit) part-way, the file is cut back to its
  /// last whole row, so that the `.partial` file never ends mid-row, and
  /// the rows not written stay buffered.
  func flush() throws(FileError) {
    guard fd >= 0 else {
      throw FileError(file: partialPath, message: "the recording is already finished")
    }
    while written < count {
      do throws(Errno) {
        written += try FileDescriptor(rawValue: fd).write(UnsafeRawBufferPointer(start: buffer + written, count: count - written))
      } catch {
        keepWholeRows()
        throw FilesPOSIX.failure(partialPath, "cannot write", error)
      }
    }
    fileBytes += written
    count = 0
    written = 0
  }

  /// After a failed write: truncates the file after the last whole row
  /// written and keeps the rest of the buffer for a later flush.
  private func keepWholeRows() {
    var whole = written
    while whole > 0 && buffer[whole - 1] != UInt8(ascii: "\n") { whole -= 1 }
    let end = fileBytes + whole
    let file = FileDescriptor(rawValue: fd)
    if (try? file.truncate(to: end)) != nil, (try? file.seek(to: end)) != nil {
      fileBytes = end
      (buffer).update(from: buffer + whole, count: count - whole)
      count -= whole
      written = 0
    }
  }

  func finish() throws(FileError) {
    try flush()
    let closing = fd
    guard let path = finalPath else {
      // A device: written to, nothing to sync or rename.
      fd = -1
      try FilesPOSIX.closeChecked(closing, path: partialPath)
      return
    }
    try FilesPOSIX.sync(fd, path: partialPath)
    fd = -1
    try FilesPOSIX.closeChecked(closing, path: partialPath)
    try FilesPOSIX.renameChecked(partialPath, to: path)
    try FilesPOSIX.syncDirectory(of: path)
  }
}
