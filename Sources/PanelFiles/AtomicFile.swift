#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Replaces files so that readers see either the old or the new content, never a mix,
/// and the old file survives any failure (including a crash or power loss mid-write).
public enum AtomicFile {
  /// Writes `bytes` to a temporary file in the same directory as `path`, fsyncs
  /// it, renames it over `path` and fsyncs the directory. On failure the
  /// temporary file is removed and the previous file (if any) is untouched.
  /// Errors name `path` and the errno text. What `path` may name, and how a
  /// link or `/dev/null` is written, is `OutputFile`'s rule.
  public static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
    switch try OutputFile.target(path) {
    case .device(let device): try OutputFile.write(bytes, toDevice: device)
    case .file(let file): try replace(file, with: bytes, naming: path)
    }
  }

  /// Replaces the regular file (or new name) `file`; errors name `path`.
  static func replace(_ file: String, with bytes: [UInt8], naming path: String) throws(FileError) {
    let (directory, name) = FilesPOSIX.split(file)
    let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let temporary = "\(directory)/.\(name).tmp-\(getpid())-\(suffix)"
    let fd: FileDescriptor
    do throws(Errno) {
      fd = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
    } catch {
      throw FilesPOSIX.failure(path, "cannot create a temporary file in \(directory)", error)
    }
    var closed = false
    do throws(FileError) {
      try FilesPOSIX.writeSynced(fd.rawValue, bytes, path: path)
      closed = true
      try FilesPOSIX.closeChecked(fd.rawValue, path: path)
      try FilesPOSIX.renameChecked(temporary, to: file, naming: path)
    } catch {
      if !closed { fd.close() }
      try? FileSystem.unlink(temporary)
      throw error
    }
    try FilesPOSIX.syncDirectory(of: file)
  }

  /// Writes `text` as UTF-8; see `write(_:to:)` for the guarantees.
  public static func write(_ text: String, to path: String) throws(FileError) {
    try write(Array(text.utf8), to: path)
  }
}
