import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// Lines read from a descriptor (the fixture controller on standard
/// input), at most `maxBytes` each, waited for in 100 ms slices so that a
/// stop (SIGTERM) is answered while waiting.
struct LineInput {
  let fd: FileDescriptor
  /// The longest line taken; a longer one is refused, not cut.
  static let maxBytes = 4096
  var pending: [UInt8] = []
  var atEnd = false

  enum Next: Equatable {
    case line(String)
    case end
    case tooLong
    case stopped
  }

  init(fd: FileDescriptor) { self.fd = fd }

  /// The next line without its line end.
  mutating func next() -> Next {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      if let newline = pending.firstIndex(of: 10) {
        let line = pending[..<newline]
        pending.removeFirst(newline + 1)
        return line.count > LineInput.maxBytes ? .tooLong : .line(String(decoding: line, as: UTF8.self))
      }
      if pending.count > LineInput.maxBytes { return .tooLong }
      if atEnd {
        guard !pending.isEmpty else { return .end }
        defer { pending.removeAll() }
        return .line(String(decoding: pending, as: UTF8.self))
      }
      if StopRequest.isRequested { return .stopped }
      do {
        guard try Poll.wait(fd, for: Int16(POLLIN), timeout_ms: 100) != 0 else { continue }
        let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
        if n > 0 { pending += chunk[0..<n] } else { atEnd = true }
      } catch let error as Errno where error.isWouldBlock {
      } catch {
        atEnd = true
      }
    }
  }
}
