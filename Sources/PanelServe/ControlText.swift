/// How a WebSocket message splits into control lines: at each LF, a CR
/// before it dropped (CRLF and LF both end a line); a terminator at the
/// very end starts no further line; an empty message is one empty line.
/// Every line, empty or not, gets a number and one answer, so a client
/// that splits its messages the same way knows which answer is whose.
package enum ControlText {
  /// The longest control line (as from `--control`).
  package static let maxLineBytes = 16 * 1024
  /// The longest `regions [...]` line: its items stand in for a regions
  /// file, so it may be as long as one.
  package static let maxRegionsLineBytes = 256 * 1024

  /// The lines of `message`, as UTF-8 byte slices.
  package static func lines(_ message: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var start = message.startIndex
    for i in message.indices where message[i] == UInt8(ascii: "\n") {
      lines.append(trimmed(message[start..<i]))
      start = i + 1
    }
    if start < message.endIndex || lines.isEmpty { lines.append(trimmed(message[start...])) }
    return lines
  }

  static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    line.last == UInt8(ascii: "\r") ? line.dropLast() : line
  }

  /// Why a line of `size` bytes is refused, or nil: a `regions` line may
  /// have `maxRegionsLineBytes`, any other `maxLineBytes`.
  package static func tooLong(_ line: ArraySlice<UInt8>) -> String? {
    let limit = isRegionsLine(line) ? maxRegionsLineBytes : maxLineBytes
    guard line.count > limit else { return nil }
    return "the line has \(line.count) bytes; a control line may have \(maxLineBytes / 1024) KiB, a regions line \(maxRegionsLineBytes / 1024) KiB"
  }

  /// Whether the line's command is `regions` (after an optional `at SECONDS`).
  static func isRegionsLine(_ line: ArraySlice<UInt8>) -> Bool {
    var words = line.prefix(64).split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }).prefix(3)
    if words.first.map(Array.init) == Array("at".utf8) { words = words.dropFirst(2) }
    return words.first.map(Array.init) == Array("regions".utf8)
  }
}
