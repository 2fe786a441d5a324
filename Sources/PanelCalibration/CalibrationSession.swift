import PanelFormats

/// A recorded calibration session (docs/formats.md): a directory with
/// `plan.toml` and one raw recording per step. Sessions written by
/// `panelctl calibrate` add the plan's name, the date, the single-point
/// reference mass, the limits and each step's role; a fixture's session
/// with only the contract's keys gets roles inferred and default limits.
public struct CalibrationSession: Sendable, Equatable {
  public static let planFile = "plan.toml"

  /// The directory, with a trailing slash.
  public var directory: String
  public var board: String
  public var serial: String
  public var planName: String
  /// ISO 8601 UTC time the session was recorded ("" when not recorded).
  public var date: String
  public var reference_g: Double?
  public var limits: CalibrationLimits
  public var steps: [CalibrationStep]
  /// What `load` skipped rather than refused: keys of plan.toml and
  /// columns of the step recordings that panelctl does not read (other
  /// programs write sessions and may add fields). One line each.
  public var warnings: [FileError] = []

  public init(
    directory: String, board: String, serial: String, planName: String = "", date: String = "",
    reference_g: Double? = nil, limits: CalibrationLimits = CalibrationLimits(), steps: [CalibrationStep]
  ) {
    self.directory = directory.hasSuffix("/") || directory.isEmpty ? directory : directory + "/"
    self.board = board
    self.serial = serial
    self.planName = planName
    self.date = date
    self.reference_g = reference_g
    self.limits = limits
    self.steps = steps
  }

  /// The session `plan` records for `serial` (files `step-01.csv`, ...).
  public init(recording plan: CalibrationPlan, directory: String, serial: String, date: String) {
    let width = max(2, String(plan.steps.count).count)
    var steps = plan.steps
    for i in steps.indices {
      var digits = String(steps[i].number)
      while digits.count < width { digits = "0" + digits }
      steps[i].file = "step-\(digits).csv"
    }
    self.init(
      directory: directory, board: plan.board, serial: serial, planName: plan.name, date: date,
      reference_g: plan.reference_g, limits: plan.limits, steps: steps)
  }

  /// The path of a step's recording: `file` as is when absolute, else in
  /// the session's directory (the same rule `load` checks it with).
  public func path(of step: CalibrationStep) -> String { Paths.resolve(step.file, relativeTo: directory) }
  public var planPath: String { directory + CalibrationSession.planFile }

  /// Loads `directory/plan.toml` and checks it against `board`: the board's
  /// name, every step's load and position, and that every recording exists
  /// and has a valid header. Keys and columns it does not read are
  /// `warnings`, not errors.
  public static func load(directory: String, board: Board) throws(FileError) -> CalibrationSession {
    let dir = directory.hasSuffix("/") ? directory : directory + "/"
    if !TextFile.isDirectory(dir) {
      throw FileError(
        file: directory,
        message: TextFile.exists(directory) ? "is not a directory (a session is a directory)" : "no such session directory")
    }
    if !TextFile.exists(dir + planFile) {
      throw FileError(
        file: dir + planFile, message: "no such file: the session is incomplete (plan.toml is written last) or not a session")
    }
    let root = try TOML.load(path: dir + planFile)
    var warnings: [FileError] = []
    try root.checkKeys(
      ["board", "serial", "plan", "date", "reference_g", "limits", "step"], .warn, warnings: &warnings)
    let name = try root.string("board")
    if name != board.name {
      throw root.error("board", "the session is for board \(Quote.text(name)), not \(Quote.text(board.name)) (\(board.file))")
    }
    let serial = try root.string("serial")
    if serial.isEmpty { throw root.error("serial", "must not be empty") }
    let reference = try root.optionalDouble("reference_g", in: .referenceMass_g)
    let limits = try CalibrationLimits(root.optionalTable("limits"), .warn, warnings: &warnings)
    let steps = try StepList.parse(
      root, board: board, timing: CalibrationTiming(), session: true, directory: dir, warnings: &warnings)
    var session = CalibrationSession(
      directory: dir, board: name, serial: serial, planName: try root.optionalString("plan") ?? "",
      date: try root.optionalString("date") ?? "", reference_g: reference, limits: limits, steps: steps)
    for step in steps {
      warnings += try RecordingReader(path: session.path(of: step)).warnings
    }
    session.warnings = warnings
    return session
  }

  /// The text of `plan.toml`.
  public func encodedPlan() -> String {
    var s = "# Calibration session (docs/formats.md), recorded by panelctl calibrate.\n"
    s += "board = \(quoted(board))\n"
    s += "serial = \(quoted(serial))\n"
    s += "plan = \(quoted(planName))\n"
    s += "date = \(quoted(date))\n"
    if let r = reference_g { s += "reference_g = \(number(r))\n" }
    s += "\n[limits]\n"
    for (key, value) in limits.entries { s += "\(key) = \(number(value))\n" }
    for step in steps {
      s += "\n[[step]]\n"
      s += "file = \(quoted(step.file))\n"
      s += "role = \(quoted(step.role.rawValue))\n"
      s += "load_g = \(number(step.load_g))\n"
      if step.isLoaded {
        s += "x_mm = \(number(step.x_mm))\n"
        s += "y_mm = \(number(step.y_mm))\n"
      }
      if let c = step.temp_c { s += "temp_c = \(number(c))\n" }
      s += "record_s = \(number(step.record_s))\n"
    }
    return s
  }
}
