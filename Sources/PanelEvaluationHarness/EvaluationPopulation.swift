import PanelFormats
import PanelMechanics
import PanelSimulation

#if canImport(Glibc)
  import Glibc
#endif

/// One panel of the evaluation: a board file of the repository, or one
/// generated at a point of the envelope.
package struct EvaluationPanel: Sendable, Equatable {
  package enum Origin: String, Sendable {
    /// A board file of the repository (today's boards and their corners).
    case repository
    /// Generated at a corner of the envelope, deliberately.
    case corner
    /// Drawn at random within the envelope.
    case drawn
  }

  package var name: String
  package var origin: Origin
  package var kind: PanelEnvelope.Kind
  /// A repository board: its file.
  package var boardPath: String?
  /// A generated board: where it sits.
  package var envelope: PanelEnvelope?
  /// The calibration plan the panel's kind uses (the repository's).
  package var planPath: String
}

/// The population: the repository's simulated boards first (today's quiet
/// ones and the corner boards beside them), then generated panels at the
/// corners of the envelope, then panels drawn at random within it:
///
/// - white noise 0.2-10 mN per cell, wander up to 5 mN (time constants of
///   2 s to 5 min), 200-1000 frames/s;
/// - grid kernels Boussinesq, Gaussian, exponential and a measured table,
///   0.35-0.8 pitch wide, up to twice as wide along one axis as along the
///   other, with a frame around the cells taking up to a ring of cells'
///   share (so capture falls and the response is cut near the edges);
/// - plates 100-300 mm wide on 3-6 supports placed anywhere, stiffness
///   +-45 %; grids of 4 x 4 to 16 x 16 cells at 8-25 mm pitch;
/// - gains +-30 % apart, one cell up to six times noisier than the rest;
/// - non-linearity up to 2 %, zero and span drift spread +-50 % between
///   cells, cells lagging the panel's temperature by up to a minute,
///   hysteresis up to 0.2 %, creep 0.1-1 %.
package enum EvaluationPopulation {
  /// The repository's boards in the population, and the plan of each kind.
  package static let repositoryBoards: [(name: String, kind: PanelEnvelope.Kind)] = [
    ("sim-plate4", .plate), ("sim-grid", .grid), ("sim-plate4-noisy", .plate), ("sim-grid-noisy", .grid),
    ("sim-grid-gaussian", .grid),
  ]
  package static let plans: [PanelEnvelope.Kind: String] = [.plate: "sim-plate4.toml", .grid: "sim-grid.toml"]

  /// The population's first `count` panels for `seed`: boards from
  /// `boardsDirectory`, plans from `calibration/plans/` beside it.
  package static func panels(count: Int, seed: UInt64, boardsDirectory: String) -> [EvaluationPanel] {
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
    for kernel in [SpreadingKernelKind.boussinesq, .gaussian, .exponential] {
      for width in [0.35, 0.8] {
        add("grid-\(kernel.rawValue)-\(width == 0.35 ? "035" : "080")", .grid) {
          $0.kernel = kernel
          $0.spread_pitch = width
          $0.rate_hz = 500
        }
      }
    }
    add("grid-table", .grid) {
      $0.kernel = .table
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
    // Other sizes, supports, cell counts, rates and responses.
    func at(_ points: [(Double, Double)]) -> [CellPosition] { points.map { CellPosition(x_mm: $0.0, y_mm: $0.1) } }
    add("plate-300mm-6", .plate) {
      $0.plate = .init(width_mm: 300, height_mm: 200, supports: at([(0, 0), (150, 0), (300, 0), (0, 200), (150, 200), (300, 200)]))
      $0.stiffnessSpread = 0.4
      $0.noise_mn = 1
      $0.rate_hz = 500
    }
    add("plate-100mm-3", .plate) {
      $0.plate = .init(width_mm: 100, height_mm: 70, supports: at([(8, 64), (92, 64), (50, 6)]))
      $0.noise_mn = 0.5
      $0.rate_hz = 1000
    }
    add("plate-inside-mismatch", .plate) {
      $0.plate = .init(
        width_mm: 220, height_mm: 140, supports: at([(30, 25), (200, 15), (185, 120), (45, 110), (110, 70)]))
      $0.stiffnessSpread = 0.45
      $0.gainSpread = 0.3
      $0.noise_mn = 0.8
      $0.noisyCell = 2
      $0.noisyCell_mn = 4
      $0.rate_hz = 200
    }
    add("grid-4x4-25mm", .grid) {
      $0.grid = GridSpec(columns: 4, rows: 4, pitch_mm: 25)
      $0.rate_hz = 200
    }
    add("grid-16x16-8mm", .grid) {
      $0.grid = GridSpec(columns: 16, rows: 16, pitch_mm: 8)
      $0.kernel = .gaussian
      $0.spread_pitch = 0.7
      $0.rate_hz = 400
    }
    add("grid-anisotropic", .grid) {
      $0.spread_pitch = 0.6
      $0.spreadAspect = 2
      $0.rate_hz = 500
    }
    add("grid-framed", .grid) {
      $0.frameShare = 1
      $0.rate_hz = 500
    }
    add("grid-12x8-mixed", .grid) {
      $0.grid = GridSpec(columns: 12, rows: 8, pitch_mm: 12)
      $0.kernel = .exponential
      $0.spread_pitch = 0.5
      $0.spreadAspect = 0.6
      $0.frameShare = 0.6
      $0.gainSpread = 0.3
      $0.noisyCell = 37
      $0.noisyCell_mn = 2.4
      $0.rate_hz = 1000
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
    e.kernel = SpreadingKernelKind.allCases[Int(r.uniform() * 4)]
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
    // Where users' panels differ besides: drawn from their own stream.
    var g = SimRandom(seed: seed ^ 0x6E0_7E7A_5EED)
    e.rate_hz = 200 + Int(g.uniform() * 801)
    e.gainSpread = (0.3 * g.uniform()).rounded(toPlaces: 2)
    switch kind {
    case .plate:
      let width = (100 + 200 * g.uniform()).rounded()
      let height = (width * (0.5 + 0.4 * g.uniform())).rounded()
      e.plate = drawnPlate(width: width, height: height, supports: 3 + Int(g.uniform() * 4), random: &g)
      e.stiffnessSpread = (0.45 * g.uniform()).rounded(toPlaces: 2)
    case .grid:
      e.grid = GridSpec(
        columns: 4 + Int(g.uniform() * 13), rows: 4 + Int(g.uniform() * 13),
        pitch_mm: (8 + 17 * g.uniform()).rounded(toPlaces: 1))
      e.spreadAspect = pow(2, 2 * g.uniform() - 1).rounded(toPlaces: 2)
      e.frameShare = g.uniform() < 0.5 ? 0 : g.uniform().rounded(toPlaces: 2)
    }
    if g.uniform() < 0.5 {
      let cells = kind == .plate ? e.plate!.supports.count : e.grid!.columns * e.grid!.rows
      e.noisyCell = Int(g.uniform() * Double(cells))
      e.noisyCell_mn = (e.noise_mn * (2 + 4 * g.uniform())).rounded(toPlaces: 2)
    }
    return e
  }

  /// Supports anywhere under a plate, spread enough to hold it: the largest
  /// triangle between them covers a fifth of the plate (corners when no
  /// draw of a hundred does).
  static func drawnPlate(width: Double, height: Double, supports n: Int, random g: inout SimRandom) -> PanelEnvelope.Plate {
    for _ in 0..<100 {
      let points = (0..<n).map { _ in
        CellPosition(x_mm: (width * g.uniform()).rounded(), y_mm: (height * g.uniform()).rounded())
      }
      var largest = 0.0
      for i in 0..<n {
        for j in (i + 1)..<n {
          for k in (j + 1)..<n where k < n {
            let (a, b, c) = (points[i], points[j], points[k])
            let area = abs((b.x_mm - a.x_mm) * (c.y_mm - a.y_mm) - (c.x_mm - a.x_mm) * (b.y_mm - a.y_mm)) / 2
            largest = max(largest, area)
          }
        }
      }
      if largest >= 0.2 * width * height { return .init(width_mm: width, height_mm: height, supports: points) }
    }
    let corners = [(0.0, 0.0), (width, 0), (0, height), (width, height)].map { CellPosition(x_mm: $0.0, y_mm: $0.1) }
    return .init(width_mm: width, height_mm: height, supports: corners)
  }
}
