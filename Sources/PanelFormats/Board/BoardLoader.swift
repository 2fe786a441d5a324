import ForceCore
import PanelHardware
import PanelTouch

extension Board {
  /// Loads and checks a board file, its `[frontend]` included: every
  /// problem is a `FileError` naming the file, the line and the field.
  public static func load(path: String) throws(FileError) -> Board {
    try Board(table: TOML.load(path: path))
  }

  /// Builds a board from a parsed board file.
  public init(table root: TOMLTable) throws(FileError) {
    try root.rejectUnknownKeys([
      "board", "panel", "grid", "cell", "frontend", "sampling", "interaction", "detection", "haptics",
    ])
    let boardTable = try root.table("board")
    try boardTable.rejectUnknownKeys(["name", "description"])
    let name = try boardTable.string("name")
    if name.isEmpty { throw boardTable.error("name", "must not be empty") }

    let panel = try root.table("panel")
    try panel.rejectUnknownKeys(["width_mm", "height_mm"])
    let width = try panel.double("width_mm", in: .length_mm)
    let height = try panel.double("height_mm", in: .length_mm)

    let (cells, grid) = try Board.loadCells(root, width: width, height: height)

    let frontEnd = try root.table("frontend")
    let kind = try frontEnd.string("kind")

    let sampling = try root.table("sampling")
    try sampling.rejectUnknownKeys(["rate_hz"])
    let rate = try sampling.int("rate_hz", in: 1...100_000)

    var interaction = InteractionSettings()
    interaction.maxTouches = grid == nil ? 1 : 10
    if let t = try root.optionalTable("interaction") { try interaction.load(t) }
    var detection = DetectionSettings()
    if let t = try root.optionalTable("detection") { try detection.load(t) }

    let typed = try BoardFrontEnd(table: frontEnd, kind: kind, cellCount: cells.count, rate_hz: rate)
    self.init(
      name: name, description: try boardTable.optionalString("description") ?? "",
      file: root.file, width_mm: width, height_mm: height, cells: cells, grid: grid,
      frontEnd: typed, rate_hz: rate, detection: detection, interaction: interaction)
    if let t = try root.optionalTable("haptics") {
      let settings = try HapticsSettings(table: t)
      haptics = settings
    }
    // What a simulated panel's keys say about the board's cells.
    if case .simulatedPanel(let parameters) = typed { try parameters.check(board: self) }
  }

  static func loadCells(_ root: TOMLTable, width: Double, height: Double) throws(FileError)
    -> ([CellPosition], GridSpec?)
  {
    let list = try root.tables("cell")
    if let grid = try root.optionalTable("grid") {
      if !list.isEmpty {
        throw list[0].error("x_mm", "a board has either [grid] or [[cell]], not both")
      }
      try grid.rejectUnknownKeys(["cols", "rows", "pitch_mm"])
      let cols = try grid.int("cols", in: 1...Capacity.cells)
      let rows = try grid.int("rows", in: 1...Capacity.cells)
      let pitch = try grid.double("pitch_mm", in: .length_mm)
      if cols * rows > Capacity.cells {
        throw grid.error("rows", "cols x rows = \(cols * rows) cells, more than \(Capacity.cells)")
      }
      // Every cell centre must be on the panel (the outer cells may reach past its edge).
      let lastX = (Double(cols) - 0.5) * pitch
      let lastY = (Double(rows) - 0.5) * pitch
      if lastX > width + 1e-9 {
        throw grid.error(
          "cols", "\(cols) cells at \(pitch) mm do not fit the panel's width of \(width) mm (the last centre is at \(lastX) mm)")
      }
      if lastY > height + 1e-9 {
        throw grid.error(
          "rows", "\(rows) cells at \(pitch) mm do not fit the panel's height of \(height) mm (the last centre is at \(lastY) mm)")
      }
      var cells: [CellPosition] = []
      for k in 0..<(cols * rows) {
        cells.append(
          CellPosition(
            x_mm: (Double(k % cols) + 0.5) * pitch, y_mm: (Double(k / cols) + 0.5) * pitch))
      }
      return (cells, GridSpec(columns: cols, rows: rows, pitch_mm: pitch))
    }
    if list.isEmpty {
      throw FileError(
        file: root.file, field: "grid", message: "missing: a board needs [grid] or [[cell]] entries")
    }
    if list.count > Capacity.cells {
      throw list[Capacity.cells].error("x_mm", "more than \(Capacity.cells) cells")
    }
    var cells: [CellPosition] = []
    for cell in list {
      try cell.rejectUnknownKeys(["x_mm", "y_mm"])
      let x = try cell.double("x_mm")
      let y = try cell.double("y_mm")
      if x < 0 || x > width { throw cell.error("x_mm", "\(x) is off the panel (0...\(width))") }
      if y < 0 || y > height { throw cell.error("y_mm", "\(y) is off the panel (0...\(height))") }
      cells.append(CellPosition(x_mm: x, y_mm: y))
    }
    return (cells, nil)
  }
}

extension InteractionSettings {
  mutating func load(_ t: TOMLTable) throws(FileError) {
    try t.rejectUnknownKeys(InteractionSettings.keys)
    averageTouch_n = try t.optionalDouble("average_touch_n", in: .averageTouch_n) ?? averageTouch_n
    maxForce = try t.optionalDouble("max_force", in: .maxForce) ?? maxForce
    hint = try t.optionalDouble("hint") ?? hint
    peek = try t.optionalDouble("peek") ?? peek
    pop = try t.optionalDouble("pop") ?? pop
    exitRatio = try t.optionalDouble("exit_ratio") ?? exitRatio
    stageHold_ms = try t.optionalDouble("stage_hold_ms") ?? stageHold_ms
    dragSlop_mm = try t.optionalDouble("drag_slop_mm", in: .length_mm) ?? dragSlop_mm
    swipeUp_mm = try t.optionalDouble("swipe_up_mm", in: .length_mm) ?? swipeUp_mm
    longPress_s = try t.optionalDouble("long_press_s") ?? longPress_s
    longPressSlop_mm = try t.optionalDouble("long_press_slop_mm", in: .length_mm) ?? longPressSlop_mm
    forceTouch = try t.optionalBool("force_touch") ?? forceTouch
    maxTouches = try t.optionalInt("max_touches") ?? maxTouches
    if let s = try t.optionalString("sensitivity") {
      guard let value = Sensitivity(rawValue: s) else {
        throw t.error("sensitivity", "\(Quote.text(s)) is not one of light, medium, firm")
      }
      sensitivity = value
    }
    // The most a touch reports, in newtons, must be within the core's force range.
    let reported = maxForce * averageTouch_n
    if !ValueBound.reportedForce_n.contains(reported) {
      throw t.error(
        t.has("max_force") ? "max_force" : "average_touch_n",
        "max_force x average_touch_n = \(reported) N: \(ValueBound.reportedForce_n.violation(reported))")
    }
    if !(hint > 1) { throw t.error("hint", "must be greater than 1, an average touch (taps must not hint)") }
    if !(peek > hint) { throw t.error("peek", "must be greater than hint (\(hint))") }
    if !(pop > peek) { throw t.error("pop", "must be greater than peek (\(peek))") }
    // Every peek can pop: even at Firm, pop must be within reach.
    let firmPop = pop * Sensitivity.firm.factor
    if firmPop > maxForce {
      throw t.error(
        "pop", "pop at Firm sensitivity (\(pop) x \(Sensitivity.firm.factor) = \(firmPop)) exceeds max_force (\(maxForce)): a peek could never pop")
    }
    if !(exitRatio > 0 && exitRatio < 1) { throw t.error("exit_ratio", "must be between 0 and 1 (exclusive)") }
    if !(stageHold_ms >= 0 && stageHold_ms <= 1000) { throw t.error("stage_hold_ms", "must be 0...1000") }
    if !(longPress_s > 0 && longPress_s <= 60) { throw t.error("long_press_s", "must be greater than 0 and at most 60") }
    if maxTouches < 1 || maxTouches > 16 { throw t.error("max_touches", "must be 1...16") }
  }
}

extension DetectionSettings {
  mutating func load(_ t: TOMLTable) throws(FileError) {
    try t.rejectUnknownKeys(DetectionSettings.keys)
    touchOn_n = try t.optionalDouble("touch_on_n", in: .positiveForce_n) ?? touchOn_n
    touchOff_n = try t.optionalDouble("touch_off_n") ?? touchOff_n
    debounceFrames = try t.optionalInt("debounce_frames", in: 1...100) ?? debounceFrames
    maxOn_s = try t.optionalDouble("max_on_s", in: .maxOn_s) ?? maxOn_s
    holdAfterRelease_s = try t.optionalDouble("hold_s", in: .holdAfterRelease_s) ?? holdAfterRelease_s
    driftUp_s = try t.optionalDouble("drift_up_s", in: .timeConstant_s) ?? driftUp_s
    driftMin_s = try t.optionalDouble("drift_min_s", in: .timeConstant_s) ?? driftMin_s
    driftDown_s = try t.optionalDouble("drift_down_s", in: .timeConstant_s) ?? driftDown_s
    cellFloor_n = try t.optionalDouble("cell_floor_n", in: .force_n) ?? cellFloor_n
    spikeFilter = try t.optionalBool("spike_filter") ?? spikeFilter
    noiseOn = try t.optionalDouble("noise_on", in: ValueBound(0...100)) ?? noiseOn
    noiseOff = try t.optionalDouble("noise_off", in: ValueBound(0...100)) ?? noiseOff
    if noiseOff > noiseOn { throw t.error("noise_off", "must be at most noise_on (\(noiseOn))") }
    if let s = try t.optionalString("interpolation") {
      switch s {
      case "centroid": interpolation = .centroid
      case "parabolic": interpolation = .parabolic
      case "gaussian": interpolation = .gaussian
      default: throw t.error("interpolation", "\(Quote.text(s)) is not one of centroid, parabolic, gaussian")
      }
    }
    if !(touchOff_n > 0 && touchOff_n <= touchOn_n) {
      throw t.error("touch_off_n", "must be greater than 0 and at most touch_on_n (\(touchOn_n))")
    }
  }
}

extension InteractionSettings {
  /// The keys `[interaction]` may hold.
  public static let keys = [
    "average_touch_n", "max_force", "hint", "peek", "pop", "exit_ratio", "stage_hold_ms",
    "drag_slop_mm", "swipe_up_mm", "long_press_s", "long_press_slop_mm", "sensitivity",
    "force_touch", "max_touches",
  ]
}
