import ForceCore
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelSimulation

/// Every time, force, count, length and rate a file gives is bounded when
/// it is loaded: the error names the file, the line, the key and the bound,
/// so that no value, however large, reaches arithmetic it could overflow.
@Suite struct LoadBoundsTests {
  static let board = BoardText.valid + """

    [interaction]
    average_touch_n = 0.8

    [detection]
    touch_on_n = 0.08
    """

  /// `key = value` added to (or replacing) its table's line in the board.
  @Test(arguments: [
    ("cols = 4", "cols = 4611686018427387904", "b.toml:9: [grid] cols: must be 1...256, is 4611686018427387904"),
    ("rows = 2", "rows = 300", "b.toml:10: [grid] rows: must be 1...256, is 300"),
    ("pitch_mm = 20.0", "pitch_mm = 1e300", "b.toml:11: [grid] pitch_mm: must be greater than 0 and at most 10000 mm, is 1e+300"),
    ("width_mm = 100.0", "width_mm = 1e300", "b.toml:5: [panel] width_mm: must be greater than 0 and at most 10000 mm, is 1e+300"),
    ("average_touch_n = 0.8", "average_touch_n = 1e10", "b.toml:19: [interaction] average_touch_n: must be greater than 0 and at most 100 N, is 10000000000.0"),
    ("average_touch_n = 0.8", "max_force = 1e16", "b.toml:19: [interaction] max_force: must be greater than 0 and at most 1000, is 1e+16"),
    ("average_touch_n = 0.8", "max_force = 1e300", "b.toml:19: [interaction] max_force: must be greater than 0 and at most 1000"),
    ("average_touch_n = 0.8", "average_touch_n = 100\nmax_force = 1000\npop = 800",
     "b.toml:20: [interaction] max_force: max_force x average_touch_n = 100000.0 N: must be greater than 0 and at most 2000 N"),
    ("average_touch_n = 0.8", "drag_slop_mm = 1e300", "b.toml:19: [interaction] drag_slop_mm: must be greater than 0 and at most 10000 mm"),
    ("touch_on_n = 0.08", "max_on_s = 1e300", "b.toml:22: [detection] max_on_s: must be 0...86400 s, is 1e+300"),
    ("touch_on_n = 0.08", "max_on_s = 1e15", "b.toml:22: [detection] max_on_s: must be 0...86400 s"),
    ("touch_on_n = 0.08", "hold_s = 1e15", "b.toml:22: [detection] hold_s: must be 0...3600 s"),
    ("touch_on_n = 0.08", "drift_up_s = 1e13", "b.toml:22: [detection] drift_up_s: must be greater than 0 and at most 3600 s"),
    ("touch_on_n = 0.08", "drift_down_s = 1e300", "b.toml:22: [detection] drift_down_s: must be greater than 0 and at most 3600 s"),
    ("touch_on_n = 0.08", "touch_on_n = 1e300", "b.toml:22: [detection] touch_on_n: must be greater than 0 and at most 1000 N"),
    ("touch_on_n = 0.08", "cell_floor_n = 1e300", "b.toml:22: [detection] cell_floor_n: must be 0...1000 N"),
    ("kind = \"sim\"", "kind = \"sim\"\nnoise_counts = 1e300", "b.toml:15: [frontend] noise_counts: must be 0...16777216 counts"),
    ("kind = \"sim\"", "kind = \"sim\"\nspike_rate_hz = 1e300", "b.toml:15: [frontend] spike_rate_hz: must be 0...100000 Hz"),
    ("kind = \"sim\"", "kind = \"sim\"\ncreep_tau_s = 1e300", "b.toml:15: [frontend] creep_tau_s: must be greater than 0 and at most 3600 s"),
    ("kind = \"sim\"", "kind = \"sim\"\ntemperature_c = 1e300", "b.toml:15: [frontend] temperature_c: must be -60...150 degC"),
    ("kind = \"sim\"", "kind = \"sim\"\n[[frontend.cell]]\nindex = 1\noffset_counts = 1e300",
     "b.toml:17: frontend.cell[1] offset_counts: must be -16777216...16777216 counts"),
  ])
  func boardValuesAreBounded(_ change: (String, String, String)) {
    let text = Self.board.replacingOccurrences(of: change.0, with: change.1)
    let error = ErrorText.message { _ = try BoardText.load(text) }
    #expect(error?.hasPrefix(change.2) == true, "\(error ?? "loaded")")
  }

  /// The bounds themselves load: a value at its limit is accepted.
  @Test func valuesAtTheirLimitsLoad() throws {
    let text = Self.board.replacingOccurrences(
      of: "touch_on_n = 0.08",
      with: "touch_on_n = 1000\ntouch_off_n = 1000\nmax_on_s = 86400\nhold_s = 3600\ndrift_up_s = 3600\ndrift_down_s = 3600")
    let b = try BoardText.load(text)
    #expect(b.detection.maxOn_s == 86400)
    #expect(b.coreConfiguration.maxOn_ms == 86_400_000)
  }

  /// A grid whose outer cells reach past the panel's edge loads as long as
  /// every cell centre is on the panel (the contract's rule); one whose
  /// last centre is off it does not.
  @Test func aGridLoadsWhenEveryCellCentreIsOnThePanel() throws {
    let text = BoardText.valid.replacingOccurrences(of: "width_mm = 100.0", with: "width_mm = 150.0")
      .replacingOccurrences(of: "cols = 4", with: "cols = 8")
    let b = try BoardText.load(text)
    #expect(b.cellCount == 16)
    #expect(b.cells[7] == CellPosition(x_mm: 150, y_mm: 10))
    let off = ErrorText.message {
      _ = try BoardText.load(text.replacingOccurrences(of: "width_mm = 150.0", with: "width_mm = 149.0"))
    }
    #expect(
      off == "b.toml:9: [grid] cols: 8 cells at 20.0 mm do not fit the panel's width of 149.0 mm (the last centre is at 150.0 mm)")
  }

  /// An array-of-tables element is named one way in every error, whether
  /// found while reading the table or later against the board.
  @Test func frontEndCellErrorsNameTheElementTheSameWay() {
    let base = BoardText.valid.replacingOccurrences(of: "kind = \"sim\"", with: "kind = \"sim\"\n[[frontend.cell]]\nindex = 1\n[[frontend.cell]]\nindex = 2\ncrosstalk_from = CROSS\ncrosstalk = 0.1")
    func simulate(_ text: String) throws {
      _ = try BoardText.load(text).simulationParameters
    }
    let index = ErrorText.message {
      try simulate(base.replacingOccurrences(of: "index = 2", with: "index = 9").replacingOccurrences(of: "CROSS", with: "1"))
    }
    #expect(index == "b.toml:18: frontend.cell[2] index: cell 9 does not exist: the board has 8 cells (0...7)")
    let from = ErrorText.message { try simulate(base.replacingOccurrences(of: "CROSS", with: "12")) }
    #expect(from == "b.toml:19: frontend.cell[2] crosstalk_from: cell 12 does not exist: the board has 8 cells (0...7)")
    let typed = ErrorText.message { try simulate(base.replacingOccurrences(of: "CROSS", with: "-1")) }
    #expect(typed == "b.toml:19: frontend.cell[2] crosstalk_from: must be another cell's index")
  }

  // MARK: Scenarios

  static let scenario = """
    [scenario]
    duration_s = 2.0

    [[touch]]
    start_s = 0.3
    x_mm = 40.0
    y_mm = 20.0
    force_n = 0.9
    hold_s = 0.08
    """

  @Test(arguments: [
    ("duration_s = 2.0", "duration_s = 1e300", "s.toml:2: [scenario] duration_s: must be greater than 0 and at most 10000000 s, is 1e+300"),
    ("start_s = 0.3", "start_s = 1e300", "s.toml:5: touch[1] start_s: must be 0...10000000 s, is 1e+300"),
    ("hold_s = 0.08", "hold_s = 1e300", "s.toml:9: touch[1] hold_s: must be 0...10000000 s"),
    ("force_n = 0.9", "force_n = 1e300", "s.toml:8: touch[1] force_n: must be greater than 0 and at most 1000 N"),
    ("force_n = 0.9\nhold_s = 0.08", "force = [[0, 0], [1e300, 1]]", "s.toml:8: touch[1] force: row 2: time must be 0...10000000 s, is 1e+300"),
    ("force_n = 0.9\nhold_s = 0.08", "force = [[0, 0], [1, 5000]]", "s.toml:8: touch[1] force: row 2: 5000.0 is outside 0...1000 N"),
    ("duration_s = 2.0", "temperature = [[0, 20], [1, 1e300]]", "s.toml:2: [scenario] temperature: row 2: 1e+300 is outside -60...150 degC"),
  ])
  func scenarioValuesAreBounded(_ change: (String, String, String)) throws {
    let board = try BoardText.load(BoardText.valid)
    let text = Self.scenario.replacingOccurrences(of: change.0, with: change.1)
    let error = ErrorText.message { _ = try Scenario(table: TOML.parse(text, file: "s.toml"), board: board) }
    #expect(error?.hasPrefix(change.2) == true, "\(error ?? "loaded")")
  }

  // MARK: Plans

  @Test(arguments: ["window_s", "settle_s", "timeout_s", "record_s", "tare_s", "hold_s", "rise_s"])
  func planTimingIsBounded(_ key: String) throws {
    let board = try Repo.board("sim-plate4")
    let plan = try TextFile.read(path: Repo.path("calibration/plans/sim-plate4.toml"))
    let line = try #require(plan.split(separator: "\n").first { $0.hasPrefix(key + " = ") })
    let timing = plan.replacingOccurrences(of: line + "\n", with: "\(key) = 1e300\n")
    let error = ErrorText.message { _ = try CalibrationPlan(table: TOML.parse(timing, file: "p.toml"), board: board) }
    #expect(error?.contains("[timing] \(key): must be greater than 0 and at most") == true, "\(error ?? "loaded")")
    #expect(error?.hasSuffix(" s, is 1e+300") == true, "\(error ?? "loaded")")
  }

  // MARK: Calibration records

  static let record = CalibrationRecord(
    board: "b", serial: "S-1", created: "2026-11-21T00:00:00Z", source: "session", plan: "p",
    cells: [CellParameters(offset_counts: -12.5, gain_counts_per_n: 41_234.567)])

  /// Values the CRC vouches for are still bounded: a record written (and
  /// checksummed) by something else cannot overflow the core.
  @Test(arguments: [
    ("offset_counts = -12.5", "offset_counts = 1e300", "[[cell]]", "cell[1] offset_counts: must be -16777216...16777216 counts, is 1e+300"),
    ("gain_counts_per_n = 41234.567", "gain_counts_per_n = 1e300", "[[cell]]", "cell[1] gain_counts_per_n: must be -1000000000...1000000000 counts/N"),
    ("linearity_per_n = 0.0", "linearity_per_n = -1e300", "[[cell]]", "cell[1] linearity_per_n: must be -1...1"),
    ("reference_temp_c = 25.0", "reference_temp_c = 1e300", "", "reference_temp_c: must be -60...150 degC"),
  ])
  func recordValuesAreBounded(_ change: (String, String, String, String)) {
    let text = Self.resigned(Self.record.encoded().replacingOccurrences(of: change.0, with: change.1))
    let error = ErrorText.message { _ = try CalibrationRecord(text: text, file: "c.toml") }
    #expect(error?.contains(change.3) == true, "\(error ?? "loaded")")
  }

  /// `text` with its CRC line recomputed over everything before `[integrity]`.
  static func resigned(_ text: String) -> String {
    let body = String(text[...text.firstRange(of: "\n[integrity]\n")!.lowerBound])
    return body + "[integrity]\ncrc32 = \"\(hex32(CRC32.checksum(body.utf8)))\"\n"
  }

  /// The core's Q47.16 counts saturate like its forces do (a second line
  /// of defence behind the bounds above).
  @Test func countsSaturateLikeForces() {
    #expect(Counts_Q16(counts: 1e300).rawValue == Int64.max)
    #expect(Counts_Q16(counts: -1e300).rawValue == Int64.min)
    #expect(Counts_Q16(counts: .nan).rawValue == 0)
    #expect(Counts_Q16(counts: -12.5).rawValue == -12 * 65536 - 32768)
    #expect(Force_mN(newtons: 1e300).rawValue == Int32.max)
  }

  @Test func theSaturatingConversionClampsAndDropsTheFraction() {
    #expect(Int(saturating: 1e300) == Int.max)
    #expect(Int(saturating: -1e300) == Int.min)
    #expect(Int(saturating: Double.nan) == 0)
    #expect(Int(saturating: 9.2233720368547758e18) == Int.max)
    #expect(Int64(saturating: -2.5) == -2)
    #expect(Int16(saturating: 40000) == Int16.max)
  }
}
