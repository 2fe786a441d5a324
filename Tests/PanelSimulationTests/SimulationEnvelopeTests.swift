import ForceCore
import Foundation
import PanelEvaluationHarness
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelSimulation

/// The simulator's envelope keys (docs/formats.md, "Simulated front end"):
/// each does what it says, in physical units, deterministically, and a
/// board without them draws exactly what it drew before they existed.
@Suite struct SimulationEnvelopeTests {
  /// A simulated board: the plate of sim-plate4 or the grid of sim-grid,
  /// with `frontend` as the rest of its `[frontend]` table (and any
  /// `[[frontend.wander]]` after it).
  static func board(_ frontend: String, grid: Bool = false, rate: Int = 320) throws -> Board {
    let cells =
      grid
      ? "[grid]\ncols = 8\nrows = 6\npitch_mm = 20.0\n"
      : [(0, 0), (160, 0), (0, 100), (160, 100)].map { "[[cell]]\nx_mm = \($0.0).0\ny_mm = \($0.1).0\n" }.joined()
    let text = """
      [board]
      name = "envelope"
      [panel]
      width_mm = 160.0
      height_mm = \(grid ? 120 : 100).0
      \(cells)
      [sampling]
      rate_hz = \(rate)
      [frontend]
      kind = "sim"
      \(frontend)
      """
    return try Board(table: TOML.parse(text, file: "envelope.toml"))
  }

  static func physics(_ board: Board, _ scenario: Scenario = .idle()) throws -> PanelPhysics {
    PanelPhysics(board: board, parameters: try board.simulationParameters, scenario: scenario)
  }

  /// Each cell's signal over `frames` frames at the board's rate.
  static func signals(_ board: Board, _ scenario: Scenario = .idle(), frames: Int) throws -> [[Double]] {
    var p = try physics(board, scenario)
    let dt = 1 / Double(board.rate_hz)
    var out = [[Double]](repeating: [], count: board.cellCount)
    for f in 0..<frames {
      p.advance(time_s: Double(f) * dt, dt: f == 0 ? 0 : dt)
      for k in 0..<board.cellCount { out[k].append(p.signal[k]) }
    }
    return out
  }

  static func std(_ v: [Double]) -> Double {
    let m = v.reduce(0, +) / Double(v.count)
    return (v.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(v.count)).squareRoot()
  }

  static func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let ma = a.reduce(0, +) / Double(a.count)
    let mb = b.reduce(0, +) / Double(b.count)
    var ab = 0.0
    var aa = 0.0
    var bb = 0.0
    for (x, y) in zip(a, b) {
      ab += (x - ma) * (y - mb)
      aa += (x - ma) * (x - ma)
      bb += (y - mb) * (y - mb)
    }
    return ab / (aa * bb).squareRoot()
  }

  @Test func whiteNoiseInMillinewtonsIsThatManyCountsAtTheNominalGain() throws {
    let b = try Self.board("gain_counts_per_n = 40000.0\nnoise_mn = 5.0\nspike_rate_hz = 0.0")
    for cell in try Self.signals(b, frames: 20_000) {
      let sigma = Self.std(cell)
      #expect(abs(sigma / 200 - 1) < 0.04, "sigma \(sigma) counts, 5 mN at 40000 counts/N is 200")
    }
  }

  @Test func wanderHasItsSigmaAndItsTimeConstant() throws {
    let b = try Self.board(
      "gain_counts_per_n = 40000.0\nnoise_mn = 0.0\nspike_rate_hz = 0.0\n[[frontend.wander]]\ntau_s = 1.0\nsigma_mn = 2.0")
    let cells = try Self.signals(b, frames: 64_000)  // 200 s
    var sigmas: [Double] = []
    var lagged: [Double] = []
    for cell in cells {
      sigmas.append(Self.std(cell))
      // Correlation one time constant apart: e^-1.
      lagged.append(Self.correlation(Array(cell.dropLast(320)), Array(cell.dropFirst(320))))
    }
    let sigma = sigmas.reduce(0, +) / 4
    let r = lagged.reduce(0, +) / 4
    #expect(abs(sigma / 80 - 1) < 0.15, "wander sigma \(sigma) counts, 2 mN is 80")
    #expect(abs(r - 0.36788) < 0.12, "correlation over one time constant \(r), expected e^-1")
    // Without a common share the cells wander apart.
    #expect(abs(Self.correlation(cells[0], cells[1])) < 0.25)
  }

  @Test func aCommonShareMakesTheCellsWanderTogether() throws {
    let b = try Self.board(
      "noise_mn = 0.0\nspike_rate_hz = 0.0\n[[frontend.wander]]\ntau_s = 2.0\nsigma_mn = 3.0\ncommon = 1.0")
    let cells = try Self.signals(b, frames: 6400)
    #expect(Self.correlation(cells[0], cells[3]) > 0.999)
    #expect(Self.std(cells[0]) > 0)
  }

  @Test func driftSpreadBetweenCellsKeepsTheCommonSign() throws {
    let b = try Self.board(
      "gain_counts_per_n = 40000.0\ntc_zero_mn_per_c = 4.0\ntc_zero_spread = 0.5\ntc_span_per_c = 0.001\ntc_span_spread = 0.5",
      grid: true)
    let cells = try Self.physics(b).cells
    let zero = cells.map(\.tcZero_counts_per_c)
    let span = cells.map(\.tcSpan_per_c)
    #expect(zero.allSatisfy { $0 >= 80 && $0 <= 240 }, "4 mN/degC is 160 counts/degC, +-50 %: \(zero)")
    #expect(span.allSatisfy { $0 >= 0.0005 && $0 <= 0.0015 })
    #expect(zero.max()! - zero.min()! > 100 && span.max()! - span.min()! > 0.0006)
    // Without a spread the drift is uniform in +-max, both signs.
    let plain = try Self.physics(try Self.board("tc_zero_counts_per_c = 400.0", grid: true)).cells.map(\.tcZero_counts_per_c)
    #expect(plain.contains { $0 < 0 } && plain.contains { $0 > 0 } && plain.allSatisfy { abs($0) <= 400 })
  }

  /// A plate whose cells read only their zero drift: 100 mN/degC each.
  static let thermal = "noise_mn = 0.0\nspike_rate_hz = 0.0\ntc_zero_mn_per_c = 100.0\ntc_zero_spread = 0.0\ntc_span_per_c = 0.0"

  @Test func cellsFollowThePanelTemperatureWithTheirLag() throws {
    let b = try Self.board(Self.thermal + "\nthermal_lag_s = 20.0")
    let step = Scenario(name: "step", duration_s: 30, temperature: [Keyframe(0, 25), Keyframe(0.01, 35)], touches: [])
    var p = try Self.physics(b, step)
    let dt = 1 / 320.0
    var t = 0.0
    p.advance(time_s: 0, dt: 0)
    while t < 20.01 {
      t += dt
      p.advance(time_s: t, dt: dt)
    }
    #expect(p.temperature.celsius == 35, "the panel's sensor reads the panel")
    for (k, cell) in p.cells.enumerated() {
      let cellDT = (p.signal[k] - cell.offset_counts) / cell.tcZero_counts_per_c
      #expect(abs(cellDT - 10 * (1 - 0.36788)) < 0.05, "cell \(k) is \(cellDT) degC up after one lag, expected 6.32")
    }
  }

  @Test func aGradientWarmsOneSideOfThePanelFirst() throws {
    let b = try Self.board(Self.thermal)
    var s = Scenario(name: "gradient", duration_s: 1, touches: [])
    s.gradientX = [Keyframe(0, 2)]
    s.gradientY = [Keyframe(0, 0)]
    var p = try Self.physics(b, s)
    p.advance(time_s: 0, dt: 0)
    let dT = p.cells.indices.map { (p.signal[$0] - p.cells[$0].offset_counts) / p.cells[$0].tcZero_counts_per_c }
    // Cells 0 and 2 on the left edge, 1 and 3 on the right.
    for (k, expected) in [-1.0, 1, -1, 1].enumerated() {
      #expect(abs(dT[k] - expected) < 1e-9, "cell \(k): \(dT[k]) degC")
    }
  }

  @Test func hysteresisReadsHigherOnTheWayUpThanDown() throws {
    let quiet = "noise_mn = 0.0\nspike_rate_hz = 0.0\ncreep = 0.0\nnonlinearity_per_n = 0.0\nstiffness_spread = 0.0"
    let press = ScriptedTouch(
      start_s: 0, force: [Keyframe(0, 0), Keyframe(1, 4), Keyframe(2, 0)], x: [Keyframe(0, 80)], y: [Keyframe(0, 50)])
    func readings(_ keys: String) throws -> (up: [Double], down: [Double], cells: [SimulatedCell]) {
      var p = try Self.physics(try Self.board(keys), Scenario(name: "press", duration_s: 2, touches: [press]))
      let dt = 1 / 320.0
      var up: [Double] = []
      var down: [Double] = []
      for f in 0...640 {
        p.advance(time_s: Double(f) * dt, dt: f == 0 ? 0 : dt)
        if f == 160 { up = p.signal }  // 2 N on the way up
        if f == 480 { down = p.signal }  // 2 N on the way down
      }
      return (up, down, p.cells)
    }
    let h = try readings(quiet + "\nhysteresis = 0.01")
    for (k, cell) in h.cells.enumerated() {
      // Each corner carries 0.5 N of the 2 N at the centre.
      let expected = cell.gain_counts_per_n * 0.5 * 2 * cell.hysteresis
      #expect(cell.hysteresis >= 0.005 && cell.hysteresis <= 0.015)
      #expect(abs((h.up[k] - h.down[k]) / expected - 1) < 0.02, "cell \(k): \(h.up[k] - h.down[k]) counts, expected \(expected)")
    }
    let none = try readings(quiet)
    for k in 0..<4 { #expect(abs(none.up[k] - none.down[k]) < 1e-6) }
  }

  @Test func theEnvelopeIsDeterministicForASeed() throws {
    let keys = """
      seed = 9
      noise_mn = 3.0
      tc_zero_mn_per_c = 2.0
      tc_zero_spread = 0.5
      thermal_lag_s = 5.0
      thermal_lag_spread = 0.5
      hysteresis = 0.002
      kernel = "exponential"
      spread_pitch = 0.5
      [[frontend.wander]]
      tau_s = 3.0
      sigma_mn = 2.0
      common = 0.3
      """
    let ramp = Scenario(
      name: "ramp", duration_s: 3, temperature: [Keyframe(0, 25), Keyframe(3, 30)],
      touches: [ScriptedTouch(start_s: 0.5, x_mm: 70, y_mm: 50, force_n: 2, hold_s: 1)])
    let a = try Self.signals(try Self.board(keys, grid: true), ramp, frames: 960)
    let b = try Self.signals(try Self.board(keys, grid: true), ramp, frames: 960)
    let c = try Self.signals(try Self.board(keys.replacingOccurrences(of: "seed = 9", with: "seed = 10"), grid: true), ramp, frames: 960)
    #expect(a == b)
    #expect(a != c)
  }

  /// A recording of today's boards is byte for byte what it was before the
  /// envelope existed (CRC-32 of `panelctl record` output made with the
  /// simulator of commit ddb6b31): a 20 -> 35 degC ramp with a 3 N press.
  @Test(arguments: [("sim-plate4", UInt32(0x3a10_8fbd)), ("sim-grid", 0xbe56_b73b)])
  func todaysBoardsRecordWhatTheyRecordedBefore(_ name: String, _ crc: UInt32) throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    let scenario = """
      [scenario]
      name = "ramp"
      temperature = [[0, 20], [1, 20], [3, 35]]
      [[touch]]
      start_s = 0.5
      x_mm = 40.0
      y_mm = 50.0
      force_n = 3.0
      hold_s = 2.0

      """
    try scenario.write(toFile: dir + "/ramp.toml", atomically: true, encoding: .utf8)
    try EvaluationSteps.record(board: try Repo.board(name), scenarioPath: dir + "/ramp.toml", to: dir + "/ramp.csv")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/ramp.csv")))
    #expect(CRC32.checksum(bytes) == crc, "\(name): CRC-32 \(hex32(CRC32.checksum(bytes))), was \(hex32(crc))")
  }

  /// Every simulated board's committed calibration is still its truth.
  @Test(arguments: ["sim-plate4", "sim-grid", "sim-plate4-nau7802", "sim-plate4-ads122c04", "sim-grid-frame"])
  func theCommittedTruthStillMatchesTheSimulator(_ name: String) throws {
    let path = Repo.path("calibration/\(name).toml")
    let committed = try CalibrationRecord.load(path: path)
    let truth = try FrontEndFactory.trueCalibration(board: try Repo.board(name), created: committed.created)
    #expect(truth.encoded() == (try String(contentsOfFile: path, encoding: .utf8)))
  }

  @Test(arguments: [
    ("noise_mn = 1.0\nnoise_counts = 3.0", false, "noise_mn: give noise_mn or noise_counts, not both"),
    ("kernel = \"lorentz\"", true, "kernel: \"lorentz\" is not one of boussinesq, gaussian, exponential, table"),
    ("kernel = \"table\"", true, "needs kernel_table"),
    ("kernel = \"table\"\nkernel_table = [[1.0, 1.0], [2.0, 0.0]]", true, "the first radius must be 0"),
    ("kernel = \"table\"\nkernel_table = [[0.0, 1.0], [5.0, 0.5]]\nspread_mm = 9.0", true, "spread_mm: a measured table has its own radii"),
    ("kernel_table = [[0.0, 1.0], [5.0, 0.5]]", true, "kernel_table: needs kernel = \"table\""),
    ("spread_mm = 10.0\nspread_pitch = 0.5", true, "spread_pitch: give spread_mm or spread_pitch, not both"),
    ("tc_zero_mn_per_c = 1.0\ntc_zero_counts_per_c = 10.0", false, "give tc_zero_mn_per_c or tc_zero_counts_per_c"),
    ("hysteresis = 0.6", false, "hysteresis: must be below 0.5"),
    ("thermal_lag_spread = 1.0", false, "thermal_lag_spread: must be below 1"),
    ("[[frontend.wander]]\nsigma_mn = 2.0", false, "tau_s"),
    ("[[frontend.wander]]\ntau_s = 2.0\nsigma_mn = 2.0\ncommon = 1.5", false, "common: must be 0...1, is 1.5"),
    ("[[frontend.wander]]\ntau_s = 2.0\nsigma_mn = 2.0\nrate = 1.0", false, "unknown key"),
  ])
  func badEnvelopeKeysAreErrorsNamingTheKey(_ keys: String, _ grid: Bool, _ message: String) throws {
    let error = FilesTestSupport.failure { _ = try Self.board(keys, grid: grid) }
    #expect(error?.contains(message) == true, "\(error ?? "no error")")
  }

  @Test func aKernelOnAPlateIsAnErrorNamingIt() throws {
    // Found when the board is loaded, not when its panel is first made.
    let error = FilesTestSupport.failure { _ = try Self.board("kernel = \"gaussian\"\nspread_pitch = 0.5") }
    #expect(error?.contains("envelope.toml:") == true && error?.contains("kernel") == true)
    #expect(error?.contains("a grid overlay's") == true, "\(error ?? "no error")")
  }

  @Test func aSimulatedTwinTakesTheEnvelopeKeysInItsSimTable() throws {
    var text = try String(contentsOfFile: Repo.path("boards/sim-grid-frame.toml"), encoding: .utf8)
    #expect(text.contains("noise_counts = 25.0\nspread_mm = 14.0\n"))
    text = text.replacingOccurrences(
      of: "noise_counts = 25.0\nspread_mm = 14.0\n", with: "noise_mn = 3.0\nkernel = \"gaussian\"\nspread_pitch = 0.5\n")
    text += "\n[[frontend.sim.wander]]\ntau_s = 5.0\nsigma_mn = 2.0\n"
    let board = try Board(table: TOML.parse(text, file: "twin.toml"))
    let physics = try #require(board.frontEnd.twinParameters).physics
    #expect(physics.noise_mn == 3 && physics.kernel == .gaussian && physics.spread_pitch == 0.5)
    #expect(physics.wander == [WanderProcess(tau_s: 5, sigma_mn: 2)])
    #expect(physics.spreadingKernel(pitch: 20) == .gaussian(sigma: 10))
  }

  /// The envelope's fastest warm-up, as a scenario file for the corners.
  @Test(arguments: ["sim-grid-noisy", "sim-plate4-noisy"])
  func theWarmUpScenarioIsTheEnvelopesFastestRamp(_ name: String) throws {
    let s = try Scenario.load(path: Repo.path("scenarios/warm-up.toml"), board: try Repo.board(name))
    #expect(s.temperature(at: 10) == 25 && s.temperature(at: 310) == 35)
    #expect(s.gradient(at: 310) == (x: 1.5, y: 0.75))
    #expect(s.touches.count == 16 && s.duration_s == 330)
  }

  @Test func aScenarioGradientIsBoundedAndRoundTrips() throws {
    let b = try Repo.board("sim-grid")
    let bad = """
      [scenario]
      temperature_gradient = [[0, 200, 0]]
      """
    let error = FilesTestSupport.failure { _ = try Scenario(table: TOML.parse(bad, file: "s.toml"), board: b) }
    #expect(error?.contains("temperature_gradient") == true && error?.contains("outside") == true, "\(error ?? "")")
    var s = StandardScenarios(board: b, seed: 3, lengths: .quick)
    for original in s.all().map(\.scenario) {
      let back = try Scenario(table: TOML.parse(original.encoded(), file: "s.toml"), board: b)
      #expect(back.touches == original.touches && back.temperature == original.temperature)
      #expect(back.gradientX == original.gradientX && back.gradientY == original.gradientY)
      #expect(back.duration_s == original.duration_s)
    }
  }
}
