/// One call into the kernel or a kernel library, as the syscall shims see
/// it: what tests read back from a `MockKernel` trace.
public enum KernelCall: Equatable, Sendable, CustomStringConvertible {
  case open(path: String, flags: Int32)
  case close(fd: Int32)
  /// ioctl(fd, I2C_FUNCS, &mask)
  case i2cFuncs(fd: Int32)
  /// ioctl(fd, I2C_SLAVE, address)
  case i2cSlave(fd: Int32, address: UInt16)
  /// ioctl(fd, I2C_TIMEOUT, tens of milliseconds)
  case i2cTimeout(fd: Int32, tensOfMilliseconds: UInt)
  /// ioctl(fd, I2C_RDWR, &{messages, count}): one combined transfer.
  case i2cRdwr(fd: Int32, messages: [I2CMessageTrace])
  /// A libi2c SMBus call (ioctl(fd, I2C_SMBUS, ...)).
  case smbus(fd: Int32, SMBusTrace)
  /// ppoll(fds, POLLIN, timeout)
  case ppoll(fds: [Int32], timeout_ns: Int64)
  /// Request a GPIO line for edge events (libgpiod).
  case gpioRequest(chip: String, offset: UInt32, edge: Int32, bias: Int32)
  /// Read one edge event from a requested line, named by its event fd.
  case gpioReadEvent(fd: Int32)
  /// Read a requested line's level, named by its event fd.
  case gpioGetValue(fd: Int32)
  case gpioRelease(fd: Int32)
  /// getrlimit(RLIMIT_NOFILE, &limit)
  case getDescriptorLimit
  /// setrlimit(RLIMIT_NOFILE, {soft, hard})
  case setDescriptorLimit(soft: UInt64, hard: UInt64)
  /// read(fd, buffer, count): the reply's bytes are what was read.
  case read(fd: Int32, count: Int)
  /// write(fd, bytes): the reply's value is how many were taken.
  case write(fd: Int32, bytes: [UInt8])
  /// fcntl(fd, command, argument)
  case fcntl(fd: Int32, command: Int32, argument: Int32)
  /// socket(family, type, 0)
  case socket(family: Int32, type: Int32)
  /// connect(fd, address): the address as `HOST:PORT` is the caller's.
  case connect(fd: Int32)
  case bind(fd: Int32)
  case listen(fd: Int32, backlog: Int32)
  /// accept(fd, NULL, NULL), then FD_CLOEXEC on the connection
  case accept(fd: Int32)
  /// send(fd, bytes, flags): the reply's value is how many were taken.
  case send(fd: Int32, bytes: [UInt8], flags: Int32)
  /// recv(fd, buffer, count, flags): the reply's bytes are what arrived.
  case recv(fd: Int32, count: Int, flags: Int32)
  /// getsockopt(fd, level, name): the reply's value is the option's.
  case getsockopt(fd: Int32, level: Int32, name: Int32)
  case setsockopt(fd: Int32, level: Int32, name: Int32, value: Int32)
  /// getsockname(fd): the reply's bytes are the `sockaddr`.
  case getsockname(fd: Int32)
  /// poll(fds with events, timeout): the reply's revents per descriptor.
  case poll(fds: [Int32], events: [Int16], timeout_ms: Int32)
  case fsync(fd: Int32)
  /// fstat(fd): the reply's `status`.
  case fstat(fd: Int32)
  /// stat(path), or lstat(path) when not following links: the reply's `status`.
  case stat(path: String, followLinks: Bool)
  /// access(path, mode)
  case access(path: String, mode: Int32)
  /// flock(fd, LOCK_EX or LOCK_SH, LOCK_NB unless waiting)
  case lock(fd: Int32, exclusive: Bool, wait: Bool)
  /// ftruncate(fd, length)
  case truncate(fd: Int32, length: Int64)
  /// lseek(fd, offset, SEEK_SET)
  case seek(fd: Int32, offset: Int64)
  /// fcntl(fd, F_DUPFD_CLOEXEC): the reply's value is the new descriptor.
  case dup(fd: Int32)
  case rename(from: String, to: String)
  case unlink(path: String)
  case mkdir(path: String)
  case rmdir(path: String)
  /// symlink(target, path)
  case symlink(target: String, path: String)
  /// linkat(source, destination, AT_SYMLINK_FOLLOW)
  case link(source: String, destination: String)
  /// readlink(path): the reply's bytes are the link's text.
  case readlink(path: String)
  /// opendir, readdir, closedir: the reply's `names`.
  case readDirectory(path: String)

  public var description: String {
    switch self {
    case .open(let p, let f): return "open(\(p), 0x\(String(f, radix: 16)))"
    case .close(let fd): return "close(\(fd))"
    case .i2cFuncs(let fd): return "ioctl(\(fd), I2C_FUNCS)"
    case .i2cSlave(let fd, let a): return "ioctl(\(fd), I2C_SLAVE, 0x\(String(a, radix: 16)))"
    case .i2cTimeout(let fd, let t): return "ioctl(\(fd), I2C_TIMEOUT, \(t))"
    case .i2cRdwr(let fd, let m): return "ioctl(\(fd), I2C_RDWR, \(m))"
    case .smbus(let fd, let s): return "smbus(\(fd), \(s))"
    case .ppoll(let fds, let t): return "ppoll(\(fds), \(t) ns)"
    case .gpioRequest(let c, let o, let e, let b): return "gpio_request(\(c), \(o), edge \(e), bias \(b))"
    case .gpioReadEvent(let fd): return "gpio_read_event(\(fd))"
    case .gpioGetValue(let fd): return "gpio_get_value(\(fd))"
    case .gpioRelease(let fd): return "gpio_release(\(fd))"
    case .getDescriptorLimit: return "getrlimit(RLIMIT_NOFILE)"
    case .setDescriptorLimit(let soft, let hard): return "setrlimit(RLIMIT_NOFILE, \(soft), \(hard))"
    case .read(let fd, let n): return "read(\(fd), \(n))"
    case .write(let fd, let b): return "write(\(fd), \(b.count) bytes)"
    case .fcntl(let fd, let c, let a): return "fcntl(\(fd), \(c), 0x\(String(a, radix: 16)))"
    case .socket(let f, let t): return "socket(\(f), 0x\(String(t, radix: 16)))"
    case .connect(let fd): return "connect(\(fd))"
    case .bind(let fd): return "bind(\(fd))"
    case .listen(let fd, let b): return "listen(\(fd), \(b))"
    case .accept(let fd): return "accept(\(fd))"
    case .send(let fd, let b, let f): return "send(\(fd), \(b.count) bytes, 0x\(String(f, radix: 16)))"
    case .recv(let fd, let n, let f): return "recv(\(fd), \(n), 0x\(String(f, radix: 16)))"
    case .getsockopt(let fd, let l, let n): return "getsockopt(\(fd), \(l), \(n))"
    case .setsockopt(let fd, let l, let n, let v): return "setsockopt(\(fd), \(l), \(n), \(v))"
    case .getsockname(let fd): return "getsockname(\(fd))"
    case .poll(let fds, let e, let t): return "poll(\(fds), \(e), \(t) ms)"
    case .fsync(let fd): return "fsync(\(fd))"
    case .fstat(let fd): return "fstat(\(fd))"
    case .stat(let p, let follow): return follow ? "stat(\(p))" : "lstat(\(p))"
    case .access(let p, let m): return "access(\(p), \(m))"
    case .lock(let fd, let x, let w): return "flock(\(fd), \(x ? "LOCK_EX" : "LOCK_SH")\(w ? "" : "|LOCK_NB"))"
    case .truncate(let fd, let n): return "ftruncate(\(fd), \(n))"
    case .seek(let fd, let n): return "lseek(\(fd), \(n))"
    case .dup(let fd): return "dup(\(fd))"
    case .rename(let f, let t): return "rename(\(f), \(t))"
    case .unlink(let p): return "unlink(\(p))"
    case .mkdir(let p): return "mkdir(\(p))"
    case .rmdir(let p): return "rmdir(\(p))"
    case .symlink(let t, let p): return "symlink(\(t), \(p))"
    case .link(let s, let d): return "link(\(s), \(d))"
    case .readlink(let p): return "readlink(\(p))"
    case .readDirectory(let p): return "readdir(\(p))"
    }
  }
}

/// One `struct i2c_msg` of an I2C_RDWR call.
public struct I2CMessageTrace: Equatable, Sendable, CustomStringConvertible {
  public var address: UInt16
  /// I2C_M_RD set.
  public var read: Bool
  public var length: Int
  /// The bytes written (empty for a read).
  public var bytes: [UInt8]

  public init(address: UInt16, read: Bool, length: Int, bytes: [UInt8] = []) {
    self.address = address
    self.read = read
    self.length = length
    self.bytes = bytes
  }

  /// A write message carrying `bytes`.
  public static func write(_ address: UInt16, _ bytes: [UInt8]) -> I2CMessageTrace {
    I2CMessageTrace(address: address, read: false, length: bytes.count, bytes: bytes)
  }

  /// A read message of `length` bytes.
  public static func read(_ address: UInt16, _ length: Int) -> I2CMessageTrace {
    I2CMessageTrace(address: address, read: true, length: length)
  }

  public var description: String {
    let a = "0x" + String(address, radix: 16)
    if read { return "r\(length)@\(a)" }
    return "w\(length)@\(a)" + bytes.map { " " + String($0, radix: 16) }.joined()
  }
}

/// A libi2c SMBus call, by transaction type.
public enum SMBusTrace: Equatable, Sendable {
  case writeQuick(UInt8)
  case readByte
  case writeByte(UInt8)
  case readByteData(command: UInt8)
  case writeByteData(command: UInt8, value: UInt8)
  case readWordData(command: UInt8)
  case writeWordData(command: UInt8, value: UInt16)
  case readI2CBlockData(command: UInt8, length: Int)
  case writeI2CBlockData(command: UInt8, bytes: [UInt8])
}
