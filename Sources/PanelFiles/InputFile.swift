#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the firmware opens every file it is told to read (a command-line
/// argument, a file named inside a file, a control line): `open()` never
/// blocks (`O_NONBLOCK`, so a named pipe without a writer cannot hold the
/// process), what is not a regular file is refused (a named pipe only
/// where a stream of lines is meant), and a file read whole is capped.
///
/// Every refusal is one line naming the file: `x.toml: is a character
/// device, not a regular file`, `x.toml: larger than 4 MiB (the limit for a
/// TOML file)`.
public enum InputFile {
  /// What a path may name.
  public enum Accepts: Sendable {
    /// A regular file (or a link to one).
    case regularFile
    /// A regular file or a named pipe (control lines).
    case regularFileOrPipe
  }

  /// The most a file read whole may hold, with the name of its kind for
  /// the error.
  public struct SizeLimit: Sendable {
    public var bytes: Int
    /// "a TOML file", "a regions file".
    public var kind: String

    public init(bytes: Int, kind: String) {
      self.bytes = bytes
      self.kind = kind
    }

    /// Board, scenario, plan, session plan and calibration files: 4 MiB.
    public static let toml = SizeLimit(bytes: 4 << 20, kind: "a TOML file")
    /// Regions files (also loaded by a control line while the panel runs): 256 KiB.
    public static let regions = SizeLimit(bytes: 256 << 10, kind: "a regions file")

    /// `4 MiB`, `256 KiB`, `100 bytes`.
    public var shown: String {
      if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
      if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
      return "\(bytes) bytes"
    }
  }

  /// Opens `path` for reading without blocking in `open()`, and checks
  /// what it names. The descriptor of a regular file blocks as usual; a
  /// named pipe's stays non-blocking.
  public static func open(_ path: String, accepting accepts: Accepts = .regularFile) throws(FileError) -> Int32 {
    let fd: FileDescriptor
    do throws(Errno) {
      fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
    } catch where error == .noSuchFileOrDirectory {
      throw FileError(file: path, message: "no such file")
    } catch {
      throw FilesPOSIX.failure(path, "cannot open", error)
    }
    let kind: FileKind
    do throws(Errno) {
      kind = try fd.status().kind
    } catch {
      fd.close()
      throw FilesPOSIX.failure(path, "cannot stat", error)
    }
    switch kind {
    case .regular:
      try? fd.setNonBlocking(false)
      return fd.rawValue
    case .namedPipe where accepts == .regularFileOrPipe:
      return fd.rawValue
    default:
      fd.close()
      if kind == .directory { throw FileError(file: path, message: "is a directory, not a file") }
      let wanted = accepts == .regularFile ? "a regular file" : "a regular file or a named pipe"
      throw FileError(file: path, message: "is \(kind.described), not \(wanted)")
    }
  }

  /// The whole content of the regular file at `path`, at most `limit`
  /// bytes (checked against its size first, and again while reading: a
  /// file that grows, or a `/proc` file that says 0, is still capped).
  public static func read(_ path: String, limit: SizeLimit) throws(FileError) -> [UInt8] {
    let fd = try open(path)
    defer { FileDescriptor(rawValue: fd).close() }
    let tooLarge = FileError(file: path, message: "larger than \(limit.shown) (the limit for \(limit.kind))")
    let size = (try? FileDescriptor(rawValue: fd).status().size) ?? 0
    if size > limit.bytes { throw tooLarge }
    var result: [UInt8] = []
    result.reserveCapacity(max(0, min(size, limit.bytes)))
    let chunkSize = 64 * 1024
    let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkSize)
    defer { chunk.deallocate() }
    while true {
      let n = try FilesPOSIX.readSome(fd, chunk, min(chunkSize, limit.bytes + 1 - result.count), path: path)
      if n == 0 { return result }
      result.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
      if result.count > limit.bytes { throw tooLarge }
    }
  }
}
