import FoundationEssentials

/// One calibration run as the factory database keeps it: who, what, where,
/// when, the result, every check, each cell's fitted figures, the model
/// (a format name and its bytes, so that a new kind of model needs no new
/// column) and the certificate. A run is one row of `calibrations` with its
/// `checks`, `cells` and `models` rows (docs/factory.md); the same value is
/// the queue's entry while the database is away.
public struct CalibrationRow: Codable, Sendable, Equatable {
  /// A UUID (version 4, lower-case text), made by the station: a row
  /// delivered twice is the same row.
  public var id: String
  public var serial: String = ""
  public var board: String = ""
  /// The plan's name and the SHA-256 of its content (limits and steps,
  /// without the panel's serial and date: one plan, one hash).
  public var plan: String = ""
  public var planSHA256: String = ""
  public var station: String = ""
  public var fixture: String? = nil
  public var operatorID: String? = nil
  /// The lot of the panel's force cells, as the operator or the MES gives it.
  public var lot: String? = nil
  /// The program that calibrated ("panelctl 0.1.0").
  public var firmware: String = ""
  /// ISO 8601 UTC with milliseconds ("2026-03-14T09:26:53.120Z").
  public var startedAt: String = ""
  public var endedAt: String = ""
  public var tempLow_c: Double = 0
  public var tempHigh_c: Double = 0
  /// "pass" or "fail".
  public var result: String = ""
  /// The first failed check's name (the Pareto's failure code), nil on a pass.
  public var failure: String? = nil
  /// The fit's RMS residual, % of the largest load.
  public var residual_pct: Double = 0
  /// "verification", "cross-validation" or "not measured".
  public var accuracyMethod: String = ""
  /// Worst force error at or above the plan's floor, % of reading.
  public var accuracyForce_pct: Double = 0
  /// RMS position error, mm.
  public var accuracyPosition_mm: Double = 0
  /// Creep extrapolated to 30 minutes, % of the load (nil: no hold step).
  public var creep_pct: Double? = nil
  /// The record file a pass wrote (nil on a fail) and its SHA-256.
  public var recordPath: String? = nil
  public var recordSHA256: String? = nil
  /// The certificate: its HTML's path, and the JSON summary itself.
  public var certificatePath: String = ""
  public var certificateJSON: String = ""
  public var checks: [Check] = []
  public var cells: [Cell] = []
  public var model: Model = Model(format: "", bytes: [])

  /// A row with only its id; the rest is set field by field.
  public init(id: String) { self.id = id }

  public struct Check: Codable, Sendable, Equatable {
    public var name: String
    public var subject: String
    public var value: Double
    public var limit: Double
    public var unit: String
    public var passed: Bool
    public init(name: String, subject: String, value: Double, limit: Double, unit: String, passed: Bool) {
      self.name = name
      self.subject = subject
      self.value = value
      self.limit = limit
      self.unit = unit
      self.passed = passed
    }
  }

  /// One cell's fitted figures.
  public struct Cell: Codable, Sendable, Equatable {
    public var index: Int
    public var offset_counts: Double
    /// Sensitivity: counts per newton.
    public var sensitivity_counts_per_n: Double
    public var nonlinearity_pct: Double
    public var tcZero_counts_per_c: Double
    public var tcSpan_per_c: Double
    public var noise_counts: Double
    public var noise_n: Double
    public var hysteresis_pct: Double?
    public var zeroReturn_pct: Double?
    public init(
      index: Int, offset_counts: Double, sensitivity_counts_per_n: Double, nonlinearity_pct: Double,
      tcZero_counts_per_c: Double, tcSpan_per_c: Double, noise_counts: Double, noise_n: Double,
      hysteresis_pct: Double?, zeroReturn_pct: Double?
    ) {
      self.index = index
      self.offset_counts = offset_counts
      self.sensitivity_counts_per_n = sensitivity_counts_per_n
      self.nonlinearity_pct = nonlinearity_pct
      self.tcZero_counts_per_c = tcZero_counts_per_c
      self.tcSpan_per_c = tcSpan_per_c
      self.noise_counts = noise_counts
      self.noise_n = noise_n
      self.hysteresis_pct = hysteresis_pct
      self.zeroReturn_pct = zeroReturn_pct
    }
  }

  /// The fitted model, generically: what reads it goes by `format`.
  public struct Model: Codable, Sendable, Equatable {
    /// "forcepanel-calibration/2": the record's TOML (docs/formats.md).
    public var format: String
    public var sha256: String
    public var bytes: [UInt8]
    public init(format: String, bytes: [UInt8]) {
      self.format = format
      self.bytes = bytes
      self.sha256 = SHA256Hex.of(bytes)
    }
    /// A stored model, with the hash it was stored with.
    public init(format: String, sha256: String, bytes: [UInt8]) {
      self.format = format
      self.sha256 = sha256
      self.bytes = bytes
    }
    /// Whether the bytes still have their hash.
    public var isIntact: Bool { SHA256Hex.of(bytes) == sha256 }

    enum CodingKeys: String, CodingKey { case format, sha256, base64 }
    // The bytes as base64 (a queue entry, an export line).
    public init(from decoder: any Decoder) throws {
      let c = try decoder.container(keyedBy: CodingKeys.self)
      format = try c.decode(String.self, forKey: .format)
      sha256 = try c.decode(String.self, forKey: .sha256)
      guard let data = Data(base64Encoded: try c.decode(String.self, forKey: .base64)) else {
        throw DecodingError.dataCorruptedError(forKey: .base64, in: c, debugDescription: "not base64")
      }
      bytes = Array(data)
    }
    public func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(format, forKey: .format)
      try c.encode(sha256, forKey: .sha256)
      try c.encode(Data(bytes).base64EncodedString(), forKey: .base64)
    }
  }

  /// The day of `startedAt` ("2026-03-14").
  public var day: String { String(startedAt.prefix(10)) }
}
