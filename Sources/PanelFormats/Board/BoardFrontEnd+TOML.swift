import PanelHardware

/// The board parser's part for `[frontend]`: the only place that reads its
/// `kind` and picks the front end.
extension BoardFrontEnd {
  /// `kind = "sim"`.
  static let simulatedPanelKind = "sim"

  /// The kinds a board file may name.
  public static let kinds = [simulatedPanelKind] + DriverConfiguration.Chip.allCases.map(\.rawValue)

  /// Reads and checks a `[frontend]` table of kind `kind` for a board of
  /// `cellCount` cells sampled at `rate_hz`.
  init(table t: TOMLTable, kind: String, cellCount: Int, rate_hz: Int) throws(FileError) {
    if kind == BoardFrontEnd.simulatedPanelKind {
      self = .simulatedPanel(try SimulationParameters(table: t))
    } else if let chip = DriverConfiguration.Chip(rawValue: kind) {
      self = try DriverConfiguration.frontEnd(table: t, chip: chip, cellCount: cellCount, rate_hz: rate_hz)
    } else {
      throw t.error("kind", "unknown front end \(Quote.text(kind)) (expected one of: \(BoardFrontEnd.kinds.joined(separator: ", ")))")
    }
  }
}
