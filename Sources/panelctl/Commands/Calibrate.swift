import ArgumentParser
import PanelFactory
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
        every check passes, with its certificate (CAL without .toml, plus .certificate.html and \
        .certificate.json); a failed run leaves both as they were and writes its certificate \
        as .failed.certificate.html and .json. Exit status: 0 pass, 2 a check failed, 1 error.
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

    @OptionGroup(title: "Factory database") var factory: StationOptions

    func validate() throws {
      if plan == nil && session == nil {
        throw ValidationError("give --plan PLAN (live) or --session DIR --out CAL (from a recorded session)")
      }
      if plan == nil && out == nil { throw ValidationError("--out CAL is needed with --session (and no --plan)") }
      if plan == nil && (mode != nil || serial != nil) {
        throw ValidationError("--mode and --serial apply to a live calibration (--plan)")
      }
      try OptionBounds.speed(speed)
    }

    /// Stores a passing record on the panel, returning what to say about it.
    typealias PanelStore = (CalibrationRecord) throws -> String

    func run() throws {
      _ = FactoryLog.started
      let b = try Board.load(path: board)
      // The output's name is checked before a step is recorded.
      _ = try FileSet.calibrationOutput(out ?? CalibrationLookup.defaultPath(for: b))
      var directory = session ?? ""
      var panel: PanelStore?
      if let plan {
        (directory, panel) = try live(board: b, planPath: plan)
      }
      let recorded = try CalibrationSession.load(directory: directory, board: b)
      for warning in recorded.warnings { StandardError.line("panelctl: warning: \(warning)") }
      let result = try CalibrationComputation.run(session: recorded, board: b, created: UTCDate.now())
      try finish(result, board: b, panel: panel)
    }

    /// Records a session live; returns its directory and, where the board
    /// has an EEPROM, how to store the record on the panel.
    func live(board b: Board, planPath: String) throws -> (String, PanelStore?) {
      let p = try CalibrationPlan.load(path: planPath, board: b)
      let runMode = mode ?? (Terminal.errorIsTerminal ? .guided : .unattended)
      let date = UTCDate.now()
      Terminal.stopOnSignals()
      switch b.frontEnd {
      case .simulatedPanel(let parameters):
        let panel = SimulatedPanel(
          board: b, parameters: parameters, scenario: .idle(), duration_s: .infinity, speed: speed)
        let id = serial ?? panel.parameters.serial
        let dir = try sessionDirectory(board: b, serial: id)
        let s = CalibrationSession(recording: p, directory: dir, serial: id, date: date)
        var run = LiveCalibration(source: panel, board: b, plan: p, session: s) { panel, step, rise in
          panel.apply(step, rise_s: rise)
        }
        try record(&run, mode: runMode, plan: p)
        return (dir, nil)
      case .simulatedTwin:
        // A simulated twin: the real drivers; the fixture moves masses on its physics.
        let rig = try SimulatedTwinRig(board: b, speed: speed)
        let id = serial ?? rig.serial
        let dir = try sessionDirectory(board: b, serial: id)
        let s = CalibrationSession(recording: p, directory: dir, serial: id, date: date)
        try recordLive(rig.frontEnd, board: b, plan: p, session: s, mode: runMode) { step, rise in
          rig.hardware.signals.apply(step, rise_s: rise)
        }
        guard var memory = rig.memory else { return (dir, nil) }
        return (dir, { record throws in try Self.store(record, board: b, in: &memory) })
      case .chips:
        guard let id = serial else {
          throw CommandFailure(message: "--serial is needed: this panel does not report one", status: .usage)
        }
        let dir = try sessionDirectory(board: b, serial: id)
        let s = CalibrationSession(recording: p, directory: dir, serial: id, date: date)
        let frontEnd = try FrontEndFactory.make(board: b, options: RunOptions(speed: speed))
        try recordLive(frontEnd, board: b, plan: p, session: s, mode: runMode, place: nil)
        guard var memory = try PanelMemory.open(board: b) else { return (dir, nil) }
        return (dir, { record throws in try Self.store(record, board: b, in: &memory) })
      }
    }

    /// Stores `record` on the panel's EEPROM.
    static func store<B: I2CBus, C: MonotonicClock>(
      _ record: CalibrationRecord, board b: Board, in memory: inout PanelMemory<B, C>
    ) throws -> String {
      do {
        let sequence = try memory.write(record, board: b)
        return "stored on the panel (\(memory.location)): two copies, sequence \(sequence), read back and verified"
      } catch {
        throw CommandFailure(message: "the record could not be stored on the panel: \(error)", status: .error)
      }
    }

    /// Runs the plan on `frontEnd`; `place` applies a step's load (a
    /// simulated fixture), nil when a person or a fixture does.
    func recordLive<F: FrontEnd>(
      _ frontEnd: F, board b: Board, plan p: CalibrationPlan, session s: CalibrationSession, mode: CalibrationMode,
      place: ((CalibrationStep, Double) -> Void)?
    ) throws {
      var run: LiveCalibration<F>
      if let place {
        run = LiveCalibration(source: frontEnd, board: b, plan: p, session: s) { _, step, rise in place(step, rise) }
      } else {
        run = LiveCalibration(source: frontEnd, board: b, plan: p, session: s)
      }
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

    /// `--session`, or a new directory of this run's own under
    /// `calibration/sessions/` (`BOARD-SERIAL-DATE`, `-2`, ... when taken).
    func sessionDirectory(board b: Board, serial id: String) throws -> String {
      if let session { return session }
      let safe = String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
      return try Directory.createNew(Paths.directory(of: b.file) + "../calibration/sessions/\(b.name)-\(safe)-\(UTCDate.stamp())")
    }

    /// Writes the record and its certificates when every check passed,
    /// committed together (`FileSet`: one rename makes the record and both
    /// certificates visible at once; a full disk is met before anything is
    /// replaced; leftovers of an interrupted run are swept), after storing
    /// the record on the panel when it has an EEPROM. Nothing after the
    /// commit can fail. A failed run keeps the previous record and its
    /// certificates: its own certificate goes to `STEM.failed.certificate.*`.
    func finish(_ result: CalibrationResult, board b: Board, panel: PanelStore?) throws {
      var result = result
      let cal: String
      switch try FileSet.calibrationOutput(out ?? CalibrationLookup.defaultPath(for: b)) {
      case .file(let file): cal = file
      case .device(let device): return try finish(result, on: device, panel: panel)
      }
      let stem = cal.hasSuffix(".toml") ? String(cal.dropLast(5)) : cal
      let folder = Paths.directory(of: cal)
      if !folder.isEmpty { try Directory.create(folder) }
      let log = FactoryLog(options: factory, record: cal)
      if result.passed {
        let files = FileSet.calibration(record: cal)
        let prepared = try files.prepare(files.contents(of: result))
        if let panel {
          do {
            result.storage = try panel(result.record)
          } catch {
            prepared.discard()
            throw CommandFailure(
              message: "\(error); nothing was replaced: \(cal) and its certificates are as they were", status: .error)
          }
          do {
            for (name, bytes) in files.contents(of: result) where name != files.names[0] { try prepared.rewrite(name, bytes) }
          } catch {
            prepared.discard()
            throw CommandFailure(
              message: "the record is stored on the panel, but \(cal) was not replaced: \(error)", status: .error)
          }
        }
        var entry: RowQueue.Pending?
        do {
          entry = try log.begin(
            result, record: cal, certificate: stem + ".certificate.html",
            files: [
              (cal, result.record.encoded()), (stem + ".certificate.html", Certificate.html(result)),
              (stem + ".certificate.json", Certificate.json(result)),
            ])
          try prepared.commit()
        } catch {
          entry?.abandon()
          prepared.discard()
          throw error
        }
        try entry?.committed()
      } else {
        let certificate = stem + ".failed.certificate"
        let html = Certificate.html(result)
        let json = Certificate.json(result)
        let entry = try log.begin(
          result, record: nil, certificate: certificate + ".html",
          files: [(certificate + ".html", html), (certificate + ".json", json)])
        do {
          try AtomicFile.write(html, to: certificate + ".html")
          try AtomicFile.write(json, to: certificate + ".json")
        } catch {
          entry?.abandon()
          throw error
        }
        try entry?.committed()
      }
      Terminal.writeError(log.deliver())
      if case .fixture = mode ?? .unattended {
        CalibrationConsole.writeOutput("result=\(result.passed ? "pass" : "fail")\n")
      }
      guard result.passed else {
        let certificate = stem + ".failed.certificate"
        let failed = result.checks.filter { !$0.passed }.count
        let more = failed > 1 ? " (and \(failed - 1) more failed checks)" : ""
        throw CommandFailure(
          message: "calibration failed: \(result.firstFailure ?? "")\(more); the previous calibration is kept; see \(certificate).html",
          status: .checkFailed)
      }
      // One summary line, on a terminal or not (a factory script's log).
      let stored = result.storage.map { ", \($0)" } ?? ""
      Terminal.writeError("calibration passed: \(cal)\(stored); certificate \(stem).certificate.html\n")
    }

    /// `--out /dev/null` or `/dev/stdout`: a passing record is written
    /// there (after the panel's EEPROM, as with a file), and no
    /// certificate is written anywhere.
    func finish(_ result: CalibrationResult, on device: String, panel: PanelStore?) throws {
      var result = result
      if result.passed {
        if let panel { result.storage = try panel(result.record) }
        try AtomicFile.write(result.record.encoded(), to: device)
      }
      if case .fixture = mode ?? .unattended {
        CalibrationConsole.writeOutput("result=\(result.passed ? "pass" : "fail")\n")
      }
      guard result.passed else {
        throw CommandFailure(
          message: "calibration failed: \(result.firstFailure ?? "")", status: .checkFailed)
      }
      let stored = result.storage.map { ", \($0)" } ?? ""
      Terminal.writeError("calibration passed: the record went to \(device)\(stored); no certificate written\n")
    }
  }
}
