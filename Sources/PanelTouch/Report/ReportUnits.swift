import ForceCore

/// The units every output reports in (NDJSON, uinput, the monitor):
/// positions in hundredths of a millimetre and forces in millinewtons, each
/// rounded to nearest, written here once so that the outputs agree.
public enum ReportUnits {
  /// A length in 0.01 mm (NDJSON `x_mm` x 100, uinput positions).
  @inline(__always)
  public static func hundredths_mm(_ l: Length_um) -> Int64 { (Int64(l.rawValue) + 5) / 10 }

  /// A force in mN (NDJSON `force_n` x 1000, uinput pressure).
  @inline(__always)
  public static func millinewtons(_ f: Force_mN) -> Int64 { Saturating.multiplyShift(Int64(f.rawValue), 1, 10) }
}

extension Saturating {
  /// `value` rounded to nearest and clamped to `Int64` (NaN is 0): setup
  /// conversions of a board's settings that must not trap, whatever the
  /// settings (loading bounds them; this holds without that).
  public static func int64(rounding value: Double) -> Int64 {
    if value.isNaN { return 0 }
    // 2^63 is exact in Double; everything below it converts.
    if value >= 9_223_372_036_854_775_808.0 { return Int64.max }
    if value <= -9_223_372_036_854_775_808.0 { return Int64.min }
    return Int64(value.rounded())
  }

  /// `value` rounded to nearest and clamped to `Int32` (NaN is 0).
  public static func int32(rounding value: Double) -> Int32 { int32(int64(rounding: value)) }
}
