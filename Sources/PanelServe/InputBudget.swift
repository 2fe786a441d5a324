/// What WebSocket clients may send the panel, per frame period of the
/// board, on average: a token bucket of lines and bytes holding one
/// frame's worth. A line is parsed only once paid for; a line longer than
/// a frame's bytes is let through when the bucket is full and then paid
/// off over the frames that follow. Each client has its own (`perClient`:
/// 16 lines and 2 KiB a frame), and all clients together share one more
/// (`allClients`: 16 lines and 4 KiB a frame), so that neither one client
/// nor many can spend more than a bounded share of the server's threads on
/// parsing, whatever they send (docs/serve.md, "Control lines"). Parsing
/// a `regions` line costs about a microsecond per byte on the development
/// machine: 4 KiB a frame at 320 Hz is about a sixth of one core.
package struct InputBudget: Sendable {
  package let linesPerFrame: Int64
  package let bytesPerFrame: Int64
  let period_ns: Int64
  /// The credits, in lines (bytes) x nanoseconds: a frame period adds
  /// `linesPerFrame` x `period_ns`, a line costs 1 x `period_ns`.
  var lines: Int64
  var bytes: Int64
  var at_ns: Int64

  /// One client's budget.
  package static func perClient(rate_hz: Int, now_ns: Int64) -> InputBudget {
    InputBudget(rate_hz: rate_hz, linesPerFrame: 16, bytesPerFrame: 1 << 10, now_ns: now_ns)
  }

  /// The budget all clients share.
  package static func allClients(rate_hz: Int, now_ns: Int64) -> InputBudget {
    InputBudget(rate_hz: rate_hz, linesPerFrame: 16, bytesPerFrame: 2 << 10, now_ns: now_ns)
  }

  /// A full bucket for a board running at `rate_hz`.
  package init(rate_hz: Int, linesPerFrame: Int, bytesPerFrame: Int, now_ns: Int64) {
    period_ns = 1_000_000_000 / Int64(max(1, rate_hz))
    self.linesPerFrame = Int64(max(1, linesPerFrame))
    self.bytesPerFrame = Int64(max(1, bytesPerFrame))
    lines = self.linesPerFrame * period_ns
    bytes = self.bytesPerFrame * period_ns
    at_ns = now_ns
  }

  /// How long to wait before a line of `size` bytes may be taken: 0 means
  /// it is taken now (and paid for).
  package mutating func take(size: Int, now_ns: Int64) -> Int64 {
    refill(now_ns)
    if lines >= period_ns && bytes > 0 {
      lines -= period_ns
      bytes -= Int64(size) * period_ns
      return 0
    }
    // Credit grows by perFrame units per nanosecond.
    let waitLines = lines >= period_ns ? 0 : (period_ns - lines + linesPerFrame - 1) / linesPerFrame
    let waitBytes = bytes > 0 ? 0 : (1 - bytes + bytesPerFrame - 1) / bytesPerFrame
    return max(1, waitLines, waitBytes)
  }

  mutating func refill(_ now_ns: Int64) {
    let elapsed = max(0, now_ns - at_ns)
    at_ns = now_ns
    lines = min(linesPerFrame * period_ns, lines + elapsed * linesPerFrame)
    bytes = min(bytesPerFrame * period_ns, bytes + elapsed * bytesPerFrame)
  }
}
