import PanelFirmware

/// The server's news on standard error (the journal, under systemd), one
/// line each: `panelctl: serve: ...`. News that a peer can repeat at will
/// (refusals, the server library's complaints) goes through `warn`: at
/// most 10 lines of a kind a minute, the rest counted for the summary.
package enum ServeLog {
  package static func write(_ message: String) {
    StandardError.write("panelctl: serve: " + Quote.line(message) + "\n")
  }

  static let limiter = Locked(WarningLimiter())

  /// `message` if a line of `kind` is admitted now; else it is counted.
  package static func warn(_ kind: String, _ message: String) {
    let shown = limiter.withLock { $0.admit(kind, now_us: monotonicMicroseconds()) }
    if shown { write(message) }
  }

  /// The kinds of warnings not shown, with their counts.
  package static var summary: [String] { limiter.withLock { $0.summary } }
}
