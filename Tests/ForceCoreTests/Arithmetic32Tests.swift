import Testing

@testable import ForceCore

/// The frame path's 32-bit forms (Arithmetic32.swift, the 32-bit
/// square root, the restoring division, the force's 32-bit path) against
/// the plain 64-bit and 128-bit arithmetic they stand for.
@Suite struct Arithmetic32Tests {
  static let samples = Integers32Tests.samples
  static let narrowSamples: [Int32] = {
    var values: [Int32] = [0, 1, -1, 2, -2, Int32.max, Int32.min, Int32.max - 1, Int32.min + 1]
    for v in samples { values.append(Int32(truncatingIfNeeded: v)) }
    return values
  }()

  /// floor((a * b + 2^(shift-1)) / 2^shift), from the full 128-bit product,
  /// clamped to `Int64`: what `multiplyShift` means.
  static func reference(_ a: Int64, _ b: Int64, _ shift: Int) -> Int64 {
    let p = a.multipliedFullWidth(by: b)
    // (high, low) + 2^(shift-1), then an arithmetic shift right, in Int128-free steps.
    var high = p.high
    var low = p.low
    let half = UInt64(1) << UInt64(shift - 1)
    let (l, carry) = low.addingReportingOverflow(half)
    low = l
    high = high &+ (carry ? 1 : 0)
    let result = (high << Int64(64 - shift)) | Int64(bitPattern: low >> UInt64(shift))
    let above = high >> Int64(shift - 1)
    if above != (result >> 63) { return high < 0 ? Int64.min : Int64.max }
    return result
  }

  @Test func aNarrowFactorGivesTheFullProductsRounding() {
    for a in Self.narrowSamples {
      for b in Self.samples {
        for shift in [33, 36, 40, 47, 62] {
          #expect(
            Saturating.multiplyShift(narrow: a, b, shift) == Self.reference(Int64(a), b, shift),
            "\(a) * \(b) >> \(shift)")
        }
        for shift in [2, 10, 16, 20, 24, 31, 32] {
          let mine = Saturating.multiplyShift(narrow: a, b, smallShift: shift)
          let full = Self.reference(Int64(a), b, shift)
          if let mine { #expect(mine == full, "\(a) * \(b) >> \(shift)") }
          // Declined only where the product's high part is that large.
          let high = Int64(a) &* (b &>> 32)
          #expect((mine == nil) == !(high < (Int64(1) << Int64(30 + shift)) && high > -(Int64(1) << Int64(30 + shift))))
        }
      }
    }
  }

  @Test func theGeneralMultiplyShiftIsTheFullProductsRounding() {
    for a in Self.samples.prefix(150) {
      for b in Self.samples {
        for shift in [1, 2, 10, 16, 20, 24, 32, 33, 36, 40, 62] {
          #expect(Saturating.multiplyShift(a, b, shift) == Self.reference(a, b, shift), "\(a) * \(b) >> \(shift)")
        }
      }
    }
  }

  @Test func variableShiftsOfHalvesAreTheShifts() {
    for v in Self.samples {
      for s in 0..<64 {
        #expect(Word32.shiftRight(v, s) == v &>> Int64(s), "\(v) >> \(s)")
        #expect(Shift64.right(v, s) == v &>> Int64(s))
      }
    }
  }

  @Test func roundingShift32IsTheClampedRoundingShift() {
    for v in Self.samples {
      for s: Int32 in [1, 2, 9, 10, 16, 31] {
        #expect(Saturating.roundingShift32(v, s) == Saturating.int32(Saturating.roundingShift(v, Int(s))), "\(v) >> \(s)")
      }
    }
  }

  @Test func divisionIsTheTruncatingQuotient() {
    for a in Self.samples {
      for b in Self.samples.prefix(120) where b != 0 && !(a == Int64.min && b == -1) {
        #expect(FixedMath.divide(a, b) == a / b, "\(a) / \(b)")
      }
    }
  }

  @Test func theRestoringDivisionIsTheQ16Fraction() {
    for b in Self.samples where b > 1 {
      for a in [0, 1, b / 3, b / 2, b - 1, (b / 7) * 5] as [Int64] where a >= 0 && a < b {
        #expect(FixedMath.fraction_Q16(a, b) == Saturating.shiftDivide(a, 16, b), "\(a) / \(b)")
      }
    }
  }

  @Test func squareRootIsTheFloorOfTheRoot() {
    var values = Self.samples.filter { $0 >= 0 }
    // Around 2^53 and above, where a `Double` no longer holds every value.
    let roots: [Int64] = [
      1, 2, 3, 65535, 65536, 65537, 67_108_864, 94_906_265, 94_906_266, 1_000_000_007, 3_037_000_498,
      3_037_000_499,
    ]
    for r in roots { values += [r * r - 1, r * r, r * r + 1] }
    values += [0xFFFF_FFFF, 0x1_0000_0000, 1 << 53, (1 << 53) + 1, Int64.max - 1, Int64.max]
    // Both forms (the host's and a 32-bit target's), whichever one `squareRoot` is here.
    let forms: [(String, (Int64) -> Int64)] = [
      ("squareRoot", FixedMath.squareRoot), ("floating", FixedMath.floatingSquareRoot),
      ("bitwise", FixedMath.bitwiseSquareRoot), ("estimated", FixedMath.estimatedSquareRoot),
    ]
    for r: Int64 in [4095, 4096, 16_777_215, 16_777_216 - 3] { values += [r * r - 1, r * r, r * r + 1] }
    values += [(1 << 48) - 1, (1 << 48) - 2, 1 << 47, 123_456_789_012]
    for v in values where v > 0 {
      for (name, root) in forms where name != "estimated" || v < 1 << 48 {
        let r = root(v)
        // r^2 <= v < (r + 1)^2, on 128 bits.
        let square = r.multipliedFullWidth(by: r)
        let next = (r + 1).multipliedFullWidth(by: r + 1)
        #expect(square.high == 0 && square.low <= UInt64(v), "\(name)(\(v)) = \(r)")
        #expect(next.high > 0 || next.low > UInt64(v), "\(name)(\(v)) = \(r)")
      }
    }
    #expect(FixedMath.squareRoot(0) == 0 && FixedMath.squareRoot(-5) == 0)
  }

  /// The force as the conversion's model defines it, in 64-bit steps.
  static func referenceForce(_ c: CellConversion, _ delta: Int64) -> Int32 {
    let f1 = Self.reference(delta, c.scale_Q40, 36)
    if f1 < c.linearSkip_Q20 && f1 > -c.linearSkip_Q20 {
      return Saturating.int32(Saturating.roundingShift(f1, 10))
    }
    let k = Self.reference(f1, c.linearity_Q60, 40)
    let correction = Self.reference(f1, k, 40)
    return Saturating.int32(Saturating.roundingShift(Saturating.add(f1, correction), 10))
  }

  @Test func theForcesThirtyTwoBitPathIsTheModel() {
    let calibrations = [
      CellCalibration(offset: 0, gain: 60_000, linearity: 0.003),
      CellCalibration(offset: 0, gain: 1000),
      CellCalibration(offset: 0, gain: -250, linearity: -0.02, tcSpan: 3e-4),
      CellCalibration(offset: 0, gain: 5_000_000, linearity: 0.5),
      CellCalibration(offset: 0, gain: 0.001),
    ]
    for cal in calibrations {
      let c = cal.conversion(at: Temperature_C(celsius: 31))
      for delta in Self.samples {
        #expect(c.force(delta: Counts_Q16(rawValue: delta)).rawValue == Self.referenceForce(c, delta), "\(cal.gain) \(delta)")
      }
    }
  }

  /// The skip of the quadratic term (one unsigned comparison) at the
  /// edges of its range: no skip, a skip of 1, and limits around 2^31.
  @Test func theQuadraticTermsSkipIsTheModelAtItsEdges() {
    let limits: [Int64] = [
      -5, -1, 0, 1, 2, 1 << 20, Int64(Int32.max) - 1, Int64(Int32.max), Int64(Int32.max) + 1, Int64.max,
    ]
    for limit in limits {
      for scale: Int64 in [1 << 36, 3 << 40, 1 << 44, -(1 << 40)] {
        let c = CellConversion(scale_Q40: scale, linearity_Q60: 1 << 40, linearSkip_Q20: limit)
        for delta in Self.samples {
          #expect(c.force(delta: Counts_Q16(rawValue: delta)).rawValue == Self.referenceForce(c, delta), "\(limit) \(scale) \(delta)")
        }
      }
    }
  }
}
