import PanelFormats

extension Scenario {
  /// The scenario as a scenario file (docs/formats.md) that loads back to
  /// the same script: every press as keyframes, so any profile round-trips.
  /// `comments` go at the top, one `#` line each.
  public func encoded(comments: [String] = []) -> String {
    var s = comments.map { "# \($0)\n" }.joined()
    s += "[scenario]\n"
    s += "name = \(quoted(name))\n"
    s += "duration_s = \(number(duration_s))\n"
    if !temperature.isEmpty { s += "temperature = \(rows(temperature.map { [$0.t, $0.value] }))\n" }
    if hasGradient {
      s += "temperature_gradient = \(rows(zip(gradientX, gradientY).map { [$0.t, $0.value, $1.value] }))\n"
    }
    for touch in touches {
      s += "\n[[touch]]\n"
      s += "start_s = \(number(touch.start_s))\n"
      let times = Set(touch.x.map(\.t) + touch.y.map(\.t)).sorted()
      if times.count == 1 {
        s += "x_mm = \(number(touch.x[0].value))\n"
        s += "y_mm = \(number(touch.y[0].value))\n"
      } else {
        let path = times.map { [$0, Keyframe.interpolate(touch.x, at: $0), Keyframe.interpolate(touch.y, at: $0)] }
        s += "path = \(rows(path))\n"
      }
      s += "force = \(rows(touch.force.map { [$0.t, $0.value] }))\n"
      if let tremor = touch.tremor {
        if tremor.force > 0 { s += "tremor = \(number(tremor.force))\n" }
        if tremor.position_mm > 0 { s += "tremor_mm = \(number(tremor.position_mm))\n" }
        s += "tremor_seed = \(tremor.seed)\n"
      }
    }
    for fault in faults {
      s += "\n[[fault]]\n"
      s += "cell = \(fault.cell)\n"
      s += "start_s = \(number(fault.start_s))\n"
      if fault.end_s.isFinite { s += "end_s = \(number(fault.end_s))\n" }
    }
    return s
  }

  func rows(_ rows: [[Double]]) -> String {
    "[" + rows.map { "[" + $0.map(number).joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
  }
}
