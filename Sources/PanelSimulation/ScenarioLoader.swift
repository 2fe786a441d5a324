import PanelFormats

extension Scenario {
  /// Loads a scenario file and checks it against the panel it will run on.
  public static func load(path: String, board: Board) throws(FileError) -> Scenario {
    try Scenario(table: TOML.load(path: path), board: board)
  }

  public init(table root: TOMLTable, board: Board) throws(FileError) {
    try root.rejectUnknownKeys(["scenario", "touch", "fault"])
    var name = "scenario"
    var duration: Double?
    var temperature: [Keyframe] = []
    var gradient: [[Double]] = []
    if let s = try root.optionalTable("scenario") {
      try s.rejectUnknownKeys(["name", "description", "duration_s", "temperature_c", "temperature", "temperature_gradient"])
      name = try s.optionalString("name") ?? name
      _ = try s.optionalString("description")
      duration = try s.optionalDouble("duration_s", in: .runLength_s)
      if let c = try s.optionalDouble("temperature_c", in: .temperature_c) {
        if s.has("temperature") { throw s.error("temperature", "give temperature_c or temperature, not both") }
        temperature = [Keyframe(0, c)]
      }
      if let rows = try s.doubleRows("temperature") {
        temperature = try Scenario.keyframes(rows, table: s, key: "temperature", values: [.temperature_c])
          .map { Keyframe($0[0], $0[1]) }
        if temperature.isEmpty { throw s.error("temperature", "needs at least one [t_s, degC] pair") }
      }
      if let rows = try s.doubleRows("temperature_gradient") {
        let across = ValueBound(-100...100, "degC")
        gradient = try Scenario.keyframes(rows, table: s, key: "temperature_gradient", values: [across, across])
        if gradient.isEmpty { throw s.error("temperature_gradient", "needs at least one [t_s, x_degC, y_degC] row") }
      }
    }
    var touches: [ScriptedTouch] = []
    let tables = try root.tables("touch")
    for t in tables {
      touches.append(try Scenario.touch(t, board: board))
    }
    try Scenario.checkSimultaneous(touches, tables)
    var faults: [CellFault] = []
    for f in try root.tables("fault") {
      try f.rejectUnknownKeys(["cell", "start_s", "end_s", "kind"])
      let cell = try f.int("cell")
      if cell < 0 || cell >= board.cellCount {
        throw f.error("cell", "cell \(cell) does not exist (the board has cells 0...\(board.cellCount - 1))")
      }
      let start = try f.double("start_s", in: .scriptTime_s)
      let end = try f.optionalDouble("end_s", in: .scriptTime_s) ?? .infinity
      if !(end > start) { throw f.error("end_s", "must be after start_s") }
      if let kind = try f.optionalString("kind"), kind != "open" {
        throw f.error("kind", "\(Quote.text(kind)) is not a fault the simulator knows (expected: open)")
      }
      faults.append(CellFault(cell: cell, start_s: start, end_s: end))
    }
    self.init(
      name: name, file: root.file, duration_s: duration, temperature: temperature, touches: touches,
      faults: faults)
    gradientX = gradient.map { Keyframe($0[0], $0[1]) }
    gradientY = gradient.map { Keyframe($0[0], $0[2]) }
  }

  /// The most touches a script may have down at once: ten fingers of two
  /// hands. What a frame's simulation costs grows with the touches down
  /// (each spreads its load over every cell), so this keeps a frame's
  /// simulation well within its period on every board.
  public static let maxSimultaneousTouches = 20

  /// Refuses a script with more than `maxSimultaneousTouches` down at one
  /// time, naming the touch that makes one too many.
  static func checkSimultaneous(_ touches: [ScriptedTouch], _ tables: [TOMLTable]) throws(FileError) {
    guard touches.count > maxSimultaneousTouches else { return }
    // Ends before starts at the same time: a touch may begin as another ends.
    var edges: [(t: Double, step: Int, index: Int)] = []
    for (i, touch) in touches.enumerated() {
      edges.append((touch.start_s, 1, i))
      edges.append((touch.end_s, -1, i))
    }
    edges.sort { a, b in
      if a.t != b.t { return a.t < b.t }
      if a.step != b.step { return a.step < b.step }
      return a.index < b.index
    }
    var down = 0
    for (t, step, i) in edges {
      down += step
      if down > maxSimultaneousTouches {
        throw tables[i].error(
          "start_s", "\(down) touches down at \(t) s: at most \(maxSimultaneousTouches) at once (the simulator's limit)")
      }
    }
  }

  static func touch(_ t: TOMLTable, board: Board) throws(FileError) -> ScriptedTouch {
    try t.rejectUnknownKeys([
      "name", "start_s", "x_mm", "y_mm", "path", "force_n", "rise_s", "hold_s", "fall_s", "force", "tremor",
      "tremor_mm", "tremor_seed",
    ])
    _ = try t.optionalString("name")
    let start = try t.double("start_s", in: .scriptTime_s)

    // Force: a trapezoid or keyframes.
    var force: [Keyframe]
    if let rows = try t.doubleRows("force") {
      if t.has("force_n") { throw t.error("force", "give force_n (with hold_s) or force, not both") }
      force = try keyframes(rows, table: t, key: "force", values: [.force_n]).map { Keyframe($0[0], $0[1]) }
      if force.count < 2 { throw t.error("force", "needs at least two [t_s, newtons] rows") }
    } else {
      let f = try t.double("force_n", in: .positiveForce_n)
      let hold = try t.double("hold_s", in: .scriptTime_s)
      let rise = try t.optionalDouble("rise_s", in: .scriptTime_s) ?? 0.05
      let fall = try t.optionalDouble("fall_s", in: .scriptTime_s) ?? 0.05
      force = ScriptedTouch.trapezoid(force_n: f, rise_s: rise, hold_s: hold, fall_s: fall)
    }

    // Position: a point or a path.
    var xs: [Keyframe] = []
    var ys: [Keyframe] = []
    if let rows = try t.doubleRows("path") {
      if t.has("x_mm") || t.has("y_mm") { throw t.error("path", "give x_mm and y_mm or path, not both") }
      for (i, r) in try keyframes(rows, table: t, key: "path", values: [nil, nil]).enumerated() {
        try onPanel(r[1], r[2], board: board, table: t, key: "path", row: i + 1)
        xs.append(Keyframe(r[0], r[1]))
        ys.append(Keyframe(r[0], r[2]))
      }
      if xs.isEmpty { throw t.error("path", "needs at least one [t_s, x_mm, y_mm] row") }
    } else {
      let x = try t.double("x_mm")
      let y = try t.double("y_mm")
      try onPanel(x, y, board: board, table: t, key: "x_mm", row: nil)
      xs = [Keyframe(0, x)]
      ys = [Keyframe(0, y)]
    }
    var touch = ScriptedTouch(start_s: start, force: force, x: xs, y: ys)
    // A finger's tremor (optional): force RMS as a fraction, position RMS in mm.
    let tremor = try t.optionalDouble("tremor", in: ValueBound(0...0.5, "of the force"))
    let tremor_mm = try t.optionalDouble("tremor_mm", in: ValueBound(0...5, "mm"))
    let seed = try t.optionalInt("tremor_seed")
    if let seed, seed < 0 { throw t.error("tremor_seed", "must be 0 or more") }
    if tremor != nil || tremor_mm != nil {
      touch.tremor = Tremor(force: tremor ?? 0, position_mm: tremor_mm ?? 0, seed: UInt64(seed ?? 1))
    } else if seed != nil {
      throw t.error("tremor_seed", "needs tremor or tremor_mm")
    }
    return touch
  }

  static func onPanel(
    _ x: Double, _ y: Double, board: Board, table: TOMLTable, key: String, row: Int?
  ) throws(FileError) {
    guard x < 0 || y < 0 || x > board.width_mm || y > board.height_mm else { return }
    let at = row.map { "row \($0): " } ?? ""
    throw table.error(
      key,
      "\(at)(\(x), \(y)) mm is off the panel (0...\(board.width_mm) x 0...\(board.height_mm) mm)")
  }

  /// Rows of a time (`ValueBound.scriptTime_s`, never going backwards)
  /// followed by one number within each of `values` (nil: checked by the
  /// caller, as positions are against the panel).
  static func keyframes(_ rows: [[Double]], table: TOMLTable, key: String, values: [ValueBound?]) throws(FileError)
    -> [[Double]]
  {
    let columns = values.count + 1
    var last = -Double.infinity
    for (i, r) in rows.enumerated() {
      if r.count != columns {
        throw table.error(key, "row \(i + 1) has \(r.count) numbers, expected \(columns)")
      }
      if r[0] < 0 { throw table.error(key, "row \(i + 1): time \(r[0]) s is negative") }
      if !ValueBound.scriptTime_s.contains(r[0]) {
        throw table.error(key, "row \(i + 1): time \(ValueBound.scriptTime_s.violation(r[0]))")
      }
      if r[0] < last { throw table.error(key, "row \(i + 1): time \(r[0]) s goes backwards") }
      for (bound, value) in zip(values, r.dropFirst()) {
        if let bound, !bound.contains(value) {
          throw table.error(key, "row \(i + 1): \(value) is outside \(bound)")
        }
      }
      last = r[0]
    }
    return rows
  }
}
