#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file calls of `AtomicFile`, `FileSet` and the recordings, over
/// `FileDescriptor` and `FileSystem` (so through the kernel shims: a
/// `MockKernel` can fail any of them in tests), turning failures into
/// `FileError`s naming the path and the errno text.
package enum FilesPOSIX {
  /// An error about `path` with the errno text appended: "cannot open: No such file or directory".
  static func failure(_ path: String, _ what: String, _ error: Errno) -> FileError {
    FileError(file: path, message: "\(what): \(error)")
  }

  /// Reads up to `count` bytes into `buffer`; 0 means end of file.
  static func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, path: String)
    throws(FileError) -> Int
  {
    do throws(Errno) {
      return try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
    } catch {
      throw failure(path, "cannot read", error)
    }
  }

  /// Writes all of `bytes` (short writes continued, EINTR retried).
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileError) {
    do throws(Errno) {
      try FileDescriptor(rawValue: fd).writeAll(bytes)
    } catch {
      throw failure(path, "cannot write", error)
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

  /// fsync, EINTR retried.
  static func sync(_ fd: Int32, path: String) throws(FileError) {
    do throws(Errno) {
      try FileDescriptor(rawValue: fd).sync()
    } catch {
      throw failure(path, "cannot fsync", error)
    }
  }

  /// Closes `fd`, reporting errors (a failed close can mean lost data on some file systems).
  static func closeChecked(_ fd: Int32, path: String) throws(FileError) {
    do throws(Errno) {
      try FileDescriptor(rawValue: fd).closeReporting()
    } catch {
      throw failure(path, "cannot close", error)
    }
  }

  /// Renames `from` over `to`; the error names `naming` (by default `to`).
  static func renameChecked(_ from: String, to: String, naming: String? = nil) throws(FileError) {
    do throws(Errno) {
      try FileSystem.rename(from, to: to)
    } catch {
      throw failure(naming ?? to, "cannot rename \(from) to it", error)
    }
  }

  /// fsyncs the directory holding `path`, so that a rename into it is durable.
  static func syncDirectory(of path: String) throws(FileError) {
    let directory = split(path).directory
    let fd: FileDescriptor
    do throws(Errno) {
      fd = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
    } catch {
      throw failure(path, "cannot open directory \(directory) to fsync it", error)
    }
    defer { fd.close() }
    do throws(Errno) {
      try fd.sync()
    } catch where error == .invalidArgument || error == .notSupported {
      // Some file systems do not support fsync on directories; that is not a failure.
    } catch {
      throw failure(path, "cannot fsync directory \(directory)", error)
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
