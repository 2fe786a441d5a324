import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// A progress line on standard error, redrawn a few times a second, shown
/// only when standard error is a terminal (quiet in pipes and logs).
struct Progress {
  let label: String
  let total: Int?
  let rate_hz: Int
  let enabled = Terminal.errorIsTerminal
  var last: Int64 = 0
  var drawn = false

  init(label: String, total: Int?, rate_hz: Int) {
    self.label = label
    self.total = total
    self.rate_hz = rate_hz
  }

  mutating func update(_ done: Int) {
    guard enabled else { return }
    let now = monotonicMicroseconds()
    guard now - last >= 200_000 else { return }
    last = now
    let seconds = Double(done) / Double(max(rate_hz, 1))
    var line = "\r\(label): \(done) frames (\(format(seconds)) s)"
    if let total, total > 0 { line += " \(done * 100 / total)%" }
    Terminal.writeError(line + "   ")
    drawn = true
  }

  mutating func finish() {
    if drawn { Terminal.writeError("\n") }
  }

  func format(_ s: Double) -> String {
    let tenths = Int((s * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }
}
