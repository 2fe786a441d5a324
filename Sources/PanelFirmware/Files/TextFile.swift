#if canImport(Glibc)
  import Glibc
#endif

/// Whole small text files (board, plan and calibration files).
public enum TextFile {
  /// The file's contents as UTF-8 text.
  public static func read(path: String) throws(FileError) -> String {
    guard let f = fopen(path, "rb") else {
      throw FileError(file: path, message: String(cString: strerror(errno)).lowercased())
    }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = fread(&chunk, 1, chunk.count, f)
      if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
      if n < chunk.count {
        if ferror(f) != 0 {
          throw FileError(file: path, message: "read failed: " + String(cString: strerror(errno)))
        }
        break
      }
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw FileError(file: path, message: "is not UTF-8 text")
    }
    return text
  }

  /// Whether `path` names an existing file.
  public static func exists(_ path: String) -> Bool {
    var s = stat()
    return stat(path, &s) == 0
  }
}
