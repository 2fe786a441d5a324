import PanelFirmware

/// What a calibration run knows beyond its result: where and by whom it ran,
/// when, and where its files went.
public struct RunContext: Sendable {
  public var id: String
  public var station: String
  public var fixture: String?
  public var operatorID: String?
  public var lot: String?
  public var firmware: String
  public var startedAt: String
  public var endedAt: String
  /// The record a pass commits (nil on a fail).
  public var recordPath: String?
  /// The certificate's HTML.
  public var certificatePath: String

  public init(
    id: String = RowID.make(), station: String, fixture: String? = nil, operatorID: String? = nil,
    lot: String? = nil, firmware: String, startedAt: String, endedAt: String = FactoryTime.now(),
    recordPath: String?, certificatePath: String
  ) {
    self.id = id
    self.station = station
    self.fixture = fixture
    self.operatorID = operatorID
    self.lot = lot
    self.firmware = firmware
    self.startedAt = startedAt
    self.endedAt = endedAt
    self.recordPath = recordPath
    self.certificatePath = certificatePath
  }
}

extension CalibrationRow {
  /// The model format of a calibration record's TOML (docs/formats.md).
  public static var recordFormat: String { "\(CalibrationRecord.format)/\(CalibrationRecord.version)" }

  /// The row of a computed calibration. `recordText` and `certificateJSON`
  /// are the bytes the run commits (their hashes tie the row to the files).
  public init(result r: CalibrationResult, context c: RunContext, recordText: String, certificateJSON: String) {
    self.init(id: c.id)
    serial = r.record.serial
    board = r.board.name
    plan = r.session.planName
    planSHA256 = Self.planHash(r.session)
    station = c.station
    fixture = c.fixture
    operatorID = c.operatorID
    lot = c.lot
    firmware = c.firmware
    startedAt = c.startedAt
    endedAt = c.endedAt
    tempLow_c = r.temperatures.low
    tempHigh_c = r.temperatures.high
    result = r.passed ? "pass" : "fail"
    failure = r.checks.first { !$0.passed }?.name
    residual_pct = r.record.fit?.residual_pct ?? 0
    let (results, method) = r.accuracy
    accuracyMethod = method.name
    let accuracy = AccuracySummary(results, floor_n: r.session.limits.forceFloor_n)
    accuracyForce_pct = accuracy.worstForce_pct
    accuracyPosition_mm = accuracy.positionRMS_mm
    creep_pct = r.creep?.extrapolated_pct
    recordPath = r.passed ? c.recordPath : nil
    recordSHA256 = r.passed ? SHA256Hex.of(recordText) : nil
    certificatePath = c.certificatePath
    self.certificateJSON = certificateJSON
    checks = r.checks.map {
      Check(name: $0.name, subject: $0.subject, value: $0.value, limit: $0.limit, unit: $0.unit, passed: $0.passed)
    }
    cells = r.cells.map { report in
      let p = report.index < r.record.cells.count ? r.record.cells[report.index] : CellParameters(offset_counts: 0, gain_counts_per_n: 0)
      return Cell(
        index: report.index, offset_counts: p.offset_counts, sensitivity_counts_per_n: p.gain_counts_per_n,
        nonlinearity_pct: report.nonlinearity_pct, tcZero_counts_per_c: p.tcZero_counts_per_c,
        tcSpan_per_c: p.tcSpan_per_c, noise_counts: report.noise_counts, noise_n: report.noise_n,
        hysteresis_pct: report.hysteresis_pct, zeroReturn_pct: report.zeroReturn_pct)
    }
    model = Model(format: Self.recordFormat, bytes: Array(recordText.utf8))
  }

  /// The SHA-256 of a plan's content: its name, limits and steps as a
  /// session records them, without the panel's serial and the date.
  public static func planHash(_ session: CalibrationSession) -> String {
    var s = session
    s.serial = ""
    s.date = ""
    return SHA256Hex.of(s.encodedPlan())
  }
}
