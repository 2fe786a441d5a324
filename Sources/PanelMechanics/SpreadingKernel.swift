import PanelFormats

#if canImport(Glibc)
  import Glibc
#endif

/// How a grid overlay spreads a point load around it: the stress at
/// distance `r` from the press, before it is integrated over each cell and
/// normalised so the cells carry the whole force (`LoadSharing`).
///
/// - `boussinesq(depth:)`: an elastic layer `depth` deep,
///   `(1 + (r/depth)^2)^(-5/2)` (today's simulated grid, and the family the
///   calibration fits);
/// - `gaussian(sigma:)`: `exp(-r^2 / 2 sigma^2)`, a soft overlay;
/// - `exponential(length:)`: `exp(-r / length)`, a stiff skin with long tails;
/// - `table(r:weight:)`: a measured radial profile, linear between rows and 0
///   beyond the last.
public enum SpreadingKernel: Sendable, Equatable {
  case boussinesq(depth: Double)
  case gaussian(sigma: Double)
  case exponential(length: Double)
  case table(r: [Double], weight: [Double])

  /// The names a board file uses (`kernel = "..."`), in the order of
  /// `SimulationParameters.kernelNames`.
  public static var names: [String] { SimulationParameters.kernelNames }

  /// Its kind, as a board file names it.
  public var kind: SpreadingKernelKind {
    switch self {
    case .boussinesq: return .boussinesq
    case .gaussian: return .gaussian
    case .exponential: return .exponential
    case .table: return .table
    }
  }

  public var name: String { kind.rawValue }

  /// The kernel's own length, mm (nil for a table).
  public var width_mm: Double? {
    switch self {
    case .boussinesq(let z): return z
    case .gaussian(let s): return s
    case .exponential(let l): return l
    case .table: return nil
    }
  }

  /// What a cell centred at `cell` (of side `pitch`) takes of a unit point
  /// load at (`x`, `y`): the stress summed over nine points of the cell.
  @inline(__always)
  package func cellWeight(_ cell: CellPosition, pitch: Double, x: Double, y: Double) -> Double {
    var w = 0.0
    for sy in -1...1 {
      for sx in -1...1 {
        let dx = cell.x_mm + Double(sx) * pitch / 3 - x
        let dy = cell.y_mm + Double(sy) * pitch / 3 - y
        w += stress(r2: dx * dx + dy * dy)
      }
    }
    return w
  }

  /// `cellWeight` on an overlay `aspect` times as wide along x as along y
  /// (the distance read as `dx^2 / aspect + dy^2 aspect`).
  @inline(__always)
  package func cellWeight(_ cell: CellPosition, pitch: Double, x: Double, y: Double, aspect: Double) -> Double {
    guard aspect != 1 else { return cellWeight(cell, pitch: pitch, x: x, y: y) }
    let ax = 1 / aspect
    var w = 0.0
    for sy in -1...1 {
      for sx in -1...1 {
        let dx = cell.x_mm + Double(sx) * pitch / 3 - x
        let dy = cell.y_mm + Double(sy) * pitch / 3 - y
        w += stress(r2: dx * dx * ax + dy * dy * aspect)
      }
    }
    return w
  }

  /// The stress at squared distance `r2` (mm^2), up to a constant.
  @inline(__always)
  package func stress(r2: Double) -> Double {
    switch self {
    case .boussinesq(let depth):
      let q = 1 + r2 / (depth * depth)
      return 1 / (q * q * q.squareRoot())
    case .gaussian(let sigma):
      return exp(-r2 / (2 * sigma * sigma))
    case .exponential(let length):
      return exp(-r2.squareRoot() / length)
    case .table(let r, let weight):
      let d = r2.squareRoot()
      guard let last = r.last, d < last else { return d == r.last ? weight[weight.count - 1] : 0 }
      var i = 1
      while r[i] < d { i += 1 }
      let span = r[i] - r[i - 1]
      let f = span > 0 ? (d - r[i - 1]) / span : 1
      return weight[i - 1] + (weight[i] - weight[i - 1]) * f
    }
  }
}
