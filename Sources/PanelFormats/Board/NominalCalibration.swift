/// Running without a valid calibration: every cell at the front end's
/// nominal gain, zero offset (the baselines find the zero), no linearity or
/// temperature terms. Touches and positions work roughly; force does not
/// count as available, so the touch-and-hold fallback takes over.
extension CalibrationRecord {
  /// The `source` of a nominal record.
  public static let nominalSource = "nominal"

  /// Whether this record is nominal rather than a calibration.
  public var isNominal: Bool { source == CalibrationRecord.nominalSource }

  /// A nominal record for `board` at `gain_counts_per_n` for every cell.
  public static func nominal(board: Board, gain_counts_per_n: Double) -> CalibrationRecord {
    let cell = CellParameters(
      offset_counts: 0, gain_counts_per_n: gain_counts_per_n, linearity_per_n: 0, tcZero_counts_per_c: 0,
      tcSpan_per_c: 0)
    return CalibrationRecord(
      board: board.name, serial: "", created: "", source: nominalSource, referenceTemperature_c: 25,
      cells: Array(repeating: cell, count: board.cellCount))
  }
}
