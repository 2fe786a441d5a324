import PanelFormats

/// Where a calibration's record and certificates live, committed together
/// (`FileSet`): `CAL` (`calibration/BOARD.toml`), `STEM.certificate.html`
/// and `STEM.certificate.json` (STEM: CAL without `.toml`), with their runs
/// in `STEM.runs/`.
extension FileSet {
  /// The set of the record at `path` and its certificates.
  public static func calibration(record path: String) -> FileSet {
    let (directory, name) = FilesPOSIX.split(path)
    let stem = name.hasSuffix(".toml") ? String(name.dropLast(5)) : name
    return FileSet(
      directory: directory, names: [name, stem + ".certificate.html", stem + ".certificate.json"],
      runsName: stem + ".runs")
  }

  /// Where a calibration record named `path` goes, by `OutputFile`'s rule
  /// (checked before any work): the name's own link into its runs is the
  /// set, any other link is followed to the record it names (whose set
  /// is then beside it), and the names of its certificates are checked
  /// too. `/dev/null` and `/dev/stdout` take the record alone.
  public static func calibrationOutput(_ path: String) throws(FileError) -> OutputTarget {
    let own = calibration(record: path)
    let target = try OutputFile.target(path, ownLink: own.linkTarget(own.names[0]))
    if case .file(let file) = target { try calibration(record: file).checkNames() }
    return target
  }

  /// A passing calibration's files, in the order of `calibration(record:)`'s names.
  public func contents(of result: CalibrationResult) -> [String: [UInt8]] {
    [
      names[0]: Array(result.record.encoded().utf8),
      names[1]: Array(Certificate.html(result).utf8),
      names[2]: Array(Certificate.json(result).utf8),
    ]
  }
}
