import ForceCore
import PanelFormats

/// Control lines on their way to the interaction: a line without a time is
/// due at once, one with `at SECONDS` when that much stream time has passed
/// since the first frame polled (the clock starts at the first `due` call).
/// Shared by every source of control lines (`--control`, a WebSocket
/// client); `Tag` says where a line came from, so that its outcome can be
/// told there.
public struct ControlSchedule<Tag> {
  var start_us: Int64?
  var waiting: [(at_us: Int64, command: InteractionCommand, tag: Tag)] = []

  public init() {}

  /// Lines waiting for their time.
  public var pending: Int { waiting.count }

  /// Timed lines waiting at most, whatever their source.
  public static var capacity: Int { 1024 }

  /// Adds `line`: appended to `due` when it has no time, else kept in
  /// time order (lines for the same time keep their order). False, and the
  /// line not taken, when it is timed and `capacity` lines already wait.
  @discardableResult
  public mutating func add(_ line: ControlLine, tag: Tag, due: inout [(command: InteractionCommand, tag: Tag)]) -> Bool {
    guard let at = line.at_s else {
      due.append((line.command, tag))
      return true
    }
    guard waiting.count < Self.capacity else { return false }
    let at_us = Int64(saturating: (at * 1e6).rounded())
    let index = waiting.firstIndex { $0.at_us > at_us } ?? waiting.count
    waiting.insert((at_us, line.command, tag), at: index)
    return true
  }

  /// Appends to `due` the waiting lines whose time has come at frame time
  /// `time`, in time order, at most `limit` of them (the rest wait for the
  /// next frame: a burst of lines never holds one frame up).
  public mutating func take(
    time: Time_us, into due: inout [(command: InteractionCommand, tag: Tag)], limit: Int = .max
  ) {
    let start = start_us ?? time.rawValue
    start_us = start
    let now = Saturating.subtract(time.rawValue, start)
    var taken = 0
    while taken < limit, let first = waiting.first, first.at_us <= now {
      due.append((first.command, first.tag))
      waiting.removeFirst()
      taken += 1
    }
  }
}
