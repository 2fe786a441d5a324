import ForceCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Control lines (`ControlLine`) the host writes to a file or a named pipe
/// while the panel runs: read without blocking between frames, like
/// `tail -f`. A line with `at SECONDS` waits until that stream time (from
/// the first frame polled), so a regular file can script a run; a line
/// without it applies at the next frame.
///
/// `poll` makes one non-blocking read per call and allocates nothing when
/// nothing arrived and nothing is due.
public struct ControlChannel {
  public let path: String
  let board: Board
  let fd: Int32
  var chunk: [UInt8]
  var partial: [UInt8] = []
  var lineNumber = 0
  var schedule = ControlSchedule<Void>()
  var failed = false

  /// Opens `path` (a regular file or a FIFO) for non-blocking reads.
  public init(path: String, board: Board) throws(FileError) {
    self.path = path
    self.board = board
    var fd: Int32 = -1
    repeat {
      fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    } while fd < 0 && errno == EINTR
    if fd < 0 {
      let code = errno
      if code == ENOENT { throw FileError(file: path, message: "no such file") }
      throw FileError(file: path, message: "cannot open: \(String(cString: strerror(code)))")
    }
    self.fd = fd
    chunk = [UInt8](repeating: 0, count: 4096)
    partial.reserveCapacity(4096)
  }

  /// Closes the file.
  public func close() { _ = Glibc.close(fd) }

  /// Reads what arrived and returns the commands due at frame time `time`,
  /// in order, and the lines that could not be used.
  public mutating func poll(time: Time_us) -> (due: [InteractionCommand], errors: [FileError]) {
    var due: [(command: InteractionCommand, tag: Void)] = []
    var errors: [FileError] = []
    if !failed { drain(into: &due, errors: &errors) }
    schedule.take(time: time, into: &due)
    return (due.map(\.command), errors)
  }

  mutating func drain(into due: inout [(command: InteractionCommand, tag: Void)], errors: inout [FileError]) {
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return }
        failed = true
        errors.append(FileError(file: path, message: "cannot read: \(String(cString: strerror(code)))"))
        return
      }
      if n == 0 { return }
      for i in 0..<n {
        let b = chunk[i]
        if b == UInt8(ascii: "\n") {
          take(&due, &errors)
        } else if partial.count < 64 * 1024 {
          partial.append(b)
        }
      }
      if n < chunk.count { return }
    }
  }

  /// Parses the line collected in `partial`.
  mutating func take(_ due: inout [(command: InteractionCommand, tag: Void)], _ errors: inout [FileError]) {
    lineNumber += 1
    let text = String(decoding: partial, as: UTF8.self)
    partial.removeAll(keepingCapacity: true)
    do {
      guard let line = try ControlLine.parse(text, file: path, line: lineNumber, board: board) else { return }
      schedule.add(line, tag: (), due: &due)
    } catch {
      errors.append(error)
    }
  }
}
