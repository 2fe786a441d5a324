import PanelFormats
import PanelHardware

/// Lines on standard error, written unbuffered and whole.
public enum StandardError {
  /// Writes one message line (a trailing newline of `text` is its own):
  /// escaped and cut to `Quote.maxLineCharacters`, prefix included.
  public static func line(_ text: String) {
    write(Quote.line(text.hasSuffix("\n") ? text.dropLast() : Substring(text)) + "\n")
  }

  /// Writes `text` whole (`FileDescriptor.writeAll`); a closed standard
  /// error is ignored.
  public static func write(_ text: String) {
    var text = text
    text.withUTF8 { write($0) }
  }

  /// Writes `bytes` whole, without allocating; a closed standard error is
  /// ignored.
  public static func write(_ bytes: UnsafeBufferPointer<UInt8>) {
    try? FileDescriptor.standardError.writeAll(UnsafeRawBufferPointer(bytes))
  }
}

/// Warnings of one kind shown at most `burst` times a minute, the rest
/// counted: a host that writes a million bad control lines gets ten lines
/// a minute on standard error and the count at the end, not a million lines.
public struct WarningLimiter: Sendable {
  /// Warnings of one kind shown per window.
  public static let burst = 10
  /// The window: a minute.
  public static let window_us: Int64 = 60_000_000

  struct Count: Sendable {
    var windowStart: Int64
    var shownInWindow = 0
    var suppressed: UInt64 = 0
  }
  var counts: [String: Count] = [:]
  var order: [String] = []

  public init() {}

  /// Whether a warning of `kind` at `now_us` is shown; if not, it is counted.
  public mutating func admit(_ kind: String, now_us: Int64) -> Bool {
    var c = counts[kind] ?? { order.append(kind); return Count(windowStart: now_us) }()
    if now_us - c.windowStart >= WarningLimiter.window_us {
      c.windowStart = now_us
      c.shownInWindow = 0
    }
    let shown = c.shownInWindow < WarningLimiter.burst
    if shown { c.shownInWindow += 1 } else { c.suppressed += 1 }
    counts[kind] = c
    return shown
  }

  /// Writes `line` on standard error (one bounded line, `StandardError.line`)
  /// if a warning of `kind` is admitted now.
  public mutating func warn(_ kind: String, _ line: String) {
    if admit(kind, now_us: monotonicMicroseconds()) { StandardError.line(line) }
  }

  /// One line per kind with warnings not shown: `12345 control line
  /// warnings not shown (at most 10 a minute)`.
  public var summary: [String] {
    order.compactMap { kind in
      guard let n = counts[kind]?.suppressed, n > 0 else { return nil }
      return "\(n) \(kind) warnings not shown (at most \(WarningLimiter.burst) a minute)"
    }
  }
}
