#if ENABLE_MOCKING
  /// A stand-in for the kernel in tests (debug builds only; the release build
  /// has no trace of it). While `run` executes its body on the current task,
  /// every syscall shim records a `KernelCall` in `trace` and returns what
  /// `respond` answers, or an injected failure, instead of calling the
  /// kernel. After swift-system's `MockingDriver`.
  public final class MockKernel: @unchecked Sendable {
    /// The calls made so far, in order.
    public private(set) var trace: [KernelCall] = []
    /// Answers every call that no injected failure took.
    public var respond: (KernelCall) -> KernelReply
    /// Set (`passingThrough`): answers a call, or leaves it to the real
    /// kernel (nil) — injected failures on real files and sockets.
    var pass: ((KernelCall) -> KernelReply?)?

    struct Failure {
      var errno: Errno
      var remaining: Int
      var matches: (KernelCall) -> Bool
    }
    var failures: [Failure] = []

    @TaskLocal package static var current: MockKernel?

    /// A kernel that answers `respond` (by default: every call succeeds).
    public init(respond: @escaping (KernelCall) -> KernelReply = { _ in .ok }) {
      self.respond = respond
    }

    /// Makes the next `times` calls that `matches` fail with `errno`.
    public func fail(
      _ errno: Errno, times: Int = 1, when matches: @escaping (KernelCall) -> Bool = { _ in true }
    ) {
      failures.append(Failure(errno: errno, remaining: times, matches: matches))
    }

    /// A kernel that records every call and passes each to the real
    /// kernel, but for the injected failures and what `answer` answers
    /// (nil: the real call).
    public static func passingThrough(
      answer: @escaping (KernelCall) -> KernelReply? = { _ in nil }
    ) -> MockKernel {
      let kernel = MockKernel()
      kernel.pass = answer
      return kernel
    }

    /// Runs `body` with this kernel answering the shims of the current task.
    public func run<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
      let result: Result<R, E> = Self.$current.withValue(self) {
        do throws(E) { return .success(try body()) } catch { return .failure(error) }
      }
      return try result.get()
    }

    /// Forgets the trace so far.
    public func clearTrace() { trace.removeAll() }

    package func answer(_ call: KernelCall) -> KernelReply? {
      trace.append(call)
      if let i = failures.firstIndex(where: { $0.remaining > 0 && $0.matches(call) }) {
        failures[i].remaining -= 1
        return .failure(failures[i].errno)
      }
      if let pass { return pass(call) }
      return respond(call)
    }
  }

  /// What the mock kernel answers one call.
  public struct KernelReply: Sendable {
    /// Set: the call fails with this errno.
    public var errno: Errno?
    /// The call's return value on success (a descriptor, a count, a byte).
    public var value: Int32 = 0
    /// Bytes for the call's read buffers, in message order.
    public var bytes: [UInt8] = []
    /// I2C_FUNCS: the functionality mask.
    public var functionality: UInt = 0
    /// ppoll: the returned events per descriptor (0 = not ready).
    public var revents: [Int16] = []
    /// A GPIO edge event: type (1 rising, 2 falling) and time.
    public var event: (type: Int32, timestamp_ns: UInt64) = (0, 0)
    /// getrlimit: the soft and hard limits.
    public var limit: (soft: UInt64, hard: UInt64) = (0, 0)
    /// stat, lstat, fstat: what the name is and its size.
    public var status = FileStatus(kind: .regular)
    /// Reading a directory: the names in it.
    public var names: [String] = []

    public init() {}

    public static let ok = KernelReply()
    public static func failure(_ e: Errno) -> KernelReply {
      var r = KernelReply()
      r.errno = e
      return r
    }
    public static func value(_ v: Int32) -> KernelReply {
      var r = KernelReply()
      r.value = v
      return r
    }
    public static func bytes(_ b: [UInt8]) -> KernelReply {
      var r = KernelReply()
      r.bytes = b
      r.value = Int32(b.count)
      return r
    }
    public static func functionality(_ mask: UInt) -> KernelReply {
      var r = KernelReply()
      r.functionality = mask
      return r
    }
    public static func ready(_ revents: [Int16]) -> KernelReply {
      var r = KernelReply()
      r.revents = revents
      r.value = Int32(revents.filter { $0 != 0 }.count)
      return r
    }
    public static func limit(soft: UInt64, hard: UInt64) -> KernelReply {
      var r = KernelReply()
      r.limit = (soft, hard)
      return r
    }
    public static func status(_ s: FileStatus) -> KernelReply {
      var r = KernelReply()
      r.status = s
      return r
    }
    public static func names(_ n: [String]) -> KernelReply {
      var r = KernelReply()
      r.names = n
      return r
    }
    public static func event(type: Int32, timestamp_ns: UInt64) -> KernelReply {
      var r = KernelReply()
      r.event = (type, timestamp_ns)
      return r
    }
  }
#endif
