/// A simulated calibration fixture: the panel's physics places and lifts
/// reference masses and sets its own temperature (a climate chamber), so a
/// whole calibration procedure runs without anyone at the bench (a
/// calibration step's part is PanelFirmware's `SimulatedFixture+Calibration`).
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
}

extension SimulatedPanel {
  /// The simulated time of the next frame, seconds.
  public var time_s: Double { Double(frameIndex) / Double(board.rate_hz) }
}

extension PanelSignals {
  /// The physics' time at the latest conversion, seconds.
  public var time_s: Double { max(0, Double((last_ns ?? origin_ns) - origin_ns) / 1e9) }

  /// Drops the scripted presses and temperature: the fixture drives the panel.
  public func clearScenario() {
    physics.scenario = .idle()
  }
}
