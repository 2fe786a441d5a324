// Thin shims over every kernel call the package makes, in the C convention
// (-1 and errno): files and directories (Syscalls+Files.swift), reads,
// writes, sockets and poll (Syscalls+IO.swift), the process's limits here;
// the bus and GPIO ones are PanelHardware's (Linux/Syscalls+Devices.swift)
// and use the mocking below. In debug builds a `MockKernel` running on the
// current task answers them instead, so tests see the exact arguments and
// can make any call fail. Nothing else calls these syscalls itself
// (scripts/check-kernel-calls.sh).
#if canImport(Glibc)
  import Glibc
#endif

#if ENABLE_MOCKING
  /// The mocked kernel's answer to `call`, when a test installed one (nil:
  /// no mock, or one that passes this call to the real kernel).
  @inline(__always)
  package func mocked(_ call: @autoclosure () -> KernelCall) -> KernelReply? {
    if let kernel = MockKernel.current { return kernel.answer(call()) }
    return nil
  }

  /// A mocked reply in the C convention.
  package func cResult(_ reply: KernelReply) -> CInt {
    if let e = reply.errno {
      errno = e.rawValue
      return -1
    }
    return reply.value
  }
#endif

/// Whether a `MockKernel` answers the shims on this task (always false in
/// release builds). Owners of descriptors remember it at creation, so a
/// mocked descriptor is never closed for real.
package var kernelIsMocked: Bool {
  #if ENABLE_MOCKING
    return MockKernel.current != nil
  #else
    return false
  #endif
}

package func system_open(_ path: String, _ flags: CInt, _ mode: mode_t = 0) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.open(path: path, flags: flags)) { return cResult(r) }
  #endif
  return open(path, flags, mode)
}

package func system_close(_ fd: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.close(fd: fd)) { return cResult(r) }
  #endif
  return close(fd)
}

// MARK: process limits

func system_getrlimit_nofile(_ limit: inout rlimit) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.getDescriptorLimit) {
      if r.errno == nil { limit = rlimit(rlim_cur: rlim_t(r.limit.soft), rlim_max: rlim_t(r.limit.hard)) }
      return cResult(r)
    }
  #endif
  return getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}

func system_setrlimit_nofile(_ limit: rlimit) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.setDescriptorLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))) {
      return cResult(r)
    }
  #endif
  var limit = limit
  return setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}
