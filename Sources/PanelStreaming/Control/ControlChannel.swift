import ForceCore
import PanelFormats
import PanelHardware

/// Control lines (`ControlLine`) the host writes to a file or a named pipe
/// while the panel runs: read without blocking between frames, like
/// `tail -f`. A line with `at SECONDS` waits until that stream time (from
/// the first frame polled), so a regular file can script a run; a line
/// without it applies at the next frame.
///
/// What one `poll` does is bounded, whatever the host writes: one read of
/// at most `readBytesPerPoll` bytes, lines taken within a budget of
/// `maxLinesPerPoll` (a line costs one, and one more for each KiB it
/// holds; a `regions` line ends the poll's lines), at most
/// `maxLinesPerPoll` timed lines applied. Lines beyond wait for the next
/// frames; a flood backs up in the pipe, not in the panel. A line longer
/// than `maxLineBytes` is refused with an error (never cut), and at most
/// `maxScheduled` timed lines may wait.
///
/// With `Loading.background` (a panel in real time) a `regions` line is
/// parsed, its file loaded and its map compiled on a thread of its own
/// (`ControlLoader`): the frame loop takes the map back at a later frame
/// boundary and swaps it in, and takes no further line meanwhile (lines
/// keep their order). With `.inline` (a replay, a simulation as fast as
/// possible) the loop waits for it, so that such a run's reports do not
/// depend on the thread's speed.
///
/// `poll` allocates nothing when nothing arrived and nothing is due.
public struct ControlChannel {
  public let path: String
  let board: Board
  let fd: FileDescriptor
  /// Bytes read and not yet taken: `buffer[start..<end]`.
  let storage: ByteStorage
  var buffer: UnsafeMutableBufferPointer<UInt8> { storage.bytes }
  var start = 0
  var end = 0
  /// Inside a line longer than `maxLineBytes`: its bytes are dropped up to
  /// its newline (the error was given when it overflowed).
  var skipping = false
  var lineNumber = 0
  var schedule = ControlSchedule<Int>()
  var failed = false
  /// Where `regions` lines are parsed (nil: inline, in `poll`).
  let loader: ControlLoader?

  /// Where a line that loads or compiles a regions map is parsed.
  public enum Loading: Sendable {
    /// In `poll`, on the frame loop (a run that is not in real time).
    case inline
    /// On a thread of its own, swapped in at a later frame.
    case background
  }

  /// The longest control line (a `quick_actions` line with four actions
  /// takes under 1 KiB).
  public static let maxLineBytes = 16 * 1024
  /// Bytes read per poll (per frame).
  public static let readBytesPerPoll = 4096
  /// Lines taken, and timed lines applied, per poll.
  public static let maxLinesPerPoll = 16
  /// Timed lines (`at SECONDS ...`) waiting at most.
  public static var maxScheduled: Int { ControlSchedule<Void>.capacity }

  /// What taking `line` costs against a poll's `maxLinesPerPoll`: a
  /// `regions` line (which loads or compiles a map) the whole budget,
  /// any other one.
  public static func cost(of line: ControlLine) -> Int {
    if case .regions = line.command { return maxLinesPerPoll }
    return 1
  }

  /// What parsing a line of `bytes` bytes costs: one, and one per KiB.
  static func cost(bytes: Int) -> Int { 1 + bytes / 1024 }

  /// Opens `path` (a regular file or a named pipe, see `InputFile`) for
  /// non-blocking reads.
  public init(path: String, board: Board, loading: Loading = .inline) throws(FileError) {
    self.path = path
    self.board = board
    loader = loading == .background ? ControlLoader(board: board) : nil
    fd = FileDescriptor(rawValue: try InputFile.open(path, accepting: .regularFileOrPipe))
    try? fd.setNonBlocking(true)
    storage = ByteStorage(capacity: ControlChannel.maxLineBytes + ControlChannel.readBytesPerPoll)
  }

  /// Closes the file.
  public func close() {
    fd.close()
    loader?.close()
  }

  /// Reads what arrived and returns the commands due at frame time `time`,
  /// in order, and the lines that could not be used.
  public mutating func poll(time: Time_us) -> (due: [InteractionCommand], errors: [FileError]) {
    let (due, errors) = pollLines(time: time)
    return (due.map(\.command), errors)
  }

  /// As `poll`, with the line of the file each command came from (so that
  /// what applying it says can name that line).
  public mutating func pollLines(time: Time_us) -> (due: [(command: InteractionCommand, line: Int)], errors: [FileError]) {
    var due: [(command: InteractionCommand, tag: Int)] = []
    var errors: [FileError] = []
    if !failed { readOnce(&errors) }
    takeLines(&due, &errors)
    schedule.take(time: time, into: &due, limit: ControlChannel.maxLinesPerPoll)
    return (due.map { ($0.command, $0.tag) }, errors)
  }

  /// One non-blocking read into the free end of the buffer, if there is
  /// room for a whole read.
  mutating func readOnce(_ errors: inout [FileError]) {
    if start > 0 && start == end {
      start = 0
      end = 0
    }
    if buffer.count - end < ControlChannel.readBytesPerPoll && start > 0 {
      let pending = end - start
      UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: buffer.baseAddress! + start, byteCount: pending)
      start = 0
      end = pending
    }
    let room = min(ControlChannel.readBytesPerPoll, buffer.count - end)
    guard room > 0 else { return }
    do throws(Errno) {
      end += try fd.read(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[end..<end + room])))
    } catch where error.isWouldBlock {
    } catch {
      failed = true
      errors.append(FileError(file: path, message: "cannot read: \(error)"))
    }
  }

  /// Takes up to `maxLinesPerPoll` whole lines from the buffer.
  mutating func takeLines(_ due: inout [(command: InteractionCommand, tag: Int)], _ errors: inout [FileError]) {
    var budget = ControlChannel.maxLinesPerPoll
    if let loader, loader.busy {
      // A regions line is out: nothing after it is taken before it is back.
      guard let (line, result) = loader.take() else { return }
      _ = use(result, line: line, &due, &errors)
      return
    }
    while budget > 0 {
      let pending = UnsafeBufferPointer(rebasing: buffer[start..<end])
      guard let offset = pending.firstIndex(of: UInt8(ascii: "\n")) else {
        if pending.count >= ControlChannel.maxLineBytes {
          if !skipping {
            errors.append(
              FileError(
                file: path, line: lineNumber + 1,
                message: "longer than \(ControlChannel.maxLineBytes / 1024) KiB (the limit for a control line): refused"))
          }
          skipping = true
          start = end
        }
        return
      }
      let newline = start + offset
      let line = UnsafeBufferPointer(rebasing: buffer[start..<newline])
      start = newline + 1
      lineNumber += 1
      if skipping {
        skipping = false
        continue
      }
      budget -= take(line, &due, &errors)
    }
  }

  /// Parses one line; returns its cost against the poll's budget (a
  /// `regions` line, which loaded a file, takes all of it).
  mutating func take(
    _ bytes: UnsafeBufferPointer<UInt8>, _ due: inout [(command: InteractionCommand, tag: Int)], _ errors: inout [FileError]
  ) -> Int {
    let text = String(decoding: bytes, as: UTF8.self)
    if let loader, ControlLine.loadsRegions(text) {
      loader.submit(text, file: path, line: lineNumber)
      return ControlChannel.maxLinesPerPoll
    }
    do {
      let line = try ControlLine.parse(text, file: path, line: lineNumber, board: board)
      return max(use(.success(line), line: lineNumber, &due, &errors), ControlChannel.cost(bytes: bytes.count))
    } catch {
      errors.append(error)
      return ControlChannel.cost(bytes: bytes.count)
    }
  }

  /// Schedules a parsed line (or tells why it could not be parsed);
  /// returns its cost.
  mutating func use(
    _ result: Result<ControlLine?, FileError>, line number: Int,
    _ due: inout [(command: InteractionCommand, tag: Int)], _ errors: inout [FileError]
  ) -> Int {
    switch result {
    case .failure(let error):
      errors.append(error)
      return 1
    case .success(nil):
      return 1
    case .success(let line?):
      if !schedule.add(line, tag: number, due: &due) {
        errors.append(
          FileError(
            file: path, line: number,
            message: "\(ControlChannel.maxScheduled) timed lines are already waiting (the limit): refused"))
      }
      return ControlChannel.cost(of: line)
    }
  }
}

/// A byte buffer allocated once, freed with its last owner.
final class ByteStorage {
  let bytes: UnsafeMutableBufferPointer<UInt8>
  init(capacity: Int) { bytes = .allocate(capacity: capacity) }
  deinit { bytes.deallocate() }
}
