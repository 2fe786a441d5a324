#if canImport(Glibc)
  import Glibc
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`). The
/// soft limit is what makes `open`, `accept` and `socket` fail with EMFILE;
/// any process may raise it up to the hard limit. A service starts with
/// 1 024 soft (for the sake of old `select()` users) and a far higher hard
/// limit, so a server raises its soft limit first, then keeps its own use
/// below it.
public struct DescriptorLimit: Sendable, Equatable, CustomStringConvertible {
  public var soft: Int
  public var hard: Int

  public init(soft: Int, hard: Int) {
    self.soft = soft
    self.hard = hard
  }

  /// The most descriptors Linux gives one process (`fs.nr_open`'s
  /// default): a hard limit of `RLIM_INFINITY` is taken as this.
  public static let kernelMaximum = 1 << 20

  /// The limits now: getrlimit(RLIMIT_NOFILE).
  public static func current() throws(Errno) -> DescriptorLimit {
    var limit = rlimit()
    _ = try valueOrErrno { system_getrlimit_nofile(&limit) }.get()
    return DescriptorLimit(soft: Self.clamped(limit.rlim_cur), hard: Self.clamped(limit.rlim_max))
  }

  /// Raises the soft limit to the hard one (setrlimit(RLIMIT_NOFILE)),
  /// at most `kernelMaximum`; returns the limits in force after.
  @discardableResult
  public static func raiseSoftToHard() throws(Errno) -> DescriptorLimit {
    var limit = rlimit()
    _ = try valueOrErrno { system_getrlimit_nofile(&limit) }.get()
    let now = DescriptorLimit(soft: Self.clamped(limit.rlim_cur), hard: Self.clamped(limit.rlim_max))
    guard now.soft < now.hard else { return now }
    // The hard limit stays as it was (lowering it could not be undone).
    _ = try valueOrErrno { system_setrlimit_nofile(rlimit(rlim_cur: rlim_t(now.hard), rlim_max: limit.rlim_max)) }.get()
    return DescriptorLimit(soft: now.hard, hard: now.hard)
  }

  static func clamped(_ value: rlim_t) -> Int {
    value > rlim_t(kernelMaximum) ? kernelMaximum : Int(value)
  }

  public var description: String { "\(soft) (hard \(hard))" }
}
