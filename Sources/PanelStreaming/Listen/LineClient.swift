import PanelFiles
import PanelHardware

/// One NDJSON connection of `listen`: the bytes of its unfinished line.
struct LineClient {
  /// The longest line printed; a longer one is dropped whole.
  static let maxLineBytes = 16 << 20
  /// Connections served at once.
  static let maxClients = 16

  let fd: FileDescriptor
  let number: Int
  /// When it last sent something (or connected), monotonic us.
  var lastHeard_us: Int64
  var pending: [UInt8] = []
  /// Bytes of a line too long to keep, until its newline.
  var skipped = 0

  init(fd: FileDescriptor, number: Int, now_us: Int64) {
    self.fd = fd
    self.number = number
    lastHeard_us = now_us
  }

  enum Line {
    case whole(ArraySlice<UInt8>)
    case tooLong(Int)
  }

  /// The lines `bytes` completes, in order.
  mutating func take(_ bytes: ArraySlice<UInt8>) -> [Line] {
    var lines: [Line] = []
    var rest = bytes
    while let newline = rest.firstIndex(of: 10) {
      let part = rest[rest.startIndex..<newline]
      rest = rest[(newline + 1)...]
      if skipped > 0 || pending.count + part.count > LineClient.maxLineBytes {
        lines.append(.tooLong(skipped + pending.count + part.count))
        skipped = 0
      } else if pending.isEmpty {
        lines.append(.whole(part))
      } else {
        lines.append(.whole(ArraySlice(pending + part)))
      }
      pending.removeAll(keepingCapacity: false)
    }
    if skipped > 0 || pending.count + rest.count > LineClient.maxLineBytes {
      skipped += pending.count + rest.count
      pending.removeAll(keepingCapacity: false)
    } else {
      pending += rest
    }
    return lines
  }
}
