import ArgumentParser
import PanelFirmware

/// How a live calibration is driven.
enum CalibrationMode: String, ExpressibleByArgument, CaseIterable {
  /// An operator at a terminal: what to place where, a live stability indicator.
  case guided
  /// Steps advance when the readings change and settle (a fixture that
  /// places masses on its own, or a simulated panel).
  case unattended
  /// A fixture controller on stdin/stdout: one line per step out, `ready` in.
  case fixture
}

extension PanelCtl {
  struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Calibrate a panel: live from a plan, or from a recorded session.",
      discussion: """
        Live: panelctl calibrate --board B --plan P [--mode guided|unattended|fixture] \
        records the session into --session DIR (default calibration/sessions/BOARD-SERIAL-DATE) \
        and computes from it. On a simulated board the simulator places the masses itself. \
        Offline: panelctl calibrate --board B --session DIR --out CAL computes the same from \
        a recorded session. The record goes to CAL (default calibration/BOARD.toml) only when \
        every check passes; the certificate (CAL without .toml, plus .certificate.html and \
        .certificate.json) is written either way. Exit status: 0 pass, 2 a check failed, 1 error.
        """)

    @Option(name: .long, help: ArgumentHelp("The board file.", valueName: "BOARD.toml"))
    var board: String

    @Option(name: .long, help: ArgumentHelp("Run this plan live (calibration/plans/*.toml).", valueName: "PLAN.toml"))
    var plan: String?

    @Option(
      name: .long,
      help: ArgumentHelp("The session directory: recorded into (live) or computed from (offline).", valueName: "DIR"))
    var session: String?

    @Option(name: .long, help: ArgumentHelp("Where to write the calibration record.", valueName: "CAL"))
    var out: String?

    @Option(name: .long, help: "Live: the panel's serial number (default: the simulated panel's own).")
    var serial: String?

    @Option(name: .long, help: "Live: who places the masses (default: guided on a terminal, unattended otherwise).")
    var mode: CalibrationMode?

    @Option(
      name: .long,
      help: ArgumentHelp("Simulated panels: 1 runs in real time, 0 as fast as possible.", valueName: "FACTOR"))
    var speed: Double = 1

    func validate() throws {
      if plan == nil && session == nil {
        throw ValidationError("give --plan PLAN (live) or --session DIR --out CAL (from a recorded session)")
      }
      if plan == nil && out == nil { throw ValidationError("--out CAL is needed with --session (and no --plan)") }
      if plan == nil && (mode != nil || serial != nil) {
        throw ValidationError("--mode and --serial apply to a live calibration (--plan)")
      }
      if !(speed >= 0) || !speed.isFinite { throw ValidationError("--speed must be 0 or more, is \(speed)") }
    }

    func run() throws {
      let b = try Board.load(path: board)
      let directory: String
      if let plan {
        directory = try live(board: b, planPath: plan)
      } else {
        directory = session!
      }
      let recorded = try CalibrationSession.load(directory: directory, board: b)
      let result = try CalibrationComputation.run(session: recorded, board: b, created: UTCDate.now())
      try finish(result, board: b)
    }

    /// Records a session live and returns its directory.
    func live(board b: Board, planPath: String) throws -> String {
      let p = try CalibrationPlan.load(path: planPath, board: b)
      let runMode = mode ?? (Terminal.errorIsTerminal ? .guided : .unattended)
      let date = UTCDate.now()
      Terminal.stopOnSignals()
      switch b.frontEnd.kind {
      case "sim":
        let panel = SimulatedPanel(
          board: b, parameters: try FrontEndFactory.simulationParameters(b), scenario: .idle(),
          duration_s: .infinity, speed: speed)
        let id = serial ?? panel.parameters.serial
        let dir = sessionDirectory(board: b, serial: id)
        let s = CalibrationSession(recording: p, directory: dir, serial: id, date: date)
        var run = LiveCalibration(source: panel, board: b, plan: p, session: s) { panel, step, rise in
          panel.apply(step, rise_s: rise)
        }
        try record(&run, mode: runMode, plan: p)
        return dir
      default:
        guard let id = serial else {
          throw CommandFailure(message: "--serial is needed: this panel does not report one", status: .usage)
        }
        let dir = sessionDirectory(board: b, serial: id)
        let s = CalibrationSession(recording: p, directory: dir, serial: id, date: date)
        let frontEnd = try FrontEndFactory.make(board: b, options: RunOptions(speed: speed))
        try recordManually(frontEnd, board: b, plan: p, session: s, mode: runMode)
        return dir
      }
    }

    /// A person or a fixture places the masses.
    func recordManually<F: FrontEnd>(
      _ frontEnd: F, board b: Board, plan p: CalibrationPlan, session s: CalibrationSession, mode: CalibrationMode
    ) throws {
      var run = LiveCalibration(source: frontEnd, board: b, plan: p, session: s)
      try record(&run, mode: mode, plan: p)
    }

    func record<F: FrontEnd>(_ run: inout LiveCalibration<F>, mode: CalibrationMode, plan: CalibrationPlan) throws {
      var console = CalibrationConsole(mode: mode, board: run.board)
      do {
        try run.run(&console)
      } catch {
        console.finish()
        throw CommandFailure(message: "calibration stopped: \(error.description)", status: .error)
      }
      console.finish()
    }

    func sessionDirectory(board b: Board, serial id: String) -> String {
      if let session { return session }
      let safe = String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
      return Paths.directory(of: b.file) + "../calibration/sessions/\(b.name)-\(safe)-\(UTCDate.stamp())"
    }

    /// Writes the certificate, and the record when every check passed.
    func finish(_ result: CalibrationResult, board b: Board) throws {
      let cal = out ?? CalibrationLookup.defaultPath(for: b)
      let stem = cal.hasSuffix(".toml") ? String(cal.dropLast(5)) : cal
      let folder = Paths.directory(of: cal)
      if !folder.isEmpty { try Directory.create(folder) }
      try AtomicFile.write(Certificate.html(result), to: stem + ".certificate.html")
      try AtomicFile.write(Certificate.json(result), to: stem + ".certificate.json")
      if case .fixture = mode ?? .unattended {
        CalibrationConsole.writeOutput("result=\(result.passed ? "pass" : "fail")\n")
      }
      guard result.passed else {
        let failed = result.checks.filter { !$0.passed }.count
        let more = failed > 1 ? " (and \(failed - 1) more failed checks)" : ""
        throw CommandFailure(
          message: "calibration failed: \(result.firstFailure ?? "")\(more); the previous calibration is kept; see \(stem).certificate.html",
          status: .checkFailed)
      }
      try result.record.write(to: cal)
      if Terminal.errorIsTerminal {
        Terminal.writeError("calibration passed: \(cal), certificate \(stem).certificate.html\n")
      }
    }
  }
}
