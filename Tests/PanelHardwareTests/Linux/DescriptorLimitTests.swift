import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import PanelFiles

/// RLIMIT_NOFILE through the syscall shims: the soft limit raised to the
/// hard one, the hard one left alone, failures typed.
@Suite struct DescriptorLimitTests {
  #if ENABLE_MOCKING
    @Test func theSoftLimitIsRaisedToTheHardOne() throws {
      let kernel = MockKernel { call in
        if case .getDescriptorLimit = call { return .limit(soft: 1024, hard: 4096) }
        return .ok
      }
      let limit = try kernel.run { () throws(Errno) in try DescriptorLimit.raiseSoftToHard() }
      #expect(limit == DescriptorLimit(soft: 4096, hard: 4096))
      #expect(kernel.trace == [.getDescriptorLimit, .setDescriptorLimit(soft: 4096, hard: 4096)])
    }

    @Test func anInfiniteHardLimitIsKeptAndTheSoftOneTakesTheKernelsMost() throws {
      let kernel = MockKernel { call in
        if case .getDescriptorLimit = call { return .limit(soft: 1024, hard: UInt64.max) }
        return .ok
      }
      let limit = try kernel.run { () throws(Errno) in try DescriptorLimit.raiseSoftToHard() }
      #expect(limit.soft == DescriptorLimit.kernelMaximum)
      #expect(kernel.trace.last == .setDescriptorLimit(soft: UInt64(DescriptorLimit.kernelMaximum), hard: UInt64.max))
    }

    @Test func aLimitAlreadyAtTheHardOneIsLeftAlone() throws {
      let kernel = MockKernel { call in
        if case .getDescriptorLimit = call { return .limit(soft: 1024, hard: 1024) }
        return .ok
      }
      let limit = try kernel.run { () throws(Errno) in try DescriptorLimit.raiseSoftToHard() }
      #expect(limit == DescriptorLimit(soft: 1024, hard: 1024))
      #expect(kernel.trace == [.getDescriptorLimit])
    }

    @Test func aRefusedRaiseIsATypedError() {
      let kernel = MockKernel { call in
        if case .getDescriptorLimit = call { return .limit(soft: 256, hard: 512) }
        return .ok
      }
      kernel.fail(.permissionDenied) { if case .setDescriptorLimit = $0 { return true } else { return false } }
      #expect(throws: Errno.permissionDenied) {
        try kernel.run { () throws(Errno) in try DescriptorLimit.raiseSoftToHard() }
      }
    }
  #endif

  /// The real kernel: after the raise the soft limit is the hard one.
  @Test func theRealLimitIsRaised() throws {
    let limit = try DescriptorLimit.raiseSoftToHard()
    let now = try DescriptorLimit.current()
    #expect(now == limit)
    #expect(now.soft == now.hard)
  }
}
