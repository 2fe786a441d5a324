import PanelFirmware

/// The live calibration's side of the conversation:
/// - guided: what to place where, then a live stability indicator (the
///   indicator only on a terminal);
/// - unattended: an overall progress line, on a terminal only;
/// - fixture: one line per step on standard output
///   (`step=3 of=85 role=fit load_g=250.0 x_mm=20.0 y_mm=15.0 [temp_c=35.0]`),
///   answered by `ready` on standard input (`abort` stops); `done step=3`
///   when it is recorded, `result=pass|fail` at the end.
struct CalibrationConsole: LiveCalibrationObserver {
  let mode: CalibrationMode
  let board: Board
  let terminal = Terminal.errorIsTerminal
  var count = 0
  var index = 0
  var lastDraw: Int64 = 0
  var drawn = false
  /// The fixture controller's answers.
  var input = LineInput(fd: .standardInput)

  init(mode: CalibrationMode, board: Board) {
    self.mode = mode
    self.board = board
  }

  var shouldStop: Bool { Terminal.shouldStop }

  mutating func begin(_ step: CalibrationStep, index: Int, count: Int) throws(CalibrationRunError) {
    self.index = index
    self.count = count
    switch mode {
    case .guided:
      clearLine()
      Terminal.writeError("Step \(index) of \(count) (\(step.role.rawValue)): \(Quote.printable(instruction(step)))\n")
    case .unattended:
      guard terminal else { return }
      clearLine()
      Terminal.writeError("\rcalibrating: step \(index)/\(count), \(step.role.rawValue) \(Quote.printable(short(step)))")
      drawn = true
    case .fixture:
      var line = "step=\(index) of=\(count) role=\(step.role.rawValue) load_g=\(step.load_g)"
      if step.isLoaded { line += " x_mm=\(step.x_mm) y_mm=\(step.y_mm)" }
      if let c = step.temp_c { line += " temp_c=\(c)" }
      CalibrationConsole.writeOutput(line + "\n")
      let answer: String
      switch input.next() {
      case .line(let text): answer = text
      case .end: throw .stopped(step: step.name, "the fixture controller closed its input")
      case .stopped: throw .stopped(step: step.name, "interrupted")
      case .tooLong:
        throw .stopped(step: step.name, "the fixture controller sent a line longer than \(LineInput.maxBytes) bytes")
      }
      let word = answer.trimmingSpaces.lowercased()
      if word == "abort" { throw .stopped(step: step.name, "the fixture controller aborted") }
      if word != "ready" {
        throw .stopped(step: step.name, "the fixture controller said \(Quote.text(answer)) (expected ready or abort)")
      }
    }
  }

  mutating func update(_ step: CalibrationStep, phase: LivePhase) {
    guard mode == .guided, terminal else { return }
    let now = monotonicMicroseconds()
    guard now - lastDraw >= 100_000 else { return }
    lastDraw = now
    var line: String
    switch phase {
    case .waitingForLoad:
      line = "  waiting for the load ...          "
    case .settling(let score, let settled):
      let state = score <= 1 ? "still " : "moving"
      line = "  \(state) \(bar(settled)) settling"
    case .recording(let fraction):
      line = "  still  \(bar(fraction)) recording \(Int(fraction * 100))%"
    }
    Terminal.writeError("\r" + line + "   ")
    drawn = true
  }

  mutating func recorded(_ step: CalibrationStep) {
    switch mode {
    case .guided:
      clearLine()
      if terminal { Terminal.writeError("  recorded\n") }
    case .unattended: break
    case .fixture: CalibrationConsole.writeOutput("done step=\(index)\n")
    }
  }

  mutating func finish() { clearLine() }

  mutating func clearLine() {
    guard drawn else { return }
    Terminal.writeError("\r\u{1B}[K")
    drawn = false
  }

  func instruction(_ step: CalibrationStep) -> String {
    var s = ""
    if let c = step.temp_c { s += "bring the panel to \(Format.fixed(c, 1)) degC; " }
    switch step.role {
    case .tare: s += "clear the panel and keep it still"
    case .zero: s += "lift every mass off the panel"
    case .hold: s += "place \(short(step)) and leave it for \(Format.short(step.record_s)) s"
    case .fit, .verify: s += "place \(short(step))"
    }
    return s
  }

  func short(_ step: CalibrationStep) -> String {
    guard step.isLoaded else { return "no load" }
    return "\(Format.short(step.load_g)) g at (\(Format.fixed(step.x_mm, 1)), \(Format.fixed(step.y_mm, 1))) mm"
  }

  func bar(_ fraction: Double) -> String {
    let n = Int((max(0, min(1, fraction)) * 20).rounded())
    return "[" + String(repeating: "#", count: n) + String(repeating: ".", count: 20 - n) + "]"
  }

  /// Writes to standard output at once (the fixture reads it line by line).
  static func writeOutput(_ text: String) { StandardOutput.write(text) }
}

extension String {
  var trimmingSpaces: String {
    var s = Substring(self)
    while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
    return String(s)
  }
}
