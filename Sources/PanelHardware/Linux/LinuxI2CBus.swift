#if canImport(Glibc)
  import Glibc
#endif
import CI2C
import PanelFiles

/// Why an I2C bus device could not be opened.
public enum I2CBusOpenError: Error, Equatable, Sendable, CustomStringConvertible {
  /// open() failed: the device does not exist, or access was denied.
  case open(path: String, Errno)
  /// ioctl(I2C_FUNCS) failed: the file is not an i2c-dev adapter.
  case notAnAdapter(path: String, Errno)
  /// ioctl(I2C_TIMEOUT) failed.
  case timeout(path: String, Errno)

  public var path: String {
    switch self {
    case .open(let p, _), .notAnAdapter(let p, _), .timeout(let p, _): return p
    }
  }

  public var description: String {
    switch self {
    case .open(let p, .noSuchFileOrDirectory):
      return "I2C bus \(p) does not exist (is the bus enabled and i2c-dev loaded?)"
    case .open(let p, .permissionDenied):
      return "I2C bus \(p): permission denied (join the i2c group or run as root)"
    case .open(let p, let e):
      return "I2C bus \(p): cannot open: \(e)"
    case .notAnAdapter(let p, let e):
      return "\(p) is not an I2C adapter (ioctl I2C_FUNCS: \(e))"
    case .timeout(let p, let e):
      return "I2C bus \(p): cannot set the adapter timeout (ioctl I2C_TIMEOUT: \(e))"
    }
  }
}

/// An I2C adapter through the Linux i2c-dev character device (`/dev/i2c-N`).
///
/// Adapters that speak plain I2C (`I2C_FUNC_I2C`) do each transfer as one
/// ioctl(I2C_RDWR): a register read is two messages with a repeated start
/// and one STOP. Adapters that only speak SMBus (i2c-stub, some SMBus host
/// controllers) get the SMBus transaction of the same shape where one
/// exists (byte, byte data, word data, I2C block of up to 32 bytes); other
/// shapes fail with `.unsupported`. Errno is mapped to `I2CError`: a NACK
/// (EREMOTEIO, ENXIO, ENODEV), a timeout (ETIMEDOUT), anything else a bus
/// error; EINTR is retried.
///
/// A class: the descriptor is shared by every driver on the bus and closed
/// when the last reference goes.
public final class LinuxI2CBus: I2CBus {
  /// The device path, `/dev/i2c-1`.
  public let path: String
  /// What the adapter can do (ioctl I2C_FUNCS at open).
  public let functionality: I2CFunctionality
  /// True: transfers go through I2C_RDWR; false: SMBus transactions.
  public let usesCombinedTransfers: Bool
  private(set) var fd: CInt
  /// The address set with I2C_SLAVE for SMBus calls.
  private var selected: UInt16?
  private let mocked: Bool

  /// i2c-dev refuses messages longer than this (I2C_RDWR).
  public static let maxMessageLength = 8192

  /// Opens `path` read-write and reads its functionality (ioctl
  /// I2C_FUNCS). With `timeout_ms`, sets the adapter's transfer timeout
  /// (ioctl I2C_TIMEOUT, in units of 10 ms, rounded up): a transfer that
  /// cannot finish (SDA held low, a slave stretching the clock forever)
  /// then fails with ETIMEDOUT within it instead of the adapter's default
  /// (one second on most). The timeout is the adapter's, so it applies to
  /// every user of the bus until changed.
  public init(path: String, timeout_ms: Int? = nil) throws(I2CBusOpenError) {
    self.path = path
    mocked = kernelIsMocked
    let fd: CInt
    switch valueOrErrno({ system_open(path, O_RDWR | O_CLOEXEC) }) {
    case .success(let opened): fd = opened
    case .failure(let e): throw .open(path: path, e)
    }
    var mask: UInt = 0
    if case .failure(let e) = valueOrErrno({ system_i2c_funcs(fd, &mask) }) {
      _ = system_close(fd)
      throw .notAnAdapter(path: path, e)
    }
    if let ms = timeout_ms {
      let tens = UInt(max(1, (ms + 9) / 10))
      if case .failure(let e) = valueOrErrno({ system_i2c_timeout(fd, tens) }) {
        _ = system_close(fd)
        throw .timeout(path: path, e)
      }
    }
    self.fd = fd
    functionality = I2CFunctionality(rawValue: mask)
    usesCombinedTransfers = functionality.contains(.i2c)
  }

  deinit { close() }

  /// Closes the descriptor (once; later transfers fail with EBADF).
  public func close() {
    guard fd >= 0 else { return }
    if !mocked || kernelIsMocked { _ = system_close(fd) }
    fd = -1
  }

  // MARK: I2CBus

  /// START, address+W, `bytes`, STOP: one I2C_RDWR message, or SMBus
  /// quick (no bytes), byte (1), byte data (2), word data (3, when there is
  /// no I2C block write) or I2C block write (2...33 bytes).
  public func write(_ bytes: UnsafeRawBufferPointer, to address: I2CAddress) throws(I2CError) {
    if usesCombinedTransfers {
      try combined(write: bytes, read: nil, address)
    } else {
      try smbusWrite(bytes, address)
    }
  }

  /// START, address+R, bytes, STOP: one I2C_RDWR message, or SMBus read
  /// byte (1 byte only).
  public func read(into buffer: UnsafeMutableRawBufferPointer, from address: I2CAddress) throws(I2CError) {
    if usesCombinedTransfers {
      try combined(write: nil, read: buffer, address)
      return
    }
    guard buffer.count == 1, functionality.contains(.smbusReadByte) else { throw .unsupported(address) }
    try select(address)
    let v = try check(valueOrErrno { system_smbus_read_byte(fd) }, address)
    buffer[0] = UInt8(truncatingIfNeeded: v)
  }

  /// A register read: START, address+W, `bytes`, repeated START,
  /// address+R, bytes, STOP. One I2C_RDWR with two messages, or SMBus read
  /// byte data / word data / I2C block read (one command byte, 1...32 bytes).
  public func writeRead(
    _ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, address: I2CAddress
  ) throws(I2CError) {
    if usesCombinedTransfers {
      try combined(write: bytes, read: buffer, address)
      return
    }
    guard bytes.count == 1, buffer.count >= 1 else { throw .unsupported(address) }
    let command = bytes[0]
    let f = functionality
    try select(address)
    if buffer.count == 1, f.contains(.smbusReadByteData) {
      let v = try check(valueOrErrno { system_smbus_read_byte_data(fd, command) }, address)
      buffer[0] = UInt8(truncatingIfNeeded: v)
    } else if buffer.count <= I2CFunctionality.smbusBlockMax, f.contains(.smbusReadI2CBlock) {
      let target = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let n = try check(valueOrErrno { system_smbus_read_i2c_block(fd, command, target, buffer.count) }, address)
      if Int(n) != buffer.count { throw .bus(address, errno: Errno.ioError.rawValue) }
    } else if buffer.count == 2, f.contains(.smbusReadWordData) {
      let v = try check(valueOrErrno { system_smbus_read_word_data(fd, command) }, address)
      buffer[0] = UInt8(truncatingIfNeeded: v)
      buffer[1] = UInt8(truncatingIfNeeded: v >> 8)
    } else {
      throw .unsupported(address)
    }
  }

  /// Whether a kernel driver has claimed `address` (ioctl I2C_SLAVE fails
  /// with EBUSY); i2cdetect prints such addresses as `UU`.
  public func claimedByDriver(_ address: I2CAddress) -> Bool {
    do throws(I2CError) {
      try select(address)
      return false
    } catch {
      return error == .claimed(address)
    }
  }

  // MARK: transfers

  private func combined(
    write: UnsafeRawBufferPointer?, read: UnsafeMutableRawBufferPointer?, _ address: I2CAddress
  ) throws(I2CError) {
    if (write?.count ?? 0) > Self.maxMessageLength || (read?.count ?? 0) > Self.maxMessageLength {
      throw .unsupported(address)
    }
    let fd = self.fd
    let expected = (write == nil ? 0 : 1) + (read == nil ? 0 : 1)
    var spare: UInt8 = 0  // the buffer of an empty message
    let result = withUnsafeMutablePointer(to: &spare) { spare in
      withUnsafeTemporaryAllocation(of: i2c_msg.self, capacity: 2) { messages in
        var n = 0
        if let write {
          let base = write.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: UInt8.self)) }
          messages[n] = i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: UInt16(write.count), buf: base ?? spare)
          n += 1
        }
        if let read {
          let base = read.baseAddress?.assumingMemoryBound(to: UInt8.self)
          messages[n] = i2c_msg(
            addr: UInt16(address.rawValue), flags: ci2c_flag_read, len: UInt16(read.count), buf: base ?? spare)
          n += 1
        }
        return valueOrErrno { system_i2c_rdwr(fd, messages.baseAddress!, n) }
      }
    }
    let done = try check(result, address)
    if Int(done) != expected { throw .bus(address, errno: Errno.ioError.rawValue) }
  }

  private func smbusWrite(_ bytes: UnsafeRawBufferPointer, _ address: I2CAddress) throws(I2CError) {
    let f = functionality
    let fd = self.fd
    let n = bytes.count
    try select(address)
    let result: Result<CInt, Errno>
    if n == 0, f.contains(.smbusQuick) {
      result = valueOrErrno { system_smbus_write_quick(fd, 0) }
    } else if n == 1, f.contains(.smbusWriteByte) {
      result = valueOrErrno { system_smbus_write_byte(fd, bytes[0]) }
    } else if n == 2, f.contains(.smbusWriteByteData) {
      result = valueOrErrno { system_smbus_write_byte_data(fd, bytes[0], bytes[1]) }
    } else if n >= 2, n <= I2CFunctionality.smbusBlockMax + 1, f.contains(.smbusWriteI2CBlock) {
      let data = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + 1
      result = valueOrErrno { system_smbus_write_i2c_block(fd, bytes[0], data, n - 1) }
    } else if n == 3, f.contains(.smbusWriteWordData) {
      result = valueOrErrno { system_smbus_write_word_data(fd, bytes[0], UInt16(bytes[1]) | UInt16(bytes[2]) << 8) }
    } else {
      throw .unsupported(address)
    }
    _ = try check(result, address)
  }

  /// ioctl(I2C_SLAVE) when the SMBus target changes. EBUSY: a kernel
  /// driver owns the address (`.claimed`).
  private func select(_ address: I2CAddress) throws(I2CError) {
    let a = UInt16(address.rawValue)
    if selected == a { return }
    let fd = self.fd
    switch valueOrErrno({ system_i2c_slave(fd, a) }) {
    case .success: selected = a
    case .failure(.resourceBusy): throw .claimed(address)
    case .failure(let e): throw I2CError(e, address: address)
    }
  }

  private func check(_ result: Result<CInt, Errno>, _ address: I2CAddress) throws(I2CError) -> CInt {
    switch result {
    case .success(let v): return v
    case .failure(let e): throw I2CError(e, address: address)
    }
  }
}

extension I2CError {
  /// The bus error an errno from i2c-dev stands for
  /// (Documentation/i2c/fault-codes.rst): EREMOTEIO, ENXIO and ENODEV (the
  /// i2c-stub's absent address) are a NACK; ETIMEDOUT a timeout; EOPNOTSUPP
  /// a transfer the adapter cannot do; anything else a bus error.
  public init(_ errno: Errno, address: I2CAddress) {
    switch errno {
    case .remoteIOError, .noSuchAddressOrDevice, .noSuchDevice: self = .nack(address)
    case .timedOut: self = .timeout(address)
    case .notSupported: self = .unsupported(address)
    default: self = .bus(address, errno: errno.rawValue)
    }
  }
}
