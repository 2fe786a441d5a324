import PanelFormats

extension CalibrationPlan {
  /// Loads a plan file and checks it against the board it is for.
  public static func load(path: String, board: Board) throws(FileError) -> CalibrationPlan {
    try CalibrationPlan(table: TOML.load(path: path), board: board)
  }

  /// A plan from a parsed plan file:
  ///
  ///     [plan]    name, board, description, reference_g
  ///     [timing]  settle_s, window_s, record_s, tare_s, hold_s, timeout_s, rise_s
  ///     [limits]  see `CalibrationLimits`
  ///     [[step]]  role, load_g | loads_g, x_mm + y_mm | positions | at_cells,
  ///               zero_after, temp_c, record_s
  public init(table root: TOMLTable, board: Board) throws(FileError) {
    try root.rejectUnknownKeys(["plan", "timing", "limits", "step"])
    let header = try root.table("plan")
    try header.rejectUnknownKeys(["name", "board", "boards", "description", "reference_g"])
    let name = try header.string("name")
    if name.isEmpty { throw header.error("name", "must not be empty") }
    // `boards`: other boards with the same panel (its twins, its real board).
    let boardName = try header.string("board")
    let others = try header.stringArray("boards") ?? []
    if boardName != board.name && !others.contains(board.name) {
      let names = ([boardName] + others).map { Quote.text($0) }.joined(separator: ", ")
      throw header.error(
        "board", "the plan is for board\(others.isEmpty ? "" : "s") \(names), not \(Quote.text(board.name)) (\(board.file))")
    }
    let reference = try header.optionalDouble("reference_g", in: .referenceMass_g)
    let timing = try CalibrationTiming(root.optionalTable("timing"))
    var warnings: [FileError] = []
    let limits = try CalibrationLimits(root.optionalTable("limits"), .refuse, warnings: &warnings)
    let steps = try StepList.parse(root, board: board, timing: timing, session: false, warnings: &warnings)
    self.init(
      name: name, board: board.name, description: try header.optionalString("description") ?? "",
      reference_g: reference, timing: timing, limits: limits, steps: steps, file: root.file)
  }
}

extension CalibrationTiming {
  init(_ t: TOMLTable?) throws(FileError) {
    self.init()
    guard let t else { return }
    try t.rejectUnknownKeys(CalibrationTiming.keys)
    func read(_ key: String, _ value: inout Double, _ bound: ValueBound) throws(FileError) {
      value = try t.optionalDouble(key, in: bound) ?? value
    }
    try read("settle_s", &settle_s, .settle_s)
    try read("window_s", &window_s, .window_s)
    try read("record_s", &record_s, .stepTime_s)
    try read("tare_s", &tare_s, .stepTime_s)
    try read("hold_s", &hold_s, .stepTime_s)
    try read("timeout_s", &timeout_s, .stepTime_s)
    try read("rise_s", &rise_s, .rise_s)
  }
}

extension CalibrationLimits {
  init(_ t: TOMLTable?, _ unknown: UnknownKeys, warnings: inout [FileError]) throws(FileError) {
    self.init()
    guard let t else { return }
    try t.checkKeys(CalibrationLimits.keys, unknown, warnings: &warnings)
    for key in CalibrationLimits.keys {
      guard let v = try t.optionalDouble(key, in: CalibrationLimits.bound(of: key)) else { continue }
      set(key, v)
    }
  }

  /// A limit's bound, by the unit its name ends in: newtons, millimetres or percent.
  static func bound(of key: String) -> ValueBound {
    if key.hasSuffix("_n") { return .positiveForce_n }
    if key.hasSuffix("_mm") { return .length_mm }
    return .percent
  }
}

/// The `[[step]]` tables of a plan or a session.
enum StepList {
  static let sessionKeys = ["file", "role", "load_g", "x_mm", "y_mm", "temp_c", "record_s"]
  static let planKeys = [
    "role", "load_g", "loads_g", "x_mm", "y_mm", "positions", "at_cells", "between_cells", "outer_band", "zero_after",
    "temp_c", "record_s",
  ]

  /// The steps, numbered from 1, with roles inferred where not given: a
  /// step without load is the tare when it is the first at its temperature
  /// and a zero otherwise; a loaded one is a fit step. In a plan, one table
  /// may expand to several steps: each of `positions` (or every cell centre
  /// with `at_cells`) gets each of `loads_g` in turn, then a zero with
  /// `zero_after`.
  /// A session's unknown keys are added to `warnings` (other programs write
  /// sessions); a plan's are errors.
  static func parse(
    _ root: TOMLTable, board: Board, timing: CalibrationTiming, session: Bool, directory: String = "",
    warnings: inout [FileError]
  ) throws(FileError) -> [CalibrationStep] {
    let tables = try root.tables("step")
    if tables.isEmpty {
      throw FileError(file: root.file, field: "step", message: "no [[step]] entries: a procedure needs at least a tare and loads")
    }
    var steps: [CalibrationStep] = []
    var temperature: Double?
    var taredAt: [Double?] = []
    for t in tables {
      try t.checkKeys(session ? sessionKeys : planKeys, session ? .warn : .refuse, warnings: &warnings)
      let origin = "\(t.file):\(t.line)"
      var role: StepRole?
      if let r = try t.optionalString("role") {
        guard let value = StepRole(rawValue: r) else {
          throw t.error("role", "\(Quote.text(r)) is not one of \(StepRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        role = value
      }
      let loads = try self.loads(t, session: session)
      let positions = try self.positions(t, board: board, session: session, loaded: loads.contains { $0 > 0 })
      let temp = try t.optionalDouble("temp_c", in: .temperature_c)
      if let c = temp { temperature = c }
      let record = try t.optionalDouble("record_s", in: .stepTime_s)
      let file = session ? try t.string("file") : ""
      if session && file.isEmpty { throw t.error("file", "must not be empty") }
      if session && !TextFile.exists(Paths.resolve(file, relativeTo: directory)) {
        throw t.error("file", "\(Paths.resolve(file, relativeTo: directory)) does not exist (the step's recording is missing)")
      }
      let zeroAfter = session ? false : (try t.optionalBool("zero_after") ?? false)

      func append(_ load: Double, _ at: (Double, Double), setsTemperature: Bool, forcedRole: StepRole?) throws(FileError) {
        var r = forcedRole ?? role
        if r == nil {
          if load > 0 {
            r = .fit
          } else {
            r = taredAt.contains(where: { $0 == temperature }) ? .zero : .tare
          }
        }
        let stepRole = r!
        switch stepRole {
        case .fit, .verify, .hold:
          if !(load > 0) {
            throw t.error(t.has("loads_g") ? "loads_g" : "load_g", "a \(stepRole.rawValue) step needs a load greater than 0 g (is \(load) g)")
          }
        case .tare, .zero:
          if load != 0 {
            throw t.error(t.has("loads_g") ? "loads_g" : "load_g", "a \(stepRole.rawValue) step has no load (load_g = 0), not \(load) g")
          }
          if stepRole == .tare { taredAt.append(temperature) }
        }
        let length = record ?? (stepRole == .tare ? timing.tare_s : stepRole == .hold ? timing.hold_s : timing.record_s)
        steps.append(
          CalibrationStep(
            number: steps.count + 1, role: stepRole, load_g: load, x_mm: load > 0 ? at.0 : 0,
            y_mm: load > 0 ? at.1 : 0, temp_c: setsTemperature ? temp : nil, record_s: length, file: file,
            origin: origin))
      }

      var first = true
      for p in positions {
        for load in loads {
          try append(load, p, setsTemperature: first, forcedRole: nil)
          first = false
        }
        if zeroAfter { try append(0, (0, 0), setsTemperature: false, forcedRole: .zero) }
      }
    }
    guard steps[0].role == .tare else {
      throw tables[0].error("load_g", "the first step must be a tare (load_g = 0), not a \(steps[0].role.rawValue) step")
    }
    if !steps.contains(where: { $0.role == .fit }) {
      throw FileError(file: root.file, field: "step", message: "no fit steps (loaded steps with role \"fit\"): nothing to calibrate from")
    }
    return steps
  }

  static func loads(_ t: TOMLTable, session: Bool) throws(FileError) -> [Double] {
    if !session, let list = try t.doubleArray("loads_g") {
      if t.has("load_g") { throw t.error("loads_g", "give load_g or loads_g, not both") }
      if list.isEmpty { throw t.error("loads_g", "needs at least one load") }
      for (i, v) in list.enumerated() where !ValueBound.mass_g.contains(v) {
        throw t.error("loads_g", element: i, ValueBound.mass_g.violation(v))
      }
      return list
    }
    return [try t.double("load_g", in: .mass_g)]
  }

  static func positions(_ t: TOMLTable, board: Board, session: Bool, loaded: Bool) throws(FileError)
    -> [(Double, Double)]
  {
    if !session, let rows = try t.doubleRows("positions") {
      if t.has("x_mm") || t.has("y_mm") || t.has("at_cells") {
        throw t.error("positions", "give x_mm and y_mm, positions or at_cells, not several")
      }
      if rows.isEmpty { throw t.error("positions", "needs at least one [x_mm, y_mm] pair") }
      var list: [(Double, Double)] = []
      for (i, r) in rows.enumerated() {
        if r.count != 2 { throw t.error("positions", element: i, "has \(r.count) numbers, expected [x_mm, y_mm]") }
        if let problem = offPanel(r[0], r[1], board) { throw t.error("positions", element: i, problem) }
        list.append((r[0], r[1]))
      }
      return list
    }
    let generators = ["at_cells", "between_cells", "outer_band"].filter { t.has($0) }
    if !session, let key = generators.first {
      if t.has("x_mm") || t.has("y_mm") || generators.count > 1 {
        throw t.error(key, "give x_mm and y_mm, positions, at_cells, between_cells or outer_band, not several")
      }
      switch key {
      case "at_cells":
        if try t.bool("at_cells") { return board.cells.map { ($0.x_mm, $0.y_mm) } }
      case "between_cells":
        let count = try t.int("between_cells", in: 1...8)
        guard let grid = board.grid else {
          throw t.error("between_cells", "is for a grid's cells (the board \(Quote.text(board.name)) is a plate on supports)")
        }
        return PlanPositions.betweenCells(grid, count: count)
      default:
        if try t.bool("outer_band") { return PlanPositions.outerBand(board) }
      }
    }
    guard loaded else {
      for key in ["x_mm", "y_mm"] where t.has(key) { _ = try t.double(key) }
      return [(0, 0)]
    }
    let x = try t.double("x_mm")
    let y = try t.double("y_mm")
    if let problem = offPanel(x, y, board) { throw t.error(x < 0 || x > board.width_mm ? "x_mm" : "y_mm", problem) }
    return [(x, y)]
  }

  static func offPanel(_ x: Double, _ y: Double, _ board: Board) -> String? {
    guard x < 0 || y < 0 || x > board.width_mm || y > board.height_mm || !x.isFinite || !y.isFinite else {
      return nil
    }
    return "(\(x), \(y)) mm is off the panel (0...\(board.width_mm) x 0...\(board.height_mm) mm)"
  }
}
