#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Thin wrappers over POSIX file calls that turn failures into `FileError`s
/// naming the path and the errno text.
package enum FilesPOSIX {
  /// The text for an errno value, e.g. "No such file or directory".
  static func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
  }

  /// An error about `path` with the errno text appended: "cannot open: No such file or directory".
  static func failure(_ path: String, _ what: String, _ code: Int32 = errno) -> FileError {
    FileError(file: path, message: "\(what): \(errnoText(code))")
  }

  /// Reads up to `count` bytes into `buffer`; 0 means end of file.
  static func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, path: String)
    throws(FileError) -> Int
  {
    while true {
      let result = read(fd, buffer, count)
      if result >= 0 {
        return result
      }
      if errno != EINTR {
        throw failure(path, "cannot read")
      }
    }
  }

  /// Writes all of `bytes` (retrying short writes and EINTR).
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileError) {
    guard var next = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
      let written = write(fd, next, remaining)
      if written < 0 {
        if errno == EINTR {
          continue
        }
        throw failure(path, "cannot write")
      }
      next += written
      remaining -= written
    }
  }

  /// Writes all of `bytes` and fsyncs them.
  package static func writeSynced(_ fd: Int32, _ bytes: [UInt8], path: String) throws(FileError) {
    var writeError: FileError?
    bytes.withUnsafeBytes { raw in
      do throws(FileError) {
        try writeAll(fd, raw, path: path)
      } catch {
        writeError = error
      }
    }
    if let writeError { throw writeError }
    try sync(fd, path: path)
  }

  /// Renames `from` over `to` and fsyncs the directory, so that the new
  /// name survives a crash.
  package static func renameDurably(_ from: String, to: String) throws(FileError) {
    try renameChecked(from, to: to)
    try syncDirectory(of: to)
  }

  /// fsync, retrying EINTR.
  static func sync(_ fd: Int32, path: String) throws(FileError) {
    while fsync(fd) != 0 {
      if errno != EINTR {
        throw failure(path, "cannot fsync")
      }
    }
  }

  /// Closes `fd`, reporting errors (a failed close can mean lost data on some file systems).
  static func closeChecked(_ fd: Int32, path: String) throws(FileError) {
    if close(fd) != 0 && errno != EINTR {
      throw failure(path, "cannot close")
    }
  }

  /// Renames `from` over `to`; the error names `to`.
  static func renameChecked(_ from: String, to: String) throws(FileError) {
    if rename(from, to) != 0 {
      throw failure(to, "cannot rename \(from) to it")
    }
  }

  /// fsyncs the directory holding `path`, so that a rename into it is durable.
  static func syncDirectory(of path: String) throws(FileError) {
    let directory = split(path).directory
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else {
      throw failure(path, "cannot open directory \(directory) to fsync it")
    }
    defer { close(fd) }
    while fsync(fd) != 0 {
      // Some file systems do not support fsync on directories; that is not a failure.
      let code = errno
      if code == EINTR {
        continue
      }
      if code == EINVAL || code == ENOTSUP {
        return
      }
      throw failure(path, "cannot fsync directory \(directory)", code)
    }
  }

  /// `"a/b/c.toml"` -> (`"a/b"`, `"c.toml"`); `"c.toml"` -> (`"."`, `"c.toml"`).
  package static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else {
      return (".", path)
    }
    let directory = String(path[..<slash])
    let name = String(path[path.index(after: slash)...])
    return (directory.isEmpty ? "/" : directory, name)
  }
}
