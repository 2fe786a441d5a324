/// CRC-16/CCITT-FALSE: polynomial 0x1021 (x^16 + x^12 + x^5 + 1), initial
/// value 0xFFFF, no reflection, no final XOR. The ADS122C04's data
/// integrity check (register 2 CRC = 10) and the panel frame protocol use
/// it. Check value: "123456789" -> 0x29B1.
public enum CRC16 {
  @inline(__always)
  public static func update(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
    var c = crc ^ UInt16(byte) << 8
    for _ in 0..<8 { c = c & 0x8000 != 0 ? c << 1 ^ 0x1021 : c << 1 }
    return c
  }

  public static func checksum(_ bytes: UnsafeRawBufferPointer, initial: UInt16 = 0xFFFF) -> UInt16 {
    var c = initial
    for b in bytes { c = update(c, b) }
    return c
  }

  public static func checksum(_ bytes: [UInt8]) -> UInt16 {
    bytes.withUnsafeBytes { checksum($0) }
  }
}
