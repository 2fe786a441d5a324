import PanelCalibration
import PanelFormats

/// Finds the calibration a run uses: the panel's own copy first (what its
/// EEPROM holds), the file second. A record is refused, saying which, when
/// its CRC, its board (name or cell count) or its serial does not match.
public enum CalibrationLookup {
  /// The default place of a board's calibration: `../calibration/NAME.toml`
  /// beside the board file's directory.
  public static func defaultPath(for board: Board) -> String {
    Paths.directory(of: board.file) + "../calibration/\(board.name).toml"
  }

  /// A calibration, where it came from, and what was passed over on the way.
  public struct Found: Sendable {
    public var record: CalibrationRecord
    /// "panel (copy 1)" or the file's path.
    public var origin: String
    /// Copies or files that were refused ("panel copy 2: CRC mismatch ...").
    public var notes: [String]
  }

  /// The serial number the panel reports, when it has one without its
  /// calibration: a simulated panel's own.
  public static func panelSerial(_ board: Board) -> String? {
    guard case .simulatedPanel(let parameters) = board.frontEnd else { return nil }
    return parameters.serial
  }

  /// The calibration for a run on `board`:
  /// 1. an explicit file (`--calibration`), when given: it wins over the
  ///    panel's own record (a factory or a test overriding it);
  /// 2. otherwise the newest valid copy on the panel (`panel`: what its
  ///    EEPROM holds), when there is one;
  /// 3. otherwise the fallback file (`--fallback-calibration`: what a
  ///    deployed service names), or the board's default file.
  /// A file must match the board and the panel's serial (from its valid copy,
  /// or a simulated panel's own).
  public static func find(
    board: Board, explicitPath: String?, fallbackPath: String? = nil, panel: PanelReadout? = nil
  ) throws(FileError) -> Found {
    var notes = (panel?.problems ?? []).map { "panel " + $0 }
    let serial = panel?.record?.serial ?? panelSerial(board)
    if explicitPath == nil, let p = panel, let record = p.record {
      // The file is not needed; say so if it is for another panel.
      let path = fallbackPath ?? defaultPath(for: board)
      if TextFile.exists(path) {
        do {
          _ = try loadFile(path, board: board, serial: serial)
        } catch {
          notes.append("not using \(error.description)")
        }
      }
      return Found(record: record, origin: "panel (copy \(p.copy ?? 0))", notes: notes)
    }
    let path: String
    if let explicitPath {
      path = explicitPath
    } else {
      path = fallbackPath ?? defaultPath(for: board)
      guard TextFile.exists(path) else {
        let why = panel.map { $0.problems.isEmpty ? " (the panel holds none)" : " (the panel's copies: \($0.problems.joined(separator: "; ")))" } ?? ""
        throw FileError(
          file: board.file, field: "calibration",
          message:
            "no calibration for board \(Quote.text(board.name))\(why): pass --calibration FILE, or --uncalibrated to run on nominal gains for bring-up (looked for \(path))")
      }
    }
    return Found(record: try loadFile(path, board: board, serial: serial), origin: path, notes: notes)
  }

  /// The calibration for replaying a raw recording of `board`: the explicit
  /// file, else the board's default file, checked against the board but
  /// not against a serial — a recording names no panel (docs/formats.md),
  /// and no panel is attached to read one from. Where the record's serial
  /// is not the board's own (a simulated panel's configured one), a note
  /// says whose calibration is used.
  public static func forRecording(board: Board, explicitPath: String?) throws(FileError) -> Found {
    let path = explicitPath ?? defaultPath(for: board)
    if explicitPath == nil && !TextFile.exists(path) {
      throw FileError(
        file: board.file, field: "calibration",
        message: "no calibration for board \(Quote.text(board.name)): pass --calibration FILE (looked for \(path))")
    }
    let record = try loadFile(path, board: board, serial: nil)
    var notes: [String] = []
    if record.serial != panelSerial(board) {
      notes.append(
        "\(path): using the calibration of panel \(Quote.text(record.serial)) (a recording names no panel)")
    }
    return Found(record: record, origin: path, notes: notes)
  }

  /// A calibration file checked against the board and the panel's serial.
  static func loadFile(_ path: String, board: Board, serial: String?) throws(FileError) -> CalibrationRecord {
    let record = try CalibrationRecord.load(path: path, board: board)
    if let serial, record.serial != serial {
      throw FileError(
        file: path, field: "serial",
        message: "calibration is for panel \(Quote.text(record.serial)), this panel is \(Quote.text(serial))")
    }
    return record
  }

  /// The calibration for a run on `board` (see `find`), reading the panel's
  /// EEPROM first where a real board has one. (A bus that cannot be opened
  /// is left to the front end to report.)
  public static func load(board: Board, explicitPath: String?, fallbackPath: String? = nil) throws(FileError)
    -> CalibrationRecord
  {
    var readout: PanelReadout?
    if var memory = (try? PanelMemory.open(board: board)) ?? nil {
      readout = memory.read(board: board)
    }
    return try find(board: board, explicitPath: explicitPath, fallbackPath: fallbackPath, panel: readout).record
  }
}
