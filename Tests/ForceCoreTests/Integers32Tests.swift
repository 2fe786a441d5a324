import Testing

@testable import ForceCore

/// ForceCore's own integer conversions, shifts and wide product (what it
/// uses instead of the standard library's on 32-bit targets) against the
/// standard library's, which a generic context still calls.
@Suite struct Integers32Tests {
  /// Edge values and a fixed pseudo-random spread (xorshift64).
  static let samples: [Int64] = {
    var values: [Int64] = [0, 1, -1, 2, -2, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
    for k in [15, 16, 31, 32, 33, 52, 53, 54, 62, 63] as [Int64] {
      let p: Int64 = 1 &<< k
      values += [p, p &- 1, p &+ 1, 0 &- p, 0 &- p &- 1, 0 &- p &+ 1]
    }
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<400 {
      x ^= x &<< 13
      x ^= x &>> 7
      x ^= x &<< 17
      // Every magnitude: shift the draw right by 0...63.
      values.append(Int64(bitPattern: x) &>> Int64(x % 64))
    }
    return values
  }()

  static func generic<T: BinaryInteger>(_ x: T) -> Double { Double(x) }
  static func generic<T: BinaryInteger, U: BinaryInteger>(_ x: T, as: U.Type) -> U { U(truncatingIfNeeded: x) }
  static func shiftRight<T: BinaryInteger>(_ x: T, _ s: Int) -> T { x >> s }
  static func shiftLeft<T: BinaryInteger>(_ x: T, _ s: Int) -> T { x << s }

  @Test func wideMultiplyIsTheFullWidthProduct() {
    for a in Self.samples.prefix(120) {
      for b in Self.samples {
        let stdlib = a.multipliedFullWidth(by: b)
        // The form this target uses and the 32-bit targets' one.
        for mine in [Saturating.wideMultiply(a, b), Saturating.wideMultiply32(a, b)] {
          #expect(mine.high == stdlib.high && mine.low == stdlib.low, "\(a) * \(b)")
        }
      }
    }
  }

  @Test func theThirtyTwoBitHalvesConvertAsTheStandardLibrary() {
    for v in Self.samples {
      #expect(Word32.double(v) == Self.generic(v), "\(v)")
      #expect(Double(v) == Self.generic(v), "\(v)")
      let low = Int32(truncatingIfNeeded: v)
      #expect(Word32.signExtend(v) == Self.generic(low, as: Int64.self), "\(v)")
      #expect(Int64(low) == Self.generic(low, as: Int64.self))
      #expect(Double(low) == Self.generic(low))
      #expect(Int64(Int(v)) == v)
      let low32 = UInt32(truncatingIfNeeded: v)
      #expect(Int64(low32) == Self.generic(low32, as: Int64.self))
      #expect(UInt64(low32) == Self.generic(low32, as: UInt64.self))
      #expect(Int64(UInt16(truncatingIfNeeded: v)) == Self.generic(UInt16(truncatingIfNeeded: v), as: Int64.self))
      #expect(Int64(Int16(truncatingIfNeeded: v)) == Self.generic(Int16(truncatingIfNeeded: v), as: Int64.self))
      #expect(UInt64(UInt(truncatingIfNeeded: v)) == UInt64(bitPattern: v))
      if v >= 0 {
        #expect(UInt64(v) == UInt64(bitPattern: v))
        #expect(Int64(UInt64(bitPattern: v)) == v)
      }
    }
  }

  @Test func shiftsMeanWhatTheStandardLibrarysDo() {
    for v in Self.samples.prefix(80) {
      let u = UInt64(bitPattern: v)
      for s in -70...70 {
        #expect(v >> s == Self.shiftRight(v, s), "\(v) >> \(s)")
        #expect(v << s == Self.shiftLeft(v, s), "\(v) << \(s)")
        #expect(v >> Int64(s) == Self.shiftRight(v, s))
        #expect(v << Int64(s) == Self.shiftLeft(v, s))
        #expect(u >> s == Self.shiftRight(u, s), "\(u) >> \(s)")
        #expect(u << s == Self.shiftLeft(u, s), "\(u) << \(s)")
      }
    }
  }
}
