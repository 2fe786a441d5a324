/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib and PNG):
/// the integrity check of calibration records, on disk and in EEPROM.
public struct CRC32: Sendable {
  public private(set) var value: UInt32 = 0xFFFF_FFFF

  public init() {}

  static let table: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
    var c = value
    for b in bytes { c = CRC32.table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    value = c
  }

  /// The finished checksum.
  public var checksum: UInt32 { value ^ 0xFFFF_FFFF }

  /// The CRC-32 of `bytes`.
  public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
    var crc = CRC32()
    crc.update(bytes)
    return crc.checksum
  }
}
