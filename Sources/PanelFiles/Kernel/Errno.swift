#if canImport(Glibc)
  import Glibc
#endif

/// An error number from the kernel, typed (after swift-system's `Errno`):
/// named statics for the codes the bus and GPIO code tell apart, `strerror`
/// text for messages, and pattern matching in `catch`.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: CInt
  public init(rawValue: CInt) { self.rawValue = rawValue }

  /// The calling thread's `errno` now.
  public static var current: Errno { Errno(rawValue: errno) }

  /// EINTR: a signal arrived before the call completed; the call is retried.
  public static let interrupted = Errno(rawValue: EINTR)
  /// ENOENT: no such file (a bus or GPIO chip device that does not exist).
  public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
  /// EACCES: permission denied (not in the `i2c` or `gpio` group).
  public static let permissionDenied = Errno(rawValue: EACCES)
  /// EBADF: not an open file descriptor.
  public static let badFileDescriptor = Errno(rawValue: EBADF)
  /// EBUSY: an address claimed by a kernel driver (I2C_SLAVE), a line
  /// requested by another consumer, or a bus busy too long.
  public static let resourceBusy = Errno(rawValue: EBUSY)
  /// ENOTTY: the ioctl does not apply (the file is not an i2c-dev node).
  public static let inappropriateIOCTLForDevice = Errno(rawValue: ENOTTY)
  /// EINVAL: a bad argument (a message too long, a line offset out of range).
  public static let invalidArgument = Errno(rawValue: EINVAL)
  /// EIO: a generic transfer failure; some adapters report a data NACK so.
  public static let ioError = Errno(rawValue: EIO)
  /// ENXIO: the address was not acknowledged (SMBus adapters, bit-banged I2C).
  public static let noSuchAddressOrDevice = Errno(rawValue: ENXIO)
  /// ENODEV: no device (i2c-stub's answer for an address it does not emulate).
  public static let noSuchDevice = Errno(rawValue: ENODEV)
  /// EREMOTEIO: the target did not acknowledge (bcm2835, DesignWare and most
  /// I2C adapters report a NACK so).
  public static let remoteIOError = Errno(rawValue: EREMOTEIO)
  /// ETIMEDOUT: the transfer did not finish in time (a chip stretching SCL).
  public static let timedOut = Errno(rawValue: ETIMEDOUT)
  /// EOPNOTSUPP: the adapter cannot do this transfer (i2c-stub and I2C_RDWR).
  public static let notSupported = Errno(rawValue: EOPNOTSUPP)
  /// EAGAIN: arbitration lost on a multi-master bus, or nothing to read yet.
  public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
  /// EPROTO: the target broke the protocol (an SMBus block length over 32).
  public static let protocolError = Errno(rawValue: EPROTO)
  /// EINPROGRESS: a non-blocking connect goes on in the background.
  public static let nowInProgress = Errno(rawValue: EINPROGRESS)
  /// EPIPE: the reader of a pipe or the peer of a socket went away.
  public static let brokenPipe = Errno(rawValue: EPIPE)
  /// ECONNRESET: the peer closed the connection.
  public static let connectionReset = Errno(rawValue: ECONNRESET)
  /// ECONNREFUSED: nothing listens there.
  public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
  /// ENOSPC: the file system is full (a write or an fsync).
  public static let noSpace = Errno(rawValue: ENOSPC)
  /// EEXIST: the name exists already (mkdir, an exclusive create).
  public static let fileExists = Errno(rawValue: EEXIST)
  /// ENOBUFS: the kernel has no buffer for the datagram now.
  public static let noBufferSpace = Errno(rawValue: ENOBUFS)

  /// Whether a non-blocking call had nothing to do now (EAGAIN, EWOULDBLOCK).
  public var isWouldBlock: Bool { rawValue == EAGAIN || rawValue == EWOULDBLOCK }

  /// `strerror` text ("No such file or directory").
  public var description: String {
    guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
    return String(cString: text)
  }

  public static func ~= (pattern: Errno, error: any Error) -> Bool {
    (error as? Errno) == pattern
  }
}

/// Calls `body` until it does not fail with EINTR (when `retryOnInterrupt`),
/// turning the C convention (-1 and `errno`) into a typed result.
@inline(__always)
package func valueOrErrno<T: FixedWidthInteger>(
  retryOnInterrupt: Bool = true, _ body: () -> T
) -> Result<T, Errno> {
  while true {
    let value = body()
    if value != -1 { return .success(value) }
    let e = Errno.current
    if retryOnInterrupt && e == .interrupted { continue }
    return .failure(e)
  }
}
