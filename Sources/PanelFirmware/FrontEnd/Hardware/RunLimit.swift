/// When a driver front end stops delivering: after a number of frames, or
/// after a time on its clock (the simulated clock for a twin), or never.
public struct RunLimit: Sendable {
  public var frames: UInt64?
  public var duration_us: Int64?
  var start_us: Int64?
  var delivered: UInt64 = 0

  public init(options: RunOptions) {
    frames = options.frames.map { UInt64(max($0, 0)) }
    duration_us = frames == nil ? options.duration_s.flatMap { $0.isFinite ? Int64($0 * 1e6) : nil } : nil
  }

  /// Whether another frame may be delivered at `now_us`.
  public mutating func allows(now_us: Int64) -> Bool {
    if start_us == nil { start_us = now_us }
    if let frames, delivered >= frames { return false }
    if let duration_us, let start_us, now_us - start_us >= duration_us { return false }
    return true
  }

  public mutating func count() { delivered += 1 }
}
