#if canImport(Glibc)
  import Glibc
#endif

/// What a name or a descriptor is (the `S_IFMT` bits of `st_mode`).
public enum FileKind: Sendable, Equatable {
  case regular, directory, symbolicLink, characterDevice, blockDevice, namedPipe, socket, other

  init(mode: mode_t) {
    switch mode & S_IFMT {
    case S_IFREG: self = .regular
    case S_IFDIR: self = .directory
    case S_IFLNK: self = .symbolicLink
    case S_IFCHR: self = .characterDevice
    case S_IFBLK: self = .blockDevice
    case S_IFIFO: self = .namedPipe
    case S_IFSOCK: self = .socket
    default: self = .other
    }
  }

  /// The `S_IFMT` bits (what a mocked stat answers).
  var modeBits: mode_t {
    switch self {
    case .regular: S_IFREG
    case .directory: S_IFDIR
    case .symbolicLink: S_IFLNK
    case .characterDevice: S_IFCHR
    case .blockDevice: S_IFBLK
    case .namedPipe: S_IFIFO
    case .socket: S_IFSOCK
    case .other: 0
    }
  }

  /// "a character device", "a named pipe" (for messages).
  public var described: String {
    switch self {
    case .regular: "a regular file"
    case .directory: "a directory"
    case .symbolicLink: "a symbolic link"
    case .characterDevice: "a character device"
    case .blockDevice: "a block device"
    case .namedPipe: "a named pipe"
    case .socket: "a socket"
    case .other: "a special file"
    }
  }
}

/// The part of stat(2) the package reads: what a file is, its size, and
/// which file it is (device and inode: the same file under two names).
public struct FileStatus: Sendable, Equatable {
  public var kind: FileKind
  public var size: Int
  public var device: UInt64
  public var inode: UInt64

  public init(kind: FileKind, size: Int = 0, device: UInt64 = 0, inode: UInt64 = 0) {
    self.kind = kind
    self.size = size
    self.device = device
    self.inode = inode
  }

  init(_ info: stat) {
    self.init(
      kind: FileKind(mode: info.st_mode), size: Int(info.st_size), device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  /// Whether both name the same file.
  public func isSameFile(as other: FileStatus) -> Bool { device == other.device && inode == other.inode }
}

/// Calls on names in the file system, through the shims (so a
/// `MockKernel` answers them in tests); EINTR is retried.
package enum FileSystem {
  /// stat(2), or lstat(2) when `followLinks` is false.
  package static func status(_ path: String, followLinks: Bool = true) throws(Errno) -> FileStatus {
    var info = stat()
    _ = try valueOrErrno { system_stat(path, followLinks: followLinks, &info) }.get()
    return FileStatus(info)
  }

  /// Whether `path` names anything (a link to nothing counts when
  /// `followLinks` is false).
  package static func exists(_ path: String, followLinks: Bool = true) -> Bool {
    (try? status(path, followLinks: followLinks)) != nil
  }

  /// access(2): whether this process may use `path` so (`mode`: R_OK,
  /// W_OK, X_OK or'ed).
  package static func checkAccess(_ path: String, _ mode: CInt) throws(Errno) {
    _ = try valueOrErrno { system_access(path, mode) }.get()
  }

  /// rename(2): `from` replaces `to` in one step.
  package static func rename(_ from: String, to: String) throws(Errno) {
    _ = try valueOrErrno { system_rename(from, to) }.get()
  }

  /// unlink(2).
  package static func unlink(_ path: String) throws(Errno) {
    _ = try valueOrErrno { system_unlink(path) }.get()
  }

  /// mkdir(2).
  package static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(Errno) {
    _ = try valueOrErrno { system_mkdir(path, mode) }.get()
  }

  /// rmdir(2).
  package static func removeDirectory(_ path: String) throws(Errno) {
    _ = try valueOrErrno { system_rmdir(path) }.get()
  }

  /// symlink(2): a link at `path` whose text is `target`.
  package static func symbolicLink(_ target: String, at path: String) throws(Errno) {
    _ = try valueOrErrno { system_symlink(target, path) }.get()
  }

  /// linkat(2) following links: `destination` names the file `source` names.
  package static func hardLink(_ source: String, at destination: String) throws(Errno) {
    _ = try valueOrErrno { system_link(source, destination) }.get()
  }

  /// readlink(2): a link's text.
  package static func readLink(_ path: String) throws(Errno) -> String {
    var buffer = [CChar](repeating: 0, count: 4097)
    let n = try valueOrErrno { system_readlink(path, &buffer, 4096) }.get()
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The names in a directory but `.` and `..` (opendir, readdir).
  package static func entries(of directory: String) throws(Errno) -> [String] {
    while true {
      if let names = system_directory_entries(directory) { return names }
      let e = Errno.current
      if e != .interrupted { throw e }
    }
  }
}

extension FileDescriptor {
  /// open(2) with a creation mode, close-on-exec, EINTR retried.
  package static func open(_ path: String, _ flags: CInt, mode: mode_t) throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try valueOrErrno { system_open(path, flags | O_CLOEXEC, mode) }.get())
  }

  /// close(2), reporting a failure (a failed close can mean lost data on
  /// some file systems). EINTR is not a failure: Linux has closed it.
  package func closeReporting() throws(Errno) {
    if system_close(rawValue) != 0 {
      let e = Errno.current
      if e != .interrupted { throw e }
    }
  }

  /// fsync(2): the file's data and size on the disk.
  package func sync() throws(Errno) {
    _ = try valueOrErrno { system_fsync(rawValue) }.get()
  }

  /// fstat(2).
  package func status() throws(Errno) -> FileStatus {
    var info = stat()
    _ = try valueOrErrno { system_fstat(rawValue, &info) }.get()
    return FileStatus(info)
  }

  /// flock(2) LOCK_EX: waits for the lock, or (`wait` false) throws
  /// `resourceTemporarilyUnavailable` (EWOULDBLOCK) when another holds it.
  package func lockExclusive(wait: Bool = true) throws(Errno) {
    _ = try valueOrErrno { system_flock(rawValue, exclusive: true, wait: wait) }.get()
  }

  /// ftruncate(2).
  package func truncate(to length: Int) throws(Errno) {
    _ = try valueOrErrno { system_ftruncate(rawValue, Int64(length)) }.get()
  }

  /// lseek(2) to `offset` from the start.
  package func seek(to offset: Int) throws(Errno) {
    _ = try valueOrErrno { system_lseek(rawValue, Int64(offset)) }.get()
  }

  /// A second descriptor of the same open file (F_DUPFD_CLOEXEC).
  package func duplicate() throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try valueOrErrno { system_dup(rawValue) }.get())
  }
}
