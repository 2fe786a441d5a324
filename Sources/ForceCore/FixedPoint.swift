// Fixed-point formats of the signal path. Every quantity has one type whose
// name carries its unit and whose documentation names its Q format
// (Qm.n: m integer bits including sign, n fraction bits). Arithmetic
// saturates at the type's rails instead of wrapping or trapping.

/// Saturating integer helpers shared by the formats below.
public enum Saturating {
  /// `value` clamped to `Int32`.
  @inline(__always)
  public static func int32(_ value: Int64) -> Int32 {
    if value > Int64(Int32.max) { return Int32.max }
    if value < Int64(Int32.min) { return Int32.min }
    return Int32(truncatingIfNeeded: value)
  }

  /// `a + b` clamped to `Int64`.
  @inline(__always)
  public static func add(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    if !overflow { return sum }
    return b > 0 ? Int64.max : Int64.min
  }

  /// `a - b` clamped to `Int64`.
  @inline(__always)
  public static func subtract(_ a: Int64, _ b: Int64) -> Int64 {
    let (difference, overflow) = a.subtractingReportingOverflow(b)
    if !overflow { return difference }
    return b < 0 ? Int64.max : Int64.min
  }

  /// `a * b` clamped to `Int64`.
  @inline(__always)
  public static func multiply(_ a: Int64, _ b: Int64) -> Int64 {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    if !overflow { return product }
    return (a < 0) == (b < 0) ? Int64.max : Int64.min
  }

  /// `(a * b) >> shift`, rounded to nearest (ties toward +infinity),
  /// computed on the full 128-bit product and clamped to `Int64`.
  /// `shift` is 1...126.
  @inline(__always)
  public static func multiplyShift(_ a: Int64, _ b: Int64, _ shift: Int) -> Int64 {
    #if _pointerBitWidth(_32)
      // A 32-bit factor: two 32 x 32-bit products (Arithmetic32.swift);
      // otherwise the full product (on a 32-bit target, checking a 64-bit
      // product for overflow costs as much as computing it wide).
      if shift >= 33 && shift <= 62 {
        if let a32 = Saturating.narrow(a) { return multiplyShift(narrow: a32, b, shift) }
        if let b32 = Saturating.narrow(b) { return multiplyShift(narrow: b32, a, shift) }
      } else if shift >= 2 && shift <= 32 {
        if let a32 = Saturating.narrow(a), let r = multiplyShift(narrow: a32, b, smallShift: shift) { return r }
        if let b32 = Saturating.narrow(b), let r = multiplyShift(narrow: b32, a, smallShift: shift) { return r }
      }
    #else
      // Fast path: the product fits 64 bits (small deltas, untouched cells).
      let (narrow, overflow) = a.multipliedReportingOverflow(by: b)
      if !overflow && shift <= 62 { return roundingShift(narrow, shift) }
    #endif
    let product = wideMultiply(a, b)
    var high = product.high
    var low = product.low
    // Add half an LSB of the result to the 128-bit product.
    if shift <= 64 {
      let (l, carry) = low.addingReportingOverflow(UInt64(1) << UInt64(shift - 1))
      low = l
      high = high &+ (carry ? 1 : 0)
    } else {
      high = high &+ (Int64(1) << Int64(shift - 65))
    }
    // Arithmetic shift of (high, low) right by `shift`.
    let result: Int64
    let above: Int64  // the bits above the result: all copies of its sign when it fits
    if shift < 64 {
      result = (high << Int64(64 - shift)) | Int64(bitPattern: low >> UInt64(shift))
      above = high >> Int64(shift - 1)
    } else if shift == 64 {
      result = high
      above = high >> 63
    } else {
      result = high >> Int64(shift - 64)
      above = high >> 63
    }
    if above != (result >> 63) { return high < 0 ? Int64.min : Int64.max }
    return result
  }

  /// The full 128-bit product `a * b` as (high, low), the same as
  /// `multipliedFullWidth(by:)`: a 64-bit host's one instruction; on
  /// 32-bit targets, where the standard library's version goes through
  /// `words` and allocates, `wideMultiply32`.
  @inline(__always)
  public static func wideMultiply(_ a: Int64, _ b: Int64) -> (high: Int64, low: UInt64) {
    #if _pointerBitWidth(_64)
      return a.multipliedFullWidth(by: b)
    #else
      return wideMultiply32(a, b)
    #endif
  }

  /// `wideMultiply` from four 32 x 32 -> 64-bit products.
  @inline(__always)
  static func wideMultiply32(_ a: Int64, _ b: Int64) -> (high: Int64, low: UInt64) {
    let ua = UInt64(bitPattern: a)
    let ub = UInt64(bitPattern: b)
    let mask: UInt64 = 0xFFFF_FFFF
    let a0 = ua & mask
    let a1 = ua >> 32
    let b0 = ub & mask
    let b1 = ub >> 32
    let p00 = a0 &* b0
    let p01 = a0 &* b1
    let p10 = a1 &* b0
    let p11 = a1 &* b1
    // Under 3 * 2^32: no overflow.
    let middle = (p00 >> 32) &+ (p01 & mask) &+ (p10 & mask)
    let low = (middle << 32) | (p00 & mask)
    let unsignedHigh = p11 &+ (p01 >> 32) &+ (p10 >> 32) &+ (middle >> 32)
    // The signed product: a negative factor contributes -2^64 times the other.
    let high = Int64(bitPattern: unsignedHigh) &- (a < 0 ? b : 0) &- (b < 0 ? a : 0)
    return (high, low)
  }

  /// `value >> shift` rounded to nearest (ties toward +infinity), without
  /// overflow. `shift` is 1...62.
  @inline(__always)
  public static func roundingShift(_ value: Int64, _ shift: Int) -> Int64 {
    (value &>> Int64(shift)) &+ ((value &>> Int64(shift - 1)) & 1)
  }

  /// `(a << shift) / b`, truncated toward zero, on a 128-bit dividend,
  /// clamped to `Int64`. `b` must not be zero; `shift` is 0...62.
  @inline(__always)
  public static func shiftDivide(_ a: Int64, _ shift: Int, _ b: Int64) -> Int64 {
    let negative = (a < 0) != (b < 0)
    let ua = a.magnitude
    let ub = b.magnitude
    let high = shift == 0 ? 0 : ua >> UInt64(64 - shift)
    let low = ua << UInt64(shift)
    if high >= ub { return negative ? Int64.min : Int64.max }
    let q = ub.dividingFullWidth((high: high, low: low)).quotient
    if negative { return q > UInt64(Int64.max) ? Int64.min : -Int64(q) }
    return q > UInt64(Int64.max) ? Int64.max : Int64(q)
  }
}

/// Force in millinewtons, Q21.10: 1 LSB = 1/1024 mN (about 0.98 uN),
/// range about +-2097 N. The unit of the force image and of contacts.
public struct Force_mN: Equatable, Comparable, Sendable {
  public static let fractionBits = 10
  public var rawValue: Int32
  @inline(__always) public init(rawValue: Int32) { self.rawValue = rawValue }
  public static let zero = Force_mN(rawValue: 0)

  /// Nearest representable force to `newtons`, saturated.
  public init(newtons: Double) {
    self.rawValue = Force_mN.saturate(newtons * 1000 * 1024)
  }

  /// Nearest representable force to `millinewtons`, saturated.
  public init(millinewtons: Double) {
    self.rawValue = Force_mN.saturate(millinewtons * 1024)
  }

  /// The force in newtons (for reports and tools; not used per cell).
  public var newtons: Double { Double(rawValue) / (1000 * 1024) }

  static func saturate(_ value: Double) -> Int32 {
    if !(value == value) { return 0 }
    if value >= Double(Int32.max) { return Int32.max }
    if value <= Double(Int32.min) { return Int32.min }
    return Int32(value.rounded())
  }

  @inline(__always)
  public static func + (a: Force_mN, b: Force_mN) -> Force_mN {
    Force_mN(rawValue: Saturating.int32(Int64(a.rawValue) + Int64(b.rawValue)))
  }
  @inline(__always)
  public static func - (a: Force_mN, b: Force_mN) -> Force_mN {
    Force_mN(rawValue: Saturating.int32(Int64(a.rawValue) - Int64(b.rawValue)))
  }
  @inline(__always)
  public static func < (a: Force_mN, b: Force_mN) -> Bool { a.rawValue < b.rawValue }
}

/// Length in micrometres, Q31.0: positions on the panel, origin at its
/// top-left corner, x to the right, y downwards.
public struct Length_um: Equatable, Comparable, Sendable {
  public var rawValue: Int32
  @inline(__always) public init(rawValue: Int32) { self.rawValue = rawValue }
  public static let zero = Length_um(rawValue: 0)
  public init(millimetres: Double) { self.rawValue = Force_mN.saturate(millimetres * 1000) }
  public var millimetres: Double { Double(rawValue) / 1000 }
  @inline(__always)
  public static func < (a: Length_um, b: Length_um) -> Bool { a.rawValue < b.rawValue }
}

/// Temperature in degrees Celsius, Q23.8: 1 LSB = 1/256 degC.
public struct Temperature_C: Equatable, Sendable {
  public static let fractionBits = 8
  public var rawValue: Int32
  @inline(__always) public init(rawValue: Int32) { self.rawValue = rawValue }
  public init(celsius: Double) { self.rawValue = Force_mN.saturate(celsius * 256) }
  public var celsius: Double { Double(rawValue) / 256 }
}

/// Time in microseconds, Q63.0, monotonic with any origin.
public struct Time_us: Equatable, Comparable, Sendable {
  public var rawValue: Int64
  @inline(__always) public init(rawValue: Int64) { self.rawValue = rawValue }
  @inline(__always)
  public static func < (a: Time_us, b: Time_us) -> Bool { a.rawValue < b.rawValue }
}

/// ADC counts with a fraction, Q47.16: baselines and deltas. A signed 24-bit
/// count `c` is `c << 16`; sums of such values never overflow.
public struct Counts_Q16: Equatable, Sendable {
  public static let fractionBits = 16
  public var rawValue: Int64
  @inline(__always) public init(rawValue: Int64) { self.rawValue = rawValue }
  @inline(__always) public init(wholeCounts: Int32) { self.rawValue = Int64(wholeCounts) << 16 }
  /// Nearest representable count to `counts`, saturated (NaN is 0).
  public init(counts: Double) { self.rawValue = CellCalibration.fixed(counts, Counts_Q16.fractionBits) }
  public var counts: Double { Double(rawValue) / 65536 }
}

/// The signed 24-bit ADC range every raw count is held to.
public enum RawCounts {
  public static let max: Int32 = (1 << 23) - 1
  public static let min: Int32 = -(1 << 23)

  /// `raw` clamped to the signed 24-bit range.
  @inline(__always)
  public static func clamp(_ raw: Int32) -> Int32 {
    raw > max ? max : (raw < min ? min : raw)
  }
}
