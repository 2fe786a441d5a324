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
      let kind: FileKind
      do throws(Errno) {
        kind = try FileSystem.status(current, followLinks: false).kind
      } catch where error == .noSuchFileOrDirectory {
        if current == path { return .file(path) }
        throw refusal(path, "is a symbolic link to nothing (\(current))")
      } catch {
        throw FilesPOSIX.failure(path, "cannot examine it", error)
      }
      switch kind {
      case .regular:
        return .file(current)
      case .symbolicLink:
        let text: String
        do throws(Errno) { text = try FileSystem.readLink(current) } catch {
          throw FilesPOSIX.failure(path, "cannot read the link", error)
        }
        if current == path, let ownLink, text == ownLink { return .file(path) }
        current = text.hasPrefix("/") ? text : FilesPOSIX.split(current).directory + "/" + text
      default:
        let what = kind.described
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
    do throws(Errno) {
      let fd = device == "/dev/stdout" ? try FileDescriptor.standardOutput.duplicate() : try FileDescriptor.open(device, O_WRONLY)
      return fd.rawValue
    } catch {
      throw FilesPOSIX.failure(device, "cannot open", error)
    }
  }

  /// Writes `bytes` into a device target.
  static func write(_ bytes: [UInt8], toDevice device: String) throws(FileError) {
    let fd = try openDevice(device)
    var failure: FileError?
    bytes.withUnsafeBytes { raw in
      do throws(FileError) { try FilesPOSIX.writeAll(fd, raw, path: device) } catch { failure = error }
    }
    FileDescriptor(rawValue: fd).close()
    if let failure { throw failure }
  }
}
