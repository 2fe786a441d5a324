/// Finds the calibration a run uses.
public enum CalibrationLookup {
  /// The default place of a board's calibration: `../calibration/NAME.toml`
  /// beside the board file's directory.
  public static func defaultPath(for board: Board) -> String {
    Paths.directory(of: board.file) + "../calibration/\(board.name).toml"
  }

  /// Loads `explicitPath`, or the board's default calibration.
  public static func load(board: Board, explicitPath: String?) throws(FileError) -> CalibrationRecord {
    if let explicitPath {
      return try CalibrationRecord.load(path: explicitPath, board: board)
    }
    let path = defaultPath(for: board)
    guard TextFile.exists(path) else {
      throw FileError(
        file: board.file, field: "calibration",
        message: "no calibration for board \"\(board.name)\": pass --calibration FILE (looked for \(path))")
    }
    return try CalibrationRecord.load(path: path, board: board)
  }
}
