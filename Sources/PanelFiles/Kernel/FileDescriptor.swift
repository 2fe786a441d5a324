#if canImport(Glibc)
  import Glibc
#endif

/// An open file descriptor (after swift-system's `FileDescriptor`): the
/// one way the package reads, writes, and talks over sockets. Every call
/// goes through the syscall shims, so a `MockKernel` answers it in tests.
///
/// One policy for every caller:
/// - **EINTR** is retried inside each call, except by `close` (Linux has
///   closed the descriptor anyway), `connect` (the connection goes on in
///   the background: thrown as `nowInProgress`) and `Poll.wait` (nothing
///   ready: the caller looks at its stop request and deadline, then waits
///   again).
/// - **Short writes**: `write` and `send` return what the kernel took, and
///   the caller keeps the rest (a queue that must not wait); `writeAll`
///   writes everything.
/// - **EAGAIN** (`Errno.isWouldBlock`) from a non-blocking descriptor is
///   thrown, and means "nothing now": a reader tries at the next poll, a
///   queue keeps its bytes; only `writeAll` waits (poll for POLLOUT).
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
  public let rawValue: CInt
  public init(rawValue: CInt) { self.rawValue = rawValue }

  public static let standardInput = FileDescriptor(rawValue: 0)
  public static let standardOutput = FileDescriptor(rawValue: 1)
  public static let standardError = FileDescriptor(rawValue: 2)

  /// open(2), EINTR retried.
  public static func open(_ path: String, _ flags: CInt) throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try valueOrErrno { system_open(path, flags | O_CLOEXEC) }.get())
  }

  /// close(2); an error is of no use to the caller (the descriptor is gone).
  public func close() { _ = system_close(rawValue) }

  /// One read(2): the count read, 0 at the end of the file.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    return try valueOrErrno { system_read(rawValue, base, buffer.count) }.get()
  }

  /// One write(2): the count the kernel took (perhaps fewer than all).
  public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
    return try valueOrErrno { system_write(rawValue, base, bytes.count) }.get()
  }

  /// Writes all of `bytes`: short writes continued, a full non-blocking
  /// descriptor waited for (poll for POLLOUT). A write that takes nothing
  /// fails with EIO rather than spin.
  public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      do throws(Errno) {
        let n = try write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        guard n > 0 else { throw .ioError }
        offset += n
      } catch where error.isWouldBlock {
        _ = try Poll.wait(self, for: Int16(POLLOUT), timeout_ms: -1)
      }
    }
  }

  /// Sets or clears O_NONBLOCK (fcntl).
  public func setNonBlocking(_ on: Bool) throws(Errno) {
    let flags = try valueOrErrno { system_fcntl(rawValue, F_GETFL, 0) }.get()
    let wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
    if wanted != flags { _ = try valueOrErrno { system_fcntl(rawValue, F_SETFL, wanted) }.get() }
  }
}

// MARK: sockets

extension FileDescriptor {
  /// socket(2) with SOCK_CLOEXEC (`type`: SOCK_STREAM or SOCK_DGRAM, and
  /// SOCK_NONBLOCK when wanted).
  public static func socket(family: CInt, type: CInt) throws(Errno) -> FileDescriptor {
    let t = type | Int32(SOCK_CLOEXEC.rawValue)
    return FileDescriptor(rawValue: try valueOrErrno { system_socket(family, t) }.get())
  }

  /// connect(2). On a non-blocking socket an interrupted connect, like
  /// one in progress, goes on in the background: both throw `nowInProgress`.
  public func connect(_ address: UnsafePointer<sockaddr>, _ length: socklen_t) throws(Errno) {
    if case .failure(let e) = valueOrErrno(retryOnInterrupt: false, { system_connect(rawValue, address, length) }) {
      throw e == .interrupted ? .nowInProgress : e
    }
  }

  public func bind(_ address: UnsafePointer<sockaddr>, _ length: socklen_t) throws(Errno) {
    _ = try valueOrErrno { system_bind(rawValue, address, length) }.get()
  }

  public func listen(backlog: CInt) throws(Errno) {
    _ = try valueOrErrno { system_listen(rawValue, backlog) }.get()
  }

  /// accept(2), close-on-exec: the new connection.
  public func accept() throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try valueOrErrno { system_accept(rawValue) }.get())
  }

  /// One send(2) with MSG_NOSIGNAL (a closed peer is EPIPE, not SIGPIPE):
  /// the count the kernel took.
  public func send(_ bytes: UnsafeRawBufferPointer, flags: CInt = 0) throws(Errno) -> Int {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
    let f = flags | Int32(MSG_NOSIGNAL)
    return try valueOrErrno { system_send(rawValue, base, bytes.count, f) }.get()
  }

  /// One recv(2): the count received, 0 when the peer closed its end.
  public func receive(into buffer: UnsafeMutableRawBufferPointer, flags: CInt = 0) throws(Errno) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    return try valueOrErrno { system_recv(rawValue, base, buffer.count, flags) }.get()
  }

  /// setsockopt(2) of an int option; a refused option is ignored (the
  /// options set are tuning: buffer sizes, TCP_NODELAY, SO_REUSEADDR).
  public func setOption(level: CInt, _ name: CInt, _ value: CInt) {
    _ = system_setsockopt(rawValue, level, name, value)
  }

  /// The socket's pending error (getsockopt SO_ERROR): how a non-blocking
  /// connect ended; nil when it succeeded.
  public func pendingError() throws(Errno) -> Errno? {
    var code: CInt = 0
    _ = try valueOrErrno { system_getsockopt(rawValue, SOL_SOCKET, SO_ERROR, &code) }.get()
    return code == 0 ? nil : Errno(rawValue: code)
  }

  /// The address the socket is bound to (getsockname).
  public func localAddress() throws(Errno) -> sockaddr_storage {
    var storage = sockaddr_storage()
    _ = try valueOrErrno { system_getsockname(rawValue, &storage) }.get()
    return storage
  }
}

/// poll(2), through the shims.
public enum Poll {
  /// Waits until one of `fds` has an event it asks for, or `timeout_ms`
  /// passes (-1: no limit); returns how many have events (their
  /// `revents`). A signal ends the wait early with 0 (the caller looks at
  /// its stop request, then waits again).
  public static func wait(_ fds: inout [pollfd], timeout_ms: CInt) throws(Errno) -> Int {
    let count = fds.count
    let result = fds.withUnsafeMutableBufferPointer { b in
      valueOrErrno(retryOnInterrupt: false) { system_poll(b.baseAddress!, count, timeout_ms) }
    }
    switch result {
    case .success(let n): return Int(n)
    case .failure(.interrupted): return 0
    case .failure(let e): throw e
    }
  }

  /// Waits for `events` on one descriptor (without allocating): its
  /// `revents`, 0 when the time passed or a signal came.
  public static func wait(_ fd: FileDescriptor, for events: Int16, timeout_ms: CInt) throws(Errno) -> Int16 {
    var p = pollfd(fd: fd.rawValue, events: events, revents: 0)
    switch valueOrErrno(retryOnInterrupt: false, { system_poll(&p, 1, timeout_ms) }) {
    case .success(let n): return n > 0 ? p.revents : 0
    case .failure(.interrupted): return 0
    case .failure(let e): throw e
    }
  }
}
