// The shims of reads, writes, sockets and poll (see Syscalls.swift): what
// `FileDescriptor` and `Poll` call. Nothing else in the package calls these
// syscalls itself (scripts/check-kernel-calls.sh).
#if canImport(Glibc)
  import Glibc
#endif

func system_read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  #if ENABLE_MOCKING
    if let r = mocked(.read(fd: fd, count: count)) { return copyIn(r, buffer, count) }
  #endif
  return Glibc.read(fd, buffer, count)
}

func system_write(_ fd: CInt, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  #if ENABLE_MOCKING
    if MockKernel.current != nil,
      let r = mocked(.write(fd: fd, bytes: Array(UnsafeRawBufferPointer(start: bytes, count: count))))
    {
      return r.errno == nil ? min(Int(r.value), count) : Int(cResult(r))
    }
  #endif
  return Glibc.write(fd, bytes, count)
}

func system_fcntl(_ fd: CInt, _ command: CInt, _ argument: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.fcntl(fd: fd, command: command, argument: argument)) { return cResult(r) }
  #endif
  return fcntl(fd, command, argument)
}

func system_socket(_ family: CInt, _ type: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.socket(family: family, type: type)) { return cResult(r) }
  #endif
  return socket(family, type, 0)
}

func system_connect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.connect(fd: fd)) { return cResult(r) }
  #endif
  return connect(fd, address, length)
}

func system_bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.bind(fd: fd)) { return cResult(r) }
  #endif
  return bind(fd, address, length)
}

func system_listen(_ fd: CInt, _ backlog: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.listen(fd: fd, backlog: backlog)) { return cResult(r) }
  #endif
  return listen(fd, backlog)
}

func system_accept(_ fd: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.accept(fd: fd)) { return cResult(r) }
  #endif
  let connection = accept(fd, nil, nil)
  if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
  return connection
}

func system_send(_ fd: CInt, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: CInt) -> Int {
  #if ENABLE_MOCKING
    if MockKernel.current != nil,
      let r = mocked(.send(fd: fd, bytes: Array(UnsafeRawBufferPointer(start: bytes, count: count)), flags: flags))
    {
      return r.errno == nil ? min(Int(r.value), count) : Int(cResult(r))
    }
  #endif
  return send(fd, bytes, count, flags)
}

func system_recv(_ fd: CInt, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ flags: CInt) -> Int {
  #if ENABLE_MOCKING
    if let r = mocked(.recv(fd: fd, count: count, flags: flags)) { return copyIn(r, buffer, count) }
  #endif
  return recv(fd, buffer, count, flags)
}

func system_getsockopt(_ fd: CInt, _ level: CInt, _ name: CInt, _ value: inout CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.getsockopt(fd: fd, level: level, name: name)) {
      if r.errno == nil { value = r.value }
      return r.errno == nil ? 0 : cResult(r)
    }
  #endif
  var length = socklen_t(MemoryLayout<CInt>.size)
  return getsockopt(fd, level, name, &value, &length)
}

func system_setsockopt(_ fd: CInt, _ level: CInt, _ name: CInt, _ value: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.setsockopt(fd: fd, level: level, name: name, value: value)) { return cResult(r) }
  #endif
  var v = value
  return setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<CInt>.size))
}

func system_getsockname(_ fd: CInt, _ storage: inout sockaddr_storage) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.getsockname(fd: fd)) {
      guard r.errno == nil else { return cResult(r) }
      withUnsafeMutableBytes(of: &storage) { dst in
        for (i, b) in r.bytes.prefix(dst.count).enumerated() { dst[i] = b }
      }
      return 0
    }
  #endif
  var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
  return withUnsafeMutablePointer(to: &storage) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
}

func system_poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout_ms: CInt) -> CInt {
  #if ENABLE_MOCKING
    if MockKernel.current != nil {
      let list = UnsafeMutableBufferPointer(start: fds, count: count)
      if let r = mocked(.poll(fds: list.map(\.fd), events: list.map(\.events), timeout_ms: timeout_ms)) {
        guard r.errno == nil else { return cResult(r) }
        for i in 0..<count { fds[i].revents = i < r.revents.count ? r.revents[i] : 0 }
        return r.value
      }
    }
  #endif
  return poll(fds, nfds_t(count), timeout_ms)
}

#if ENABLE_MOCKING
  /// A mocked read: the reply's bytes into `buffer` (at most `count`).
  private func copyIn(_ r: KernelReply, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    guard r.errno == nil else { return Int(cResult(r)) }
    let n = min(count, r.bytes.count)
    for i in 0..<n { buffer.storeBytes(of: r.bytes[i], toByteOffset: i, as: UInt8.self) }
    return n
  }
#endif
