// 64-bit arithmetic from 32-bit operations, for the frame path on 32-bit
// targets (Cortex-M0+/M3/M4/M7, RV32), with exactly the results of the
// plain 64-bit forms on a 64-bit host.
//
// A Cortex-M4 multiplies 32 x 32 -> 64 bits in one instruction (`smull`,
// `umull`), but a 64 x 64-bit product with an overflow check
// (`multipliedReportingOverflow`) takes it about forty, and at -Osize a
// 64-bit shift by a variable amount is a call into the compiler's helpers
// (`__aeabi_lasr`). The core's values mostly fit 32 bits where these are
// used (a cell's delta from its baseline, a temperature step, a force), so
// the helpers below take one factor as 32 bits and build the rest from
// 32-bit halves. Each is checked against the 64-bit form by
// `Arithmetic32Tests`, and can be called on any host.

extension Saturating {
  /// `(a * b) >> shift` rounded to nearest, ties toward +infinity (as
  /// `multiplyShift`), for a 32-bit `a` and `shift` 33...62: the 96-bit
  /// product from two 32 x 32 -> 64-bit products. The result always fits
  /// (|a * b| < 2^94), so nothing saturates.
  ///
  /// With `b = h * 2^32 + l` (`l` its unsigned low half): `a * b + 2^(shift-1)
  /// = (a h + (a l >> 32) + 2^(shift-33)) * 2^32 + (a l & (2^32 - 1))`, and
  /// the last term, under 2^32, cannot change the quotient by 2^shift.
  @inline(__always)
  public static func multiplyShift(narrow a: Int32, _ b: Int64, _ shift: Int) -> Int64 {
    let wide = Int64(a)
    let high = wide &* (b &>> 32)  // |.| < 2^62
    let low = wide &* (b & 0xFFFF_FFFF)  // |.| < 2^63
    let sum = high &+ (low &>> 32) &+ (Int64(1) &<< Int64(shift &- 33))
    return sum &>> Int64(shift &- 32)
  }

  /// `(a * b) >> shift` rounded to nearest (as `multiplyShift`) for a
  /// 32-bit `a` and `shift` 2...32, clamped to `Int64`; nil when the
  /// product's high part is beyond what this form adds without overflow
  /// (the caller then takes the full product). With `b = h * 2^32 + l`:
  /// `(a h) * 2^(32-shift) + roundingShift(a l, shift)`, exact because
  /// `a h * 2^32` is a multiple of `2^shift`.
  @inline(__always)
  public static func multiplyShift(narrow a: Int32, _ b: Int64, smallShift shift: Int) -> Int64? {
    let wide = Int64(a)
    let high = wide &* (b &>> 32)
    let low = wide &* (b & 0xFFFF_FFFF)
    // |high| < 2^(30+shift): its part below 2^62, the low part's under 2^(63-shift).
    let limit = Int64(1) &<< Int64(30 &+ shift)
    guard high < limit && high > 0 &- limit else { return nil }
    return (high &<< Int64(32 &- shift)) &+ roundingShift(low, shift)
  }

  /// `value` as 32 bits, or nil when it does not fit.
  @inline(__always)
  public static func narrow(_ value: Int64) -> Int32? {
    let n = Int32(truncatingIfNeeded: value)
    return Int64(n) == value ? n : nil
  }

  /// `roundingShift(value, shift) `, clamped to `Int32`: a force from its
  /// Q20 form, in 32-bit operations when `value` fits them.
  @inline(__always)
  public static func roundingShift32(_ value: Int64, _ shift: Int32) -> Int32 {
    if let v = narrow(value) {
      // |v| < 2^31: the shifted value and its rounding bit fit.
      return (v &>> shift) &+ ((v &>> (shift &- 1)) & 1)
    }
    return int32(roundingShift(value, Int(shift)))
  }
}

extension FixedMath {
  /// `a / b`, truncated toward zero (`b` not 0, and not `Int64.min / -1`),
  /// as one 32-bit division when both fit 32 bits: a Cortex-M3/M4 divides
  /// 32 bits in one instruction, 64 bits only in a library call.
  @inline(__always)
  public static func divide(_ a: Int64, _ b: Int64) -> Int64 {
    #if _pointerBitWidth(_32)
      if let a32 = Saturating.narrow(a), let b32 = Saturating.narrow(b), a32 != Int32.min {
        return Int64(a32 / b32)
      }
    #endif
    return a / b
  }
}

/// Shifts of 64-bit values by an amount known only at run time (0...63,
/// as `&>>`), inline on 32-bit targets instead of a call into the
/// compiler's helpers.
public enum Shift64 {
  /// `value &>> amount`, `amount` 0...63.
  @inline(__always)
  public static func right(_ value: Int64, _ amount: Int) -> Int64 {
    #if _pointerBitWidth(_32)
      return Word32.shiftRight(value, amount)
    #else
      return value &>> Int64(amount)
    #endif
  }
}

extension Word32 {
  /// `value &>> amount` (arithmetic, `amount` 0...63) from its 32-bit halves.
  @inline(__always)
  static func shiftRight(_ value: Int64, _ amount: Int) -> Int64 {
    let s = UInt32(truncatingIfNeeded: amount) & 63
    let high = Int32(truncatingIfNeeded: value &>> 32)
    let low = UInt32(truncatingIfNeeded: value)
    var h: Int32
    var l: UInt32
    if s == 0 {
      return value
    } else if s < 32 {
      h = high &>> Int32(bitPattern: s)
      l = (low &>> s) | (UInt32(bitPattern: high) &<< (32 &- s))
    } else {
      h = high &>> 31
      l = UInt32(bitPattern: high &>> Int32(bitPattern: s &- 32))
    }
    return (Int64(h) &<< 32) | Int64(bitPattern: UInt64(l))
  }
}
