/// What the report reads of one calibration: where and when it ran, its
/// result, and its figures (per-cell figures as the mean over the cells).
public struct CalibrationSummary: Sendable, Equatable, Codable {
  public var id: String
  public var serial: String
  public var board: String
  public var plan: String
  public var station: String
  public var lot: String?
  public var startedAt: String
  public var result: String
  public var failure: String?
  public var residual_pct: Double
  public var accuracyForce_pct: Double
  public var sensitivity_counts_per_n: Double
  public var noise_counts: Double
  public var offset_counts: Double
  /// 1 for the serial's first calibration in the database, 2 for its first
  /// retest, and so on.
  public var attempt: Int

  public init(
    id: String, serial: String, board: String, plan: String, station: String, lot: String?, startedAt: String,
    result: String, failure: String?, residual_pct: Double, accuracyForce_pct: Double,
    sensitivity_counts_per_n: Double, noise_counts: Double, offset_counts: Double, attempt: Int = 1
  ) {
    self.id = id
    self.serial = serial
    self.board = board
    self.plan = plan
    self.station = station
    self.lot = lot
    self.startedAt = startedAt
    self.result = result
    self.failure = failure
    self.residual_pct = residual_pct
    self.accuracyForce_pct = accuracyForce_pct
    self.sensitivity_counts_per_n = sensitivity_counts_per_n
    self.noise_counts = noise_counts
    self.offset_counts = offset_counts
    self.attempt = attempt
  }

  public init(_ row: CalibrationRow, attempt: Int = 1) {
    func mean(_ f: (CalibrationRow.Cell) -> Double) -> Double {
      row.cells.isEmpty ? 0 : row.cells.reduce(0) { $0 + f($1) } / Double(row.cells.count)
    }
    self.init(
      id: row.id, serial: row.serial, board: row.board, plan: row.plan, station: row.station, lot: row.lot,
      startedAt: row.startedAt, result: row.result, failure: row.failure, residual_pct: row.residual_pct,
      accuracyForce_pct: row.accuracyForce_pct, sensitivity_counts_per_n: mean(\.sensitivity_counts_per_n),
      noise_counts: mean(\.noise_counts), offset_counts: mean(\.offset_counts), attempt: attempt)
  }

  public var passed: Bool { result == "pass" }
  public var day: String { String(startedAt.prefix(10)) }

  /// The charted figures.
  public enum Metric: String, CaseIterable, Sendable, Codable {
    case sensitivity, noise, offset, residual, verification
    public var title: String {
      switch self {
      case .sensitivity: return "sensitivity (counts/N, mean of cells)"
      case .noise: return "noise (counts, mean of cells)"
      case .offset: return "offset (counts, mean of cells)"
      case .residual: return "fit residual (% of the largest load)"
      case .verification: return "verification error (worst, % of reading)"
      }
    }
  }

  public func value(_ m: Metric) -> Double {
    switch m {
    case .sensitivity: return sensitivity_counts_per_n
    case .noise: return noise_counts
    case .offset: return offset_counts
    case .residual: return residual_pct
    case .verification: return accuracyForce_pct
    }
  }
}
