/// Sizes and times as a person reads them in a closing line.
enum Amounts {
  /// `812 B`, `4.2 MB`, `9.8 GB` (decimal units, two significant figures
  /// from 1 MB on).
  static func bytes(_ count: Int64) -> String {
    let units: [(Double, String)] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")]
    for (scale, unit) in units where Double(count) >= scale {
      let value = Double(count) / scale
      return (value < 10 ? "\((value * 10).rounded() / 10)" : "\(Int(value.rounded()))") + " " + unit
    }
    return "\(count) B"
  }

  /// `0.4 s`, `42 s`, `5 min 36 s`.
  static func time(_ seconds: Double) -> String {
    if seconds < 10 { return "\((seconds * 10).rounded() / 10) s" }
    let whole = Int(seconds.rounded())
    return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
  }
}
