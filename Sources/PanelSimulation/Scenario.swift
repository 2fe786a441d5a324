/// A script for the simulated panel: presses with position paths and force
/// profiles, and the panel temperature over time (docs/formats.md).
public struct Scenario: Sendable {
  public var name: String
  public var file: String
  /// Length of the run; by default the last press's end plus half a second.
  public var duration_s: Double
  /// Panel temperature keyframes (seconds, degC), linear in between; empty
  /// = the simulator's constant temperature.
  public var temperature: [Keyframe]
  /// Temperature differences across the panel over time (seconds, degC),
  /// linear in between: left edge to right edge (`x`) and top to bottom
  /// (`y`); the panel's sensor, at its centre, reads `temperature`. Empty:
  /// the panel is at one temperature.
  public var gradientX: [Keyframe] = []
  public var gradientY: [Keyframe] = []
  public var touches: [ScriptedTouch]
  /// Cells that fail for a while.
  public var faults: [CellFault]

  public init(
    name: String, file: String = "", duration_s: Double? = nil, temperature: [Keyframe] = [],
    touches: [ScriptedTouch], faults: [CellFault] = []
  ) {
    self.name = name
    self.file = file
    self.temperature = temperature
    self.touches = touches
    self.faults = faults
    self.duration_s = duration_s ?? ((touches.map(\.end_s).max() ?? 0) + 0.5)
  }

  /// An idle panel for `duration_s` seconds.
  public static func idle(duration_s: Double = .infinity) -> Scenario {
    Scenario(name: "idle", duration_s: duration_s, touches: [])
  }

  /// Temperature at `t` seconds, or nil when the script sets none.
  public func temperature(at t: Double) -> Double? {
    temperature.isEmpty ? nil : Keyframe.interpolate(temperature, at: t)
  }

  /// Whether the script sets a temperature gradient across the panel.
  public var hasGradient: Bool { !gradientX.isEmpty }

  /// The gradient at `t`: degC from left to right and from top to bottom.
  @inline(__always)
  public func gradient(at t: Double) -> (x: Double, y: Double) {
    guard hasGradient else { return (0, 0) }
    return (Keyframe.interpolate(gradientX, at: t), Keyframe.interpolate(gradientY, at: t))
  }
}

/// A value at a time, for piecewise-linear profiles.
public struct Keyframe: Sendable, Equatable {
  public var t: Double
  public var value: Double
  public init(_ t: Double, _ value: Double) {
    self.t = t
    self.value = value
  }

  /// Linear interpolation, held constant beyond the ends.
  package static func interpolate(_ frames: [Keyframe], at t: Double) -> Double {
    guard let first = frames.first, let last = frames.last else { return 0 }
    if t <= first.t { return first.value }
    if t >= last.t { return last.value }
    var i = 1
    while frames[i].t < t { i += 1 }
    let a = frames[i - 1]
    let b = frames[i]
    let span = b.t - a.t
    return span <= 0 ? b.value : a.value + (b.value - a.value) * (t - a.t) / span
  }
}

/// One press: a force profile and a path, both relative to `start_s`.
public struct ScriptedTouch: Sendable, Equatable {
  public var start_s: Double
  /// Force in newtons over time.
  public var force: [Keyframe]
  /// Position over time (mm); one point for a still press.
  public var x: [Keyframe]
  public var y: [Keyframe]
  /// A finger's tremor on top of the profile (nil: none, as an object).
  public var tremor: Tremor?

  public init(start_s: Double, force: [Keyframe], x: [Keyframe], y: [Keyframe], tremor: Tremor? = nil) {
    self.start_s = start_s
    self.force = force
    self.x = x
    self.y = y
    self.tremor = tremor
  }

  /// A still press: rise to `force_n`, hold, fall.
  public init(
    start_s: Double, x_mm: Double, y_mm: Double, force_n: Double, hold_s: Double,
    rise_s: Double = 0.05, fall_s: Double = 0.05
  ) {
    self.init(
      start_s: start_s,
      force: ScriptedTouch.trapezoid(force_n: force_n, rise_s: rise_s, hold_s: hold_s, fall_s: fall_s),
      x: [Keyframe(0, x_mm)], y: [Keyframe(0, y_mm)])
  }

  static func trapezoid(force_n: Double, rise_s: Double, hold_s: Double, fall_s: Double) -> [Keyframe] {
    [
      Keyframe(0, 0), Keyframe(rise_s, force_n), Keyframe(rise_s + hold_s, force_n),
      Keyframe(rise_s + hold_s + fall_s, 0),
    ]
  }

  public var end_s: Double { start_s + (force.last?.t ?? 0) }

  /// Force (N) and position (mm) at absolute time `t`, or nil when not pressing.
  @inline(__always)
  public func state(at t: Double) -> (force: Double, x: Double, y: Double)? {
    let r = t - start_s
    guard r >= 0, let last = force.last, r <= last.t else { return nil }
    let f = Keyframe.interpolate(force, at: r)
    let px = Keyframe.interpolate(x, at: r)
    let py = Keyframe.interpolate(y, at: r)
    guard let tremor else { return (f, px, py) }
    return tremor.apply(force: f, x: px, y: py, at: r)
  }
}

/// A cell whose bridge opens for a while: it reads positive full scale
/// (the ADC's rail) from `start_s` until `end_s`.
public struct CellFault: Sendable, Equatable {
  public var cell: Int
  public var start_s: Double
  public var end_s: Double
  public init(cell: Int, start_s: Double, end_s: Double = .infinity) {
    self.cell = cell
    self.start_s = start_s
    self.end_s = end_s
  }

  @inline(__always)
  public func active(at t: Double) -> Bool { t >= start_s && t < end_s }
}
