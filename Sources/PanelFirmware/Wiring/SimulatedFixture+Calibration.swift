import PanelCalibration
import PanelSimulation

/// The simulated fixture (PanelSimulation's `SimulatedFixture.swift`) driven
/// by a calibration plan's steps.
extension PanelPhysics {
  /// Makes the panel ready for a calibration step at `t`: the chamber at the
  /// step's temperature, the previous masses lifted, the step's mass lowered.
  public mutating func apply(_ step: CalibrationStep, at t: Double, rise_s: Double) {
    if let c = step.temp_c { setTemperature(c, at: t) }
    liftLoads(at: t, fall_s: rise_s)
    if step.isLoaded { placeLoad(force_n: step.force_n, x_mm: step.x_mm, y_mm: step.y_mm, at: t, rise_s: rise_s) }
  }
}

extension SimulatedPanel {
  /// Applies a calibration step from the next frame on (see `PanelPhysics.apply`).
  public mutating func apply(_ step: CalibrationStep, rise_s: Double) {
    physics.apply(step, at: time_s, rise_s: rise_s)
  }
}

extension PanelSignals {
  /// Applies a calibration step from now on (a simulated twin's fixture).
  public func apply(_ step: CalibrationStep, rise_s: Double) {
    physics.apply(step, at: time_s, rise_s: rise_s)
  }
}
