// Integer conversions and shifts for 32-bit targets.
//
// On a 32-bit target (Cortex-M0+/M4/M7, RV32) the standard library's
// generic conversions into a 64-bit integer (`Int64(x)`, `UInt64(x)`,
// `Int(x)` of an `Int64`, `Double(x)` of an `Int32`) and its "smart"
// shifts on 64-bit integers (`x >> n`, `x << n`) read the source's `words`.
// Nothing is allocated at run time, but the `words` collection's conformance
// brings an array type into the module, and Embedded Swift's
// `-no-allocations` refuses it. The concrete overloads below (public and
// inlinable: PanelTouch uses them too, inlined like the standard
// library's; public rather than package so that ForceCore compiles alone,
// with no package name) are chosen over the generic ones: the
// same results and the same traps, from `init(_truncatingBits:)` (one machine
// word in) and masking shifts only. On 64-bit hosts they fold to the same
// instructions as the generic ones. A conversion missing here shows on a
// 32-bit target (scripts/embedded-check.sh) as "cannot use allocating type
// '_ContiguousArrayStorage<UInt>' in -no-allocations mode": add it here.

extension Int64 {
  /// `value` sign-extended (`Int` is 32 or 64 bits).
  @inlinable @inline(__always)
  public init(_ value: Int) {
    let bits = Int64(_truncatingBits: UInt(bitPattern: value))
    #if _pointerBitWidth(_32)
      self = Word32.signExtend(bits)
    #else
      self = bits
    #endif
  }

  @inlinable @inline(__always)
  public init(_ value: Int32) { self.init(Int(value)) }

  @inlinable @inline(__always)
  public init(_ value: Int16) { self.init(Int(value)) }

  @inlinable @inline(__always)
  public init(_ value: UInt32) { self.init(bitPattern: UInt64(value)) }

  @inlinable @inline(__always)
  public init(_ value: UInt16) { self.init(Int(value)) }

  @inlinable @inline(__always)
  public init(_ value: UInt8) { self.init(Int(value)) }

  /// `value`, which must be at most `Int64.max`.
  @inlinable @inline(__always)
  public init(_ value: UInt64) {
    precondition(value <= 0x7FFF_FFFF_FFFF_FFFF, "Not enough bits to represent the passed value")
    self.init(bitPattern: value)
  }

  /// `lhs >> rhs` with the standard library's meaning for any `rhs`.
  @inline(__always)
  static func >> (lhs: Int64, rhs: Int64) -> Int64 {
    if rhs >= 64 { return lhs &>> 63 }
    if rhs >= 0 { return lhs &>> rhs }
    if rhs <= -64 { return 0 }
    return lhs &<< (0 &- rhs)
  }

  /// `lhs << rhs` with the standard library's meaning for any `rhs`.
  @inline(__always)
  static func << (lhs: Int64, rhs: Int64) -> Int64 {
    if rhs >= 64 { return 0 }
    if rhs >= 0 { return lhs &<< rhs }
    if rhs <= -64 { return lhs &>> 63 }
    return lhs &>> (0 &- rhs)
  }

  @inline(__always)
  static func >> (lhs: Int64, rhs: Int) -> Int64 { lhs >> Int64(rhs) }

  @inline(__always)
  static func << (lhs: Int64, rhs: Int) -> Int64 { lhs << Int64(rhs) }
}

extension UInt64 {
  /// `value`, which must not be negative.
  @inlinable @inline(__always)
  public init(_ value: Int) {
    precondition(value >= 0, "Negative value is not representable")
    self = UInt64(_truncatingBits: UInt(bitPattern: value))
  }

  /// `value`, zero-extended.
  @inlinable @inline(__always)
  public init(_ value: UInt) { self = UInt64(_truncatingBits: value) }

  @inlinable @inline(__always)
  public init(_ value: UInt32) { self.init(UInt(value)) }

  /// `value`, which must not be negative.
  @inlinable @inline(__always)
  public init(_ value: Int64) {
    precondition(value >= 0, "Negative value is not representable")
    self.init(bitPattern: value)
  }

  /// `lhs >> rhs` with the standard library's meaning for any `rhs`.
  @inline(__always)
  static func >> (lhs: UInt64, rhs: UInt64) -> UInt64 { rhs >= 64 ? 0 : lhs &>> rhs }

  /// `lhs << rhs` with the standard library's meaning for any `rhs`.
  @inline(__always)
  static func << (lhs: UInt64, rhs: UInt64) -> UInt64 { rhs >= 64 ? 0 : lhs &<< rhs }

  @inline(__always)
  static func >> (lhs: UInt64, rhs: Int) -> UInt64 {
    rhs < 0 ? lhs << UInt64(0 - rhs) : lhs >> UInt64(rhs)
  }

  @inline(__always)
  static func << (lhs: UInt64, rhs: Int) -> UInt64 {
    rhs < 0 ? lhs >> UInt64(0 - rhs) : lhs << UInt64(rhs)
  }
}

extension Int {
  /// `value`, which must fit (always on 64-bit targets).
  @inlinable @inline(__always)
  public init(_ value: Int64) {
    let narrow = Int(truncatingIfNeeded: value)
    precondition(Int64(narrow) == value, "Not enough bits to represent the passed value")
    self = narrow
  }
}

extension Int32 {
  /// `value`, which must fit.
  @inlinable @inline(__always)
  public init(_ value: Int64) {
    let narrow = Int32(truncatingIfNeeded: value)
    precondition(Int64(narrow) == value, "Not enough bits to represent the passed value")
    self = narrow
  }
}

extension UInt16 {
  /// `value`, which must fit.
  @inlinable @inline(__always)
  public init(_ value: Int64) {
    precondition(value >= 0 && value <= 0xFFFF, "Not enough bits to represent the passed value")
    self = UInt16(truncatingIfNeeded: value)
  }
}

extension Double {
  /// `value` rounded to nearest, as the standard library does: on 32-bit
  /// targets from its two halves, each exact, with one rounding in the sum.
  @inlinable @inline(__always)
  public init(_ value: Int64) {
    #if _pointerBitWidth(_32)
      self = Word32.double(value)
    #else
      self.init(Int(truncatingIfNeeded: value))
    #endif
  }

  @inlinable @inline(__always)
  public init(_ value: Int32) { self.init(Int(value)) }
}

/// The 32-bit halves of the conversions above, callable on any host so
/// that tests check them against the standard library.
@usableFromInline enum Word32 {
  /// The low 32 bits of `bits`, sign-extended.
  @inlinable @inline(__always)
  static func signExtend(_ bits: Int64) -> Int64 { (bits &<< 32) &>> 32 }

  /// `value` rounded to nearest from `Double(Int)` of 32-bit parts: the
  /// high half times 2^32 and the low half (as 31 + 1 bits) are exact, so
  /// only the last addition rounds.
  @inlinable @inline(__always)
  static func double(_ value: Int64) -> Double {
    let high = Int(truncatingIfNeeded: value &>> 32)
    let low = Double(Int(truncatingIfNeeded: (value & 0xFFFF_FFFF) &>> 1)) * 2
      + Double(Int(truncatingIfNeeded: value & 1))
    return Double(high) * 4_294_967_296 + low
  }
}
