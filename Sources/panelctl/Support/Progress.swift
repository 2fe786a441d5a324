import PanelFirmware

/// A progress line on standard error, redrawn a few times a second, shown
/// only when standard error is a terminal (quiet in pipes and logs). The
/// first draw waits a moment, so short runs print nothing.
struct Progress {
  let label: String
  /// Frames expected, when known (`--frames`, `--duration`).
  let total: Int?
  let rate_hz: Int
  let enabled = Terminal.errorIsTerminal
  var last = monotonicMicroseconds()
  var drawn = false

  init(label: String, total: Int?, rate_hz: Int) {
    self.label = label
    self.total = total
    self.rate_hz = rate_hz
  }

  /// `done` frames so far; `fraction` (0...1) of the work done when the
  /// frame count does not tell (a replay: how much of the file is read).
  mutating func update(_ done: Int, fraction: @autoclosure () -> Double? = nil) {
    guard enabled else { return }
    let now = monotonicMicroseconds()
    guard now - last >= 200_000 else { return }
    last = now
    draw(done, fraction: fraction())
    drawn = true
  }

  func draw(_ done: Int, fraction: Double?) {
    var line = "\r\(label): \(done) frames (\(format(seconds(done))) s)"
    if let f = fraction {
      line += " \(Int(saturating: (max(0, min(1, f)) * 100).rounded(.down)))%"
    } else if let total, total > 0 {
      line += " \(min(done, total) * 100 / total)%"
    }
    Terminal.writeError(line + "   ")
  }

  /// Ends the line: when it was drawn, once more with the final count (the
  /// last redraw may be up to 0.2 s old), so it never stays at "90%".
  mutating func finish(_ done: Int? = nil, fraction: Double? = nil) {
    if drawn, let done { draw(done, fraction: fraction) }
    if drawn { Terminal.writeError("\n") }
    drawn = false
  }

  func seconds(_ frames: Int) -> Double { Double(frames) / Double(max(rate_hz, 1)) }

  func format(_ s: Double) -> String {
    let tenths = Int(saturating: (s * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }

  /// The frames a run will deliver, when its options say: `--frames`, or
  /// `--duration` at the board's rate (the smaller of the two).
  static func frames(_ length: RunLengthOptions, rate_hz: Int) -> Int? {
    let byTime = length.duration.map { Int(saturating: ($0 * Double(rate_hz)).rounded()) }
    switch (length.frames, byTime) {
    case (let f?, let t?): return min(f, t)
    case (let f?, nil): return f
    case (nil, let t): return t
    }
  }
}
