/// Whole small text files: the one reader behind every TOML file (boards,
/// plans, scenarios, regions, sessions, calibration records), so that each
/// says the same about a missing file, a directory or bytes that are not text.
public enum TextFile {
  /// The file's contents as UTF-8 text, read through `InputFile` (a
  /// regular file of at most `limit`). Errors: `path: no such file`,
  /// `path: is a directory, not a file`, `path: is a named pipe, not a
  /// regular file`, `path: larger than 4 MiB (the limit for a TOML file)`,
  /// `path:LINE: not valid UTF-8 text` (the first bad line), or the
  /// system's reason.
  public static func read(path: String, limit: InputFile.SizeLimit = .toml) throws(FileError) -> String {
    let bytes = try InputFile.read(path, limit: limit)
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var lineNumber = 1
    for lineBytes in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      if String(validating: lineBytes, as: UTF8.self) == nil { break }
      lineNumber += 1
    }
    throw FileError(file: path, line: lineNumber, message: "not valid UTF-8 text")
  }

  /// Whether `path` names an existing file (or directory).
  public static func exists(_ path: String) -> Bool {
    FileSystem.exists(path)
  }

  /// Whether `path` names an existing directory.
  public static func isDirectory(_ path: String) -> Bool {
    (try? FileSystem.status(path).kind) == .directory
  }
}
