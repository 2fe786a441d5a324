// Thin shims over the kernel calls of the bus and GPIO (i2c-dev ioctls
// through CI2C, libi2c's SMBus calls, libgpiod through CGPIOD), in the C
// convention (-1 and errno; NULL and errno), beside the shims of files,
// sockets and poll in PanelFiles (Kernel/Syscalls*.swift). In debug builds
// a `MockKernel` running on the current task answers them instead, so
// tests see the exact arguments and can make any call fail.
#if canImport(Glibc)
  import Glibc
#endif
import CGPIOD
import CI2C
import PanelFiles

/// libi2c returns a negative errno; turn it into -1 and errno.
@inline(__always)
private func fromNegativeErrno(_ value: Int32) -> CInt {
  if value < 0 {
    errno = -value
    return -1
  }
  return value
}

func system_i2c_funcs(_ fd: CInt, _ mask: inout UInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.i2cFuncs(fd: fd)) {
      if r.errno == nil { mask = r.functionality }
      return cResult(r)
    }
  #endif
  return ci2c_funcs(fd, &mask)
}

func system_i2c_slave(_ fd: CInt, _ address: UInt16) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.i2cSlave(fd: fd, address: address)) { return cResult(r) }
  #endif
  return ci2c_set_address(fd, address)
}

func system_i2c_timeout(_ fd: CInt, _ tensOfMilliseconds: UInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.i2cTimeout(fd: fd, tensOfMilliseconds: tensOfMilliseconds)) { return cResult(r) }
  #endif
  return ci2c_set_timeout(fd, tensOfMilliseconds)
}

func system_i2c_rdwr(_ fd: CInt, _ messages: UnsafeMutablePointer<i2c_msg>, _ count: Int) -> CInt {
  #if ENABLE_MOCKING
    if MockKernel.current != nil {
      let m = UnsafeMutableBufferPointer(start: messages, count: count)
      let traces = m.map { msg -> I2CMessageTrace in
        let read = msg.flags & ci2c_flag_read != 0
        let bytes = read ? [] : Array(UnsafeBufferPointer(start: msg.buf, count: Int(msg.len)))
        return I2CMessageTrace(address: msg.addr, read: read, length: Int(msg.len), bytes: bytes)
      }
      if let r = mocked(.i2cRdwr(fd: fd, messages: traces)) {
        if r.errno == nil {
          var source = r.bytes[...]
          for msg in m where msg.flags & ci2c_flag_read != 0 {
            for i in 0..<Int(msg.len) where !source.isEmpty { msg.buf[i] = source.removeFirst() }
          }
          return CInt(count)
        }
        return cResult(r)
      }
    }
  #endif
  return ci2c_rdwr(fd, messages, UInt32(count))
}

// MARK: SMBus (libi2c; each is one ioctl(fd, I2C_SMBUS, ...))

func system_smbus_write_quick(_ fd: CInt, _ bit: UInt8) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .writeQuick(bit))) { return cResult(r) }
  #endif
  return fromNegativeErrno(i2c_smbus_write_quick(fd, bit))
}

func system_smbus_read_byte(_ fd: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .readByte)) { return r.errno == nil ? CInt(r.bytes.first ?? 0) : cResult(r) }
  #endif
  return fromNegativeErrno(i2c_smbus_read_byte(fd))
}

func system_smbus_write_byte(_ fd: CInt, _ value: UInt8) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .writeByte(value))) { return cResult(r) }
  #endif
  return fromNegativeErrno(i2c_smbus_write_byte(fd, value))
}

func system_smbus_read_byte_data(_ fd: CInt, _ command: UInt8) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .readByteData(command: command))) {
      return r.errno == nil ? CInt(r.bytes.first ?? 0) : cResult(r)
    }
  #endif
  return fromNegativeErrno(i2c_smbus_read_byte_data(fd, command))
}

func system_smbus_write_byte_data(_ fd: CInt, _ command: UInt8, _ value: UInt8) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .writeByteData(command: command, value: value))) { return cResult(r) }
  #endif
  return fromNegativeErrno(i2c_smbus_write_byte_data(fd, command, value))
}

/// The word as the bus carries it: the first byte is the low byte.
func system_smbus_read_word_data(_ fd: CInt, _ command: UInt8) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .readWordData(command: command))) {
      guard r.errno == nil else { return cResult(r) }
      let b = r.bytes + [0, 0]
      return CInt(b[0]) | CInt(b[1]) << 8
    }
  #endif
  return fromNegativeErrno(i2c_smbus_read_word_data(fd, command))
}

func system_smbus_write_word_data(_ fd: CInt, _ command: UInt8, _ value: UInt16) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .writeWordData(command: command, value: value))) { return cResult(r) }
  #endif
  return fromNegativeErrno(i2c_smbus_write_word_data(fd, command, value))
}

/// Reads up to 32 bytes starting at `command`; returns the count read.
func system_smbus_read_i2c_block(
  _ fd: CInt, _ command: UInt8, _ buffer: UnsafeMutablePointer<UInt8>, _ length: Int
) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.smbus(fd: fd, .readI2CBlockData(command: command, length: length))) {
      guard r.errno == nil else { return cResult(r) }
      let n = min(length, r.bytes.count)
      for i in 0..<n { buffer[i] = r.bytes[i] }
      return CInt(n)
    }
  #endif
  return fromNegativeErrno(i2c_smbus_read_i2c_block_data(fd, command, UInt8(length), buffer))
}

func system_smbus_write_i2c_block(
  _ fd: CInt, _ command: UInt8, _ bytes: UnsafePointer<UInt8>, _ length: Int
) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(
      .smbus(fd: fd, .writeI2CBlockData(command: command, bytes: Array(UnsafeBufferPointer(start: bytes, count: length)))))
    {
      return cResult(r)
    }
  #endif
  return fromNegativeErrno(i2c_smbus_write_i2c_block_data(fd, command, UInt8(length), bytes))
}

// MARK: waiting

/// ppoll for POLLIN on `fds`, at most `timeout_ns`.
func system_ppoll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout_ns: Int64) -> CInt {
  #if ENABLE_MOCKING
    if MockKernel.current != nil {
      let list = (0..<count).map { fds[$0].fd }
      if let r = mocked(.ppoll(fds: list, timeout_ns: timeout_ns)) {
        guard r.errno == nil else { return cResult(r) }
        for i in 0..<count { fds[i].revents = i < r.revents.count ? r.revents[i] : 0 }
        return r.value
      }
    }
  #endif
  return cgpiod_ppoll(fds, UInt(count), timeout_ns)
}

// MARK: GPIO (libgpiod, through CGPIOD)

#if ENABLE_MOCKING
  /// Mocked lines are fake handles that encode their event descriptor.
  private let mockLineBase = 0x10_0000
#endif

func system_gpio_request(
  _ chip: String, _ offset: UInt32, _ edge: CInt, _ bias: CInt, _ consumer: String
) -> OpaquePointer? {
  #if ENABLE_MOCKING
    if let r = mocked(.gpioRequest(chip: chip, offset: offset, edge: edge, bias: bias)) {
      if let e = r.errno {
        errno = e.rawValue
        return nil
      }
      return OpaquePointer(bitPattern: mockLineBase + Int(r.value))
    }
  #endif
  return cgpiod_request_events(chip, offset, edge, bias, consumer)
}

func system_gpio_event_fd(_ line: OpaquePointer) -> CInt {
  #if ENABLE_MOCKING
    if MockKernel.current != nil { return CInt(Int(bitPattern: UnsafeRawPointer(line)) - mockLineBase) }
  #endif
  return cgpiod_event_fd(line)
}

func system_gpio_read_event(_ line: OpaquePointer, _ type: inout CInt, _ timestamp_ns: inout UInt64) -> CInt {
  #if ENABLE_MOCKING
    if MockKernel.current != nil, let r = mocked(.gpioReadEvent(fd: system_gpio_event_fd(line))) {
      guard r.errno == nil else { return cResult(r) }
      type = r.event.type
      timestamp_ns = r.event.timestamp_ns
      return 0
    }
  #endif
  return cgpiod_read_event(line, &type, &timestamp_ns)
}

/// The line's level: 1 high, 0 low, -1 with errno.
func system_gpio_get_value(_ line: OpaquePointer) -> CInt {
  #if ENABLE_MOCKING
    if MockKernel.current != nil, let r = mocked(.gpioGetValue(fd: system_gpio_event_fd(line))) { return cResult(r) }
  #endif
  return cgpiod_get_value(line)
}

func system_gpio_release(_ line: OpaquePointer) {
  #if ENABLE_MOCKING
    if MockKernel.current != nil {
      _ = mocked(.gpioRelease(fd: system_gpio_event_fd(line)))
      return
    }
  #endif
  cgpiod_release(line)
}
