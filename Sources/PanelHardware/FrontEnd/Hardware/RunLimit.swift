import ForceCore

/// When a driver front end stops delivering: after a number of frames, or
/// after a time on its clock (the simulated clock for a twin), or never.
/// The end is decided as a frame is delivered, so that frame is known to
/// be the last (`reached`) and the scan loop can close the touches in it.
public struct RunLimit: Sendable {
  public var frames: UInt64?
  public var duration_us: Int64?
  var start_us: Int64?
  var delivered: UInt64 = 0
  /// The frame last delivered was the last one.
  public private(set) var reached = false

  public init(options: RunOptions) {
    frames = options.frames.map { UInt64(max($0, 0)) }
    duration_us = frames == nil ? options.duration_s.flatMap { $0.isFinite ? Int64($0 * 1e6) : nil } : nil
    reached = frames == 0
  }

  /// Whether another frame may be delivered; starts the clock of a
  /// duration at the first call.
  public mutating func allows(now_us: Int64) -> Bool {
    if start_us == nil { start_us = now_us }
    return !reached
  }

  /// Counts a frame delivered at `now_us`: it is the last when the frame
  /// count is reached or the next frame, `period_us` later, would be past
  /// the duration.
  public mutating func count(now_us: Int64, period_us: Int64) {
    delivered += 1
    if let frames, delivered >= frames { reached = true }
    if let duration_us, let start_us,
      Saturating.add(Saturating.subtract(now_us, start_us), period_us) > duration_us
    {
      reached = true
    }
  }
}
