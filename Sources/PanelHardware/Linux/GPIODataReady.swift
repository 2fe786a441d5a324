#if canImport(Glibc)
  import Glibc
#endif
import CGPIOD
import PanelFiles

/// One GPIO line: a chip (`gpiochip0`, `/dev/gpiochip0`) and an offset.
public struct GPIOLine: Hashable, Sendable, CustomStringConvertible {
  public var chip: String
  public var offset: UInt32
  public init(chip: String, offset: UInt32) {
    self.chip = chip
    self.offset = offset
  }
  /// "gpiochip0 line 17".
  public var description: String { "\(chip) line \(offset)" }
}

/// Which edge of a data-ready line marks a new conversion.
public enum GPIOEdge: Int32, Sendable {
  /// Active-high outputs (NAU7802 with CTRL1.CRP = 0).
  case rising = 1
  /// Active-low outputs (ADS122C04 DRDY, NAU7802 with CRP = 1).
  case falling = 2
  case both = 3
}

/// The line's internal bias.
public enum GPIOBias: Int32, Sendable {
  case asIs = 0
  case disabled = 1
  /// For an open-drain data-ready output with no external pull-up.
  case pullUp = 2
  case pullDown = 3
}

/// Data-ready from GPIO lines through libgpiod (the GPIO character device;
/// v1 API on Debian 12, v2 where built against it). Each chip's data-ready
/// output is requested for edge events; `wait` returns true once every
/// line has had an edge since the previous frame, and false when the
/// timeout passes first. Edges that arrive while a frame is being read are
/// queued by the kernel, so none is lost; several queued edges on one line
/// mean conversions were missed and are counted in `missedEdges` (at most
/// `drainLimit` are read per wait, so an edge storm cannot hold the loop).
/// `isAsserted` reads the lines' levels: a line that stays asserted gives
/// no edge, and the front end then asks the chip itself.
///
/// The descriptors are waited on with ppoll; EINTR is retried with the
/// time that remains. Nothing is allocated per wait.
public final class GPIODataReady: DataReady {
  public let lines: [GPIOLine]
  public let edge: GPIOEdge
  /// Edge events read so far.
  public private(set) var edges: UInt64 = 0
  /// Edges beyond one per line per frame: conversions nobody read.
  public private(set) var missedEdges: UInt64 = 0
  /// Queued edges read at most per line and wait; more stay queued.
  public static let drainLimit = 32

  private var handles: [OpaquePointer] = []
  private var descriptors: [pollfd] = []
  private var seen: [Bool] = []
  private var mocked = false

  /// Requests every line as an input with edge events (libgpiod
  /// gpiod_line_request / gpiod_chip_request_lines). Fails naming the
  /// first line that could not be had.
  public init(
    lines: [GPIOLine], edge: GPIOEdge, bias: GPIOBias = .asIs, consumer: String = "panelctl"
  ) throws(DataReadyError) {
    self.lines = lines
    self.edge = edge
    mocked = kernelIsMocked
    for line in lines {
      guard let handle = system_gpio_request(line.chip, line.offset, edge.rawValue, bias.rawValue, consumer) else {
        let e = Errno.current
        release()
        throw .unavailable(Self.explain(line, e))
      }
      handles.append(handle)
      descriptors.append(pollfd(fd: system_gpio_event_fd(handle), events: Int16(POLLIN), revents: 0))
    }
    seen = Array(repeating: false, count: lines.count)
  }

  deinit { release() }

  /// Releases every line (once).
  public func release() {
    if !mocked || kernelIsMocked {
      for h in handles { system_gpio_release(h) }
    }
    handles.removeAll()
    descriptors.removeAll()
  }

  /// Which libgpiod API this build uses (1 or 2) and the library's version.
  public static var library: (api: Int, version: String) {
    (Int(cgpiod_api_version()), String(cString: cgpiod_library_version()))
  }

  public func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    guard !handles.isEmpty else { return false }
    let deadline = ClockDataReady.now_ns() + max(timeout_us, 0) * 1000
    while true {
      if !seen.contains(false) {
        for i in seen.indices { seen[i] = false }
        return true
      }
      let remaining = deadline - ClockDataReady.now_ns()
      let ready = try poll(timeout_ns: max(remaining, 0), onlyUnseen: true)
      if ready == 0 && remaining <= 0 { return false }
      for i in descriptors.indices where descriptors[i].revents != 0 {
        try readEvent(i)
        seen[i] = true
        try drain(i)
      }
    }
  }

  /// ppoll over the lines not yet seen (the others get fd -1, which ppoll
  /// skips); EINTR is retried by the caller's loop with the time left.
  private func poll(timeout_ns: Int64, onlyUnseen: Bool) throws(DataReadyError) -> Int {
    for i in descriptors.indices {
      descriptors[i].fd = onlyUnseen && seen[i] ? -1 : system_gpio_event_fd(handles[i])
      descriptors[i].revents = 0
    }
    let count = descriptors.count
    let result = descriptors.withUnsafeMutableBufferPointer { fds in
      valueOrErrno(retryOnInterrupt: false) { system_ppoll(fds.baseAddress!, count, timeout_ns) }
    }
    switch result {
    case .success(let n): return Int(n)
    case .failure(.interrupted): return 0
    case .failure(let e): throw .io(errno: e.rawValue)
    }
  }

  private func readEvent(_ i: Int) throws(DataReadyError) {
    var type: CInt = 0
    var timestamp: UInt64 = 0
    let handle = handles[i]
    if case .failure(let e) = valueOrErrno({ system_gpio_read_event(handle, &type, &timestamp) }) {
      throw .io(errno: e.rawValue)
    }
    edges += 1
  }

  /// Reads the edges still queued on line `i` (conversions that were
  /// missed), at most `drainLimit`: a line that toggles faster than it is
  /// read (a storm of glitches) cannot keep the loop here.
  private func drain(_ i: Int) throws(DataReadyError) {
    for _ in 0..<Self.drainLimit {
      let fd = descriptors[i].fd
      var one = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard case .success(let n) = valueOrErrno({ system_ppoll(&one, 1, 0) }), n > 0, one.revents != 0 else {
        return
      }
      try readEvent(i)
      missedEdges += 1
    }
  }

  /// Whether any line is at its active level now (high for rising edges,
  /// low for falling; nil for `.both`, which has none): one
  /// gpiod_line_get_value / gpiod_line_request_get_value per line.
  public func isAsserted() throws(DataReadyError) -> Bool? {
    let active: CInt
    switch edge {
    case .rising: active = 1
    case .falling: active = 0
    case .both: return nil
    }
    for handle in handles {
      switch valueOrErrno({ system_gpio_get_value(handle) }) {
      case .success(let level): if level == active { return true }
      case .failure(let e): throw .io(errno: e.rawValue)
      }
    }
    return false
  }

  static func explain(_ line: GPIOLine, _ e: Errno) -> String {
    switch e {
    case .noSuchFileOrDirectory: return "GPIO chip \(line.chip) does not exist (\(line))"
    case .invalidArgument: return "\(line) does not exist on that chip"
    case .resourceBusy: return "\(line) is in use by another consumer"
    case .permissionDenied: return "\(line): permission denied (join the gpio group or run as root)"
    default: return "\(line): \(e)"
    }
  }
}
