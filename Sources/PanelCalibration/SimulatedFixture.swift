import PanelSimulation

/// A simulated calibration fixture: the panel's physics places and lifts
/// reference masses and sets its own temperature (a climate chamber), so a
/// whole calibration procedure runs without anyone at the bench.
///
/// A placed mass is a press that ramps up over `rise_s` and stays until it is
/// lifted; changes take effect from simulated time `t` on.
extension PanelPhysics {
  /// Lowers a load of `force_n` newtons onto the panel at (`x_mm`, `y_mm`).
  public mutating func placeLoad(force_n: Double, x_mm: Double, y_mm: Double, at t: Double, rise_s: Double = 0.2) {
    scenario.touches.removeAll { $0.end_s < t }
    scenario.touches.append(
      ScriptedTouch(
        start_s: t, force: [Keyframe(0, 0), Keyframe(rise_s, force_n), Keyframe(.greatestFiniteMagnitude, force_n)],
        x: [Keyframe(0, x_mm)], y: [Keyframe(0, y_mm)]))
  }

  /// Lifts every load on the panel (each ramps down over `fall_s`).
  public mutating func liftLoads(at t: Double, fall_s: Double = 0.2) {
    var lifted: [ScriptedTouch] = []
    for touch in scenario.touches {
      guard let s = touch.state(at: t), s.force > 0 else { continue }
      lifted.append(
        ScriptedTouch(
          start_s: t, force: [Keyframe(0, s.force), Keyframe(fall_s, 0)], x: [Keyframe(0, s.x)],
          y: [Keyframe(0, s.y)]))
    }
    scenario.touches = lifted
  }

  /// Sets the panel temperature from `t` on (held until changed).
  public mutating func setTemperature(_ celsius: Double, at t: Double) {
    scenario.temperature = [Keyframe(t, celsius)]
  }

  /// Makes the panel ready for a calibration step at `t`: the chamber at the
  /// step's temperature, the previous masses lifted, the step's mass lowered.
  public mutating func apply(_ step: CalibrationStep, at t: Double, rise_s: Double) {
    if let c = step.temp_c { setTemperature(c, at: t) }
    liftLoads(at: t, fall_s: rise_s)
    if step.isLoaded { placeLoad(force_n: step.force_n, x_mm: step.x_mm, y_mm: step.y_mm, at: t, rise_s: rise_s) }
  }
}

extension SimulatedPanel {
  /// The simulated time of the next frame, seconds.
  public var time_s: Double { Double(frameIndex) / Double(board.rate_hz) }

  /// Applies a calibration step from the next frame on (see `PanelPhysics.apply`).
  public mutating func apply(_ step: CalibrationStep, rise_s: Double) {
    physics.apply(step, at: time_s, rise_s: rise_s)
  }
}

extension PanelSignals {
  /// The physics' time at the latest conversion, seconds.
  public var time_s: Double { max(0, Double((last_ns ?? origin_ns) - origin_ns) / 1e9) }

  /// Applies a calibration step from now on (a simulated twin's fixture).
  public func apply(_ step: CalibrationStep, rise_s: Double) {
    physics.apply(step, at: time_s, rise_s: rise_s)
  }

  /// Drops the scripted presses and temperature: the fixture drives the panel.
  public func clearScenario() {
    physics.scenario = .idle()
  }
}
