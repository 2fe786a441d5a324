/// What one WebSocket client may send the panel: at most `linesPerFrame`
/// control lines and `bytesPerFrame` bytes of them per frame period of the
/// board, on average (a token bucket holding one frame's worth). A line
/// is parsed only when it is paid for; a line longer than a frame's bytes
/// is let through when the bucket is full and then paid off over the
/// frames that follow. The client's reading waits meanwhile, so a client
/// that floods lines costs the server a bounded share of its threads and
/// delays nobody else's reports (docs/serve.md, "Control lines").
package struct InputBudget: Sendable {
  package static let linesPerFrame = 16
  package static let bytesPerFrame = 8 << 10

  let period_ns: Int64
  /// The credits, in lines (bytes) x nanoseconds: a frame period adds
  /// `linesPerFrame` x `period_ns`, a line costs 1 x `period_ns`.
  var lines: Int64
  var bytes: Int64
  var at_ns: Int64

  /// A full bucket for a board running at `rate_hz`.
  package init(rate_hz: Int, now_ns: Int64) {
    period_ns = 1_000_000_000 / Int64(max(1, rate_hz))
    lines = Int64(Self.linesPerFrame) * period_ns
    bytes = Int64(Self.bytesPerFrame) * period_ns
    at_ns = now_ns
  }

  /// How long to wait before a line of `size` bytes may be taken: 0 means
  /// it is taken now (and paid for).
  package mutating func take(size: Int, now_ns: Int64) -> Int64 {
    refill(now_ns)
    let lineCost = period_ns
    let needBytes: Int64 = 1  // any credit at all
    if lines >= lineCost && bytes >= needBytes {
      lines -= lineCost
      bytes -= Int64(size) * period_ns
      return 0
    }
    // The time until both are there: credit grows by perFrame per period,
    // i.e. perFrame units per nanosecond in these units.
    let waitLines = lines >= lineCost ? 0 : (lineCost - lines + Int64(Self.linesPerFrame) - 1) / Int64(Self.linesPerFrame)
    let waitBytes = bytes >= needBytes ? 0 : (needBytes - bytes + Int64(Self.bytesPerFrame) - 1) / Int64(Self.bytesPerFrame)
    return max(1, waitLines, waitBytes)
  }

  mutating func refill(_ now_ns: Int64) {
    let elapsed = max(0, now_ns - at_ns)
    at_ns = now_ns
    lines = min(Int64(Self.linesPerFrame) * period_ns, lines + elapsed * Int64(Self.linesPerFrame))
    bytes = min(Int64(Self.bytesPerFrame) * period_ns, bytes + elapsed * Int64(Self.bytesPerFrame))
  }
}
