import CI2C

/// What an I2C adapter can do: the mask ioctl(I2C_FUNCS) returns
/// (`I2C_FUNC_*` in <linux/i2c.h>).
public struct I2CFunctionality: OptionSet, Sendable, CustomStringConvertible {
  public var rawValue: UInt
  public init(rawValue: UInt) { self.rawValue = rawValue }

  /// I2C_FUNC_I2C: plain I2C messages, so I2C_RDWR with repeated starts.
  public static let i2c = Self(rawValue: UInt(I2C_FUNC_I2C))
  /// I2C_FUNC_SMBUS_QUICK: a write of no data (address probe).
  public static let smbusQuick = Self(rawValue: UInt(I2C_FUNC_SMBUS_QUICK))
  public static let smbusReadByte = Self(rawValue: UInt(I2C_FUNC_SMBUS_READ_BYTE))
  public static let smbusWriteByte = Self(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_BYTE))
  public static let smbusReadByteData = Self(rawValue: UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA))
  public static let smbusWriteByteData = Self(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_BYTE_DATA))
  public static let smbusReadWordData = Self(rawValue: UInt(I2C_FUNC_SMBUS_READ_WORD_DATA))
  public static let smbusWriteWordData = Self(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_WORD_DATA))
  /// I2C_FUNC_SMBUS_READ_I2C_BLOCK: command byte, repeated start, 1...32 bytes.
  public static let smbusReadI2CBlock = Self(rawValue: UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK))
  /// I2C_FUNC_SMBUS_WRITE_I2C_BLOCK: command byte then 1...32 bytes.
  public static let smbusWriteI2CBlock = Self(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK))

  /// The most data bytes one SMBus I2C-block transfer carries.
  public static let smbusBlockMax = 32

  static let names: [(Self, String)] = [
    (.i2c, "I2C"), (.smbusQuick, "quick"), (.smbusReadByte, "read byte"),
    (.smbusWriteByte, "write byte"), (.smbusReadByteData, "read byte data"),
    (.smbusWriteByteData, "write byte data"), (.smbusReadWordData, "read word"),
    (.smbusWriteWordData, "write word"), (.smbusReadI2CBlock, "read I2C block"),
    (.smbusWriteI2CBlock, "write I2C block"),
  ]

  /// "I2C, quick, read byte, ...".
  public var description: String {
    let known = Self.names.filter { contains($0.0) }.map(\.1)
    return known.isEmpty ? "none" : known.joined(separator: ", ")
  }
}
