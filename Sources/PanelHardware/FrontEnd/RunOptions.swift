import ForceCore

/// What a run asks of the front end beyond the board file.
public struct RunOptions: Sendable {
  /// A scenario file for a simulated panel (overrides the board's default).
  public var scenarioPath: String?
  /// Simulated time per real time: 1 = real time, 0 = as fast as possible.
  public var speed: Double
  /// How long to run, in seconds (nil: the scenario's length, or forever).
  public var duration_s: Double?
  /// How many frames to deliver (nil: no limit). Driver front ends stop on
  /// it, since their frame rate is what the chips and the bus make it.
  public var frames: Int?

  public init(scenarioPath: String? = nil, speed: Double = 1, duration_s: Double? = nil, frames: Int? = nil) {
    self.scenarioPath = scenarioPath
    self.speed = speed
    self.duration_s = duration_s
    self.frames = frames
  }
}
