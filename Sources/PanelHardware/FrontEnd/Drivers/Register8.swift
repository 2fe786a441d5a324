/// An 8-bit register of an I2C chip as a value type, in swift-mmio's shape
/// without its macros: a `RawRepresentable` struct per register whose
/// computed properties are its bit fields (`Bool` for one bit, an enum for
/// a coded field). Drivers read a register into one, change fields and
/// write it back (`modify`); simulations decode writes with the same types.
public protocol Register8: RawRepresentable, Equatable, Sendable, CustomStringConvertible
where RawValue == UInt8 {
  /// The register's address in the chip's map.
  static var address: UInt8 { get }
  var rawValue: UInt8 { get set }
  init(rawValue: UInt8)
}

extension Register8 {
  /// The register with every bit clear.
  public init() { self.init(rawValue: 0) }

  /// Bit `n` (0 = LSB).
  @inline(__always)
  public func bit(_ n: Int) -> Bool { rawValue & (1 << n) != 0 }

  @inline(__always)
  public mutating func setBit(_ n: Int, _ value: Bool) {
    rawValue = value ? rawValue | (1 << n) : rawValue & ~(1 << n)
  }

  /// Bits `bits` (e.g. 4..<7), shifted down.
  @inline(__always)
  public func field(_ bits: Range<Int>) -> UInt8 {
    (rawValue >> bits.lowerBound) & Self.mask(bits.count)
  }

  /// Sets bits `bits` to `value`; bits of `value` above the field's width
  /// are dropped (fields are set from enums whose raw values fit).
  @inline(__always)
  public mutating func setField(_ bits: Range<Int>, _ value: UInt8) {
    let mask = Self.mask(bits.count) << bits.lowerBound
    rawValue = (rawValue & ~mask) | ((value << bits.lowerBound) & mask)
  }

  @inline(__always)
  static func mask(_ width: Int) -> UInt8 { width >= 8 ? 0xFF : UInt8((1 << width) - 1) }

  public var description: String { Register8Hex.hex(rawValue) }
}

public enum Register8Hex {
  /// "0x2a".
  public static func hex(_ value: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 15)])
  }
}

/// Register-level I2C helpers every driver uses: a register pointer write
/// then a read with a repeated start, and a pointer-plus-data write.
public enum RegisterIO {
  /// Reads `buffer.count` bytes starting at `register` (auto-increment):
  /// one combined transfer.
  @inline(__always)
  public static func read(
    _ register: UInt8, into buffer: UnsafeMutableRawBufferPointer, at address: I2CAddress,
    on bus: inout some I2CBus
  ) throws(I2CError) {
    var pointer = register
    try withUnsafeBytes(of: &pointer) { (p) throws(I2CError) in
      try bus.writeRead(p, into: buffer, address: address)
    }
  }

  /// Reads one register.
  @inline(__always)
  public static func read(_ register: UInt8, at address: I2CAddress, on bus: inout some I2CBus) throws(I2CError)
    -> UInt8
  {
    var value: UInt8 = 0
    try withUnsafeMutableBytes(of: &value) { (p) throws(I2CError) in
      try read(register, into: p, at: address, on: &bus)
    }
    return value
  }

  /// Writes `value` to `register`: START, address+W, register, value, STOP.
  @inline(__always)
  public static func write(_ register: UInt8, _ value: UInt8, at address: I2CAddress, on bus: inout some I2CBus)
    throws(I2CError)
  {
    var bytes: (UInt8, UInt8) = (register, value)
    try withUnsafeBytes(of: &bytes) { (p) throws(I2CError) in try bus.write(p, to: address) }
  }

  /// Writes one byte (a command or a switch's control register).
  @inline(__always)
  public static func write(byte: UInt8, at address: I2CAddress, on bus: inout some I2CBus) throws(I2CError) {
    var value = byte
    try withUnsafeBytes(of: &value) { (p) throws(I2CError) in try bus.write(p, to: address) }
  }

  /// A 24-bit two's-complement value sent most significant byte first,
  /// sign-extended.
  @inline(__always)
  public static func signExtend24(_ b2: UInt8, _ b1: UInt8, _ b0: UInt8) -> Int32 {
    Int32(bitPattern: UInt32(b2) << 24 | UInt32(b1) << 16 | UInt32(b0) << 8) >> 8
  }
}
