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

  /// A passing calibration's files, in the order of `calibration(record:)`'s names.
  public func contents(of result: CalibrationResult) -> [String: [UInt8]] {
    [
      names[0]: Array(result.record.encoded().utf8),
      names[1]: Array(Certificate.html(result).utf8),
      names[2]: Array(Certificate.json(result).utf8),
    ]
  }
}
