import PanelFormats
import PanelSimulation

#if canImport(Glibc)
  import Glibc
#endif

/// One panel of the evaluation: a board file of the repository, or one
/// generated at a point of the envelope.
public struct EvaluationPanel: Sendable, Equatable {
  public enum Origin: String, Sendable {
    /// A board file of the repository (today's boards and their corners).
    case repository
    /// Generated at a corner of the envelope, deliberately.
    case corner
    /// Drawn at random within the envelope.
    case drawn
  }

  public var name: String
  public var origin: Origin
  public var kind: PanelEnvelope.Kind
  /// A repository board: its file.
  public var boardPath: String?
  /// A generated board: where it sits.
  public var envelope: PanelEnvelope?
  /// The calibration plan the panel's kind uses (the repository's).
  public var planPath: String
}

/// The population: the repository's simulated boards first (today's quiet
/// ones and the corner boards beside them), then generated panels at the
/// corners of the envelope, then panels drawn at random within it:
///
/// - white noise 0.2-10 mN per cell, wander up to 5 mN (time constants of
///   2 s to 5 min), 320-500 frames/s;
/// - grid kernels Boussinesq, Gaussian, exponential and a measured table,
///   0.35-0.8 pitch wide;
/// - non-linearity up to 2 %, zero and span drift spread +-50 % between
///   cells, cells lagging the panel's temperature by up to a minute,
///   hysteresis up to 0.2 %, creep 0.1-1 %.
public enum EvaluationPopulation {
  /// The repository's boards in the population, and the plan of each kind.
  public static let repositoryBoards: [(name: String, kind: PanelEnvelope.Kind)] = [
    ("sim-plate4", .plate), ("sim-grid", .grid), ("sim-plate4-noisy", .plate), ("sim-grid-noisy", .grid),
    ("sim-grid-gaussian", .grid),
  ]
  public static let plans: [PanelEnvelope.Kind: String] = [.plate: "sim-plate4.toml", .grid: "sim-grid.toml"]

  /// The population's first `count` panels for `seed`: boards from
  /// `boardsDirectory`, plans from `calibration/plans/` beside it.
  public static func panels(count: Int, seed: UInt64, boardsDirectory: String) -> [EvaluationPanel] {
    let boards = boardsDirectory.hasSuffix("/") || boardsDirectory.isEmpty ? boardsDirectory : boardsDirectory + "/"
    let plansDirectory = boards + "../calibration/plans/"
    var list: [EvaluationPanel] = []
    for (name, kind) in repositoryBoards {
      list.append(
        EvaluationPanel(
          name: name, origin: .repository, kind: kind, boardPath: boards + name + ".toml", envelope: nil,
          planPath: plansDirectory + plans[kind]!))
    }
    for (name, envelope) in corners(seed: seed) {
      list.append(
        EvaluationPanel(
          name: name, origin: .corner, kind: envelope.kind, boardPath: nil, envelope: envelope,
          planPath: plansDirectory + plans[envelope.kind]!))
    }
    var random = SimRandom(seed: seed ^ 0xD2A3_0B0A_2D5E_ED00)
    var i = 0
    while list.count < count {
      i += 1
      let e = drawn(kind: i % 2 == 1 ? .plate : .grid, seed: seed &+ 1000 &+ UInt64(i), random: &random)
      list.append(
        EvaluationPanel(
          name: "eval-drawn-\(i < 10 ? "0" : "")\(i)-\(e.kind.rawValue)", origin: .drawn, kind: e.kind, boardPath: nil,
          envelope: e, planPath: plansDirectory + plans[e.kind]!))
    }
    return Array(list.prefix(count))
  }

  /// The corners of the envelope, deliberately (beside the repository's
  /// own corner boards).
  static func corners(seed: UInt64) -> [(String, PanelEnvelope)] {
    var list: [(String, PanelEnvelope)] = []
    func add(_ name: String, _ kind: PanelEnvelope.Kind, _ set: (inout PanelEnvelope) -> Void) {
      var e = PanelEnvelope(kind: kind, seed: seed &+ 100 &+ UInt64(list.count))
      set(&e)
      list.append(("eval-" + name, e))
    }
    add("plate-quiet-500hz", .plate) {
      $0.noise_mn = 0.2
      $0.rate_hz = 500
    }
    add("plate-wander", .plate) {
      $0.noise_mn = 1
      $0.wander = [WanderProcess(tau_s: 30, sigma_mn: 3, common: 0.5), WanderProcess(tau_s: 300, sigma_mn: 4, common: 0.5)]
    }
    add("plate-nonlinear", .plate) {
      $0.noise_mn = 2
      $0.nonlinearity_per_n = 0.016
      $0.hysteresis = 0.002
      $0.creep = 0.01
      $0.rate_hz = 400
    }
    add("plate-thermal", .plate) {
      $0.noise_mn = 1
      $0.tcZero_mn_per_c = 5
      $0.tcZeroSpread = 0.5
      $0.tcSpan_per_c = 0.0005
      $0.tcSpanSpread = 0.5
      $0.thermalLag_s = 60
      $0.thermalLagSpread = 0.5
    }
    for kernel in ["boussinesq", "gaussian", "exponential"] {
      for width in [0.35, 0.8] {
        add("grid-\(kernel)-\(width == 0.35 ? "035" : "080")", .grid) {
          $0.kernel = kernel
          $0.spread_pitch = width
          $0.rate_hz = 500
        }
      }
    }
    add("grid-table", .grid) {
      $0.kernel = "table"
      $0.spread_pitch = 0.47
      $0.rate_hz = 500
    }
    add("grid-quiet-320hz", .grid) {
      $0.noise_mn = 0.2
      $0.rate_hz = 320
    }
    add("grid-wander", .grid) {
      $0.noise_mn = 1
      $0.wander = [WanderProcess(tau_s: 30, sigma_mn: 3, common: 0.5), WanderProcess(tau_s: 300, sigma_mn: 4, common: 0.5)]
      $0.rate_hz = 500
    }
    add("grid-thermal", .grid) {
      $0.noise_mn = 1
      $0.tcZero_mn_per_c = 3
      $0.tcZeroSpread = 0.5
      $0.tcSpan_per_c = 0.0005
      $0.tcSpanSpread = 0.5
      $0.thermalLag_s = 60
      $0.thermalLagSpread = 0.5
      $0.rate_hz = 320
    }
    return list
  }

  /// A panel drawn uniformly within the envelope (noise log-uniform).
  static func drawn(kind: PanelEnvelope.Kind, seed: UInt64, random r: inout SimRandom) -> PanelEnvelope {
    var e = PanelEnvelope(kind: kind, seed: seed)
    e.rate_hz = 320 + Int(r.uniform() * 181)
    e.noise_mn = (0.2 * pow(50, r.uniform())).rounded(toPlaces: 2)
    let total = 5 * r.uniform()
    let processes = 1 + Int(r.uniform() * 2)
    for _ in 0..<processes {
      e.wander.append(
        WanderProcess(
          tau_s: (2 * pow(150, r.uniform())).rounded(toPlaces: 1),
          sigma_mn: (total / Double(processes).squareRoot()).rounded(toPlaces: 2),
          common: (0.6 * r.uniform()).rounded(toPlaces: 2)))
    }
    e.kernel = SpreadingKernel.names[Int(r.uniform() * 4)]
    e.spread_pitch = (0.35 + 0.45 * r.uniform()).rounded(toPlaces: 2)
    e.nonlinearity_per_n = (0.016 * r.uniform()).rounded(toPlaces: 4)
    e.tcZero_mn_per_c = (5 * r.symmetric()).rounded(toPlaces: 2)
    e.tcZeroSpread = (0.5 * r.uniform()).rounded(toPlaces: 2)
    e.tcSpan_per_c = 0.0005
    e.tcSpanSpread = (0.5 * r.uniform()).rounded(toPlaces: 2)
    e.thermalLag_s = (60 * r.uniform()).rounded(toPlaces: 1)
    e.thermalLagSpread = (0.5 * r.uniform()).rounded(toPlaces: 2)
    e.hysteresis = (0.002 * r.uniform()).rounded(toPlaces: 5)
    e.creep = (0.001 + 0.009 * r.uniform()).rounded(toPlaces: 4)
    return e
  }
}
