#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where an output named on a command line (or derived from one) goes.
public enum OutputTarget: Equatable, Sendable {
  /// A regular file, replaced atomically: the name itself (new or a
  /// regular file), or the regular file its symbolic links lead to (the
  /// links are kept).
  case file(String)
  /// A device named explicitly (`OutputFile.devices`): written to, never
  /// replaced.
  case device(String)
}

/// The one rule for every output of every command (`record --out`,
/// `stream --record`, `calibrate --out`, `sim truth --out`, ...): a name
/// that does not exist yet or is a regular file is replaced atomically; a
/// symbolic link to a regular file is followed, so the file it names is
/// replaced and the link kept; `/dev/null` and `/dev/stdout`, named as such,
/// are written to; anything else that exists (a device, a named pipe, a
/// socket, a directory, a link to one of them or to nothing) is refused
/// with one line before any work. `AtomicFile`, `RecordingWriter` and
/// `FileSet` all go through `target(_:)`, and commands call it up front.
public enum OutputFile {
  /// The devices an output may name, written to as they are.
  public static let devices = ["/dev/null", "/dev/stdout"]

  /// Where `path` goes, or why it cannot (an error naming `path`). A link
  /// whose text is `ownLink` is not followed: it is the name's own (a
  /// calibration's set links its record into its runs).
  public static func target(_ path: String, ownLink: String? = nil) throws(FileError) -> OutputTarget {
    if devices.contains(path) { return .device(path) }
    var current = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0 else {
        let code = errno
        if code == ENOENT && current == path { return .file(path) }
        if code == ENOENT { throw refusal(path, "is a symbolic link to nothing (\(current))") }
        throw FilesPOSIX.failure(path, "cannot examine it", code)
      }
      let type = info.st_mode & S_IFMT
      switch type {
      case S_IFREG:
        return .file(current)
      case S_IFLNK:
        guard let text = FileSet.readLink(current) else { throw FilesPOSIX.failure(path, "cannot read the link") }
        if current == path, let ownLink, text == ownLink { return .file(path) }
        current = text.hasPrefix("/") ? text : FilesPOSIX.split(current).directory + "/" + text
      default:
        let what = type == S_IFDIR ? "a directory" : InputFile.describe(type)
        throw refusal(path, current == path ? "is \(what)" : "leads to \(what) (\(current))")
      }
    }
    throw refusal(path, "has too many levels of symbolic links")
  }

  static func refusal(_ path: String, _ what: String) -> FileError {
    FileError(
      file: path,
      message: "\(what): an output must be a new name, a regular file or a link to one (or /dev/null, /dev/stdout); nothing was written")
  }

  /// Opens a device target for writing: standard output's own descriptor
  /// (a duplicate), or the device itself.
  static func openDevice(_ device: String) throws(FileError) -> Int32 {
    let fd = device == "/dev/stdout" ? dup(1) : open(device, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FilesPOSIX.failure(device, "cannot open") }
    return fd
  }

  /// Writes `bytes` into a device target.
  static func write(_ bytes: [UInt8], toDevice device: String) throws(FileError) {
    let fd = try openDevice(device)
    var failure: FileError?
    bytes.withUnsafeBytes { raw in
      do throws(FileError) { try FilesPOSIX.writeAll(fd, raw, path: device) } catch { failure = error }
    }
    close(fd)
    if let failure { throw failure }
  }
}
