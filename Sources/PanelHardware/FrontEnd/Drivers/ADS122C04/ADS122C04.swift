/// Driver of the TI ADS122C04 24-bit ADC (SBAS751), generic over the bus.
/// The chip takes commands (one byte each; WREG with its value); register
/// reads and results are a command, a repeated START and the bytes. Every
/// method is one transfer and never waits.
///
/// Bring-up: RESET; WREG 0...3 with the configuration; RREG 0...2 to check
/// it took (a chip answering at the address but not configured is not an
/// ADS122C04); START/SYNC (continuous mode). A result: RDATA, Sr, then
/// [DCNT] + 3 data bytes + [CRC-16 over DCNT and data], per register 2
/// (the family's datasheet: the counter is covered by the check, and
/// register reads carry it too; this driver reads a register's value alone
/// and checks the CRC on results).
public struct ADS122C04: Sendable, Equatable {
  public let address: I2CAddress
  public static let addresses: ClosedRange<UInt8> = 0x40...0x4F

  public init(address: I2CAddress) {
    self.address = address
  }

  /// One conversion result.
  public struct Result: Sendable, Equatable {
    public var value: Int32
    /// DCNT, when enabled.
    public var counter: UInt8?
    /// False when the CRC (or inverted copy) does not match the data.
    public var intact: Bool
  }

  /// Sends one command byte: START, addr+W, command, STOP.
  public func send(_ command: UInt8, on bus: inout some I2CBus) throws(I2CError) {
    try RegisterIO.write(byte: command, at: address, on: &bus)
  }

  /// WREG: START, addr+W, 0x40|r<<2, value, STOP.
  public func write<R: Register8>(_ value: R, on bus: inout some I2CBus) throws(I2CError) {
    try RegisterIO.write(Command.writeRegister(R.address), value.rawValue, at: address, on: &bus)
  }

  /// RREG: START, addr+W, 0x20|r<<2, Sr, addr+R, value, STOP.
  public func read<R: Register8>(_ type: R.Type, on bus: inout some I2CBus) throws(I2CError) -> R {
    R(rawValue: try RegisterIO.read(Command.readRegister(R.address), at: address, on: &bus))
  }

  /// The four registers for `settings` (continuous conversions).
  public static func registers(_ settings: ADS122C04Settings) -> (Config0, Config1, Config2, Config3) {
    var r0 = Config0()
    r0.input = settings.input
    r0.gain = settings.gain
    r0.pgaBypass = false
    var r1 = Config1()
    r1.rateCode = settings.rateCode
    r1.turbo = settings.turbo
    r1.continuous = true
    r1.reference = settings.reference
    var r2 = Config2()
    r2.counter = settings.counter
    r2.integrity = settings.crc ? .crc16 : .none
    return (r0, r1, r2, Config3())
  }

  /// WREG 0, 1, 2, 3 (four writes).
  public func configure(_ settings: ADS122C04Settings, on bus: inout some I2CBus) throws(I2CError) {
    let (r0, r1, r2, r3) = ADS122C04.registers(settings)
    try write(r0, on: &bus)
    try write(r1, on: &bus)
    try write(r2, on: &bus)
    try write(r3, on: &bus)
  }

  /// Whether registers 0...2 hold `settings` (register 2 without DRDY).
  public func isConfigured(_ settings: ADS122C04Settings, on bus: inout some I2CBus) throws(I2CError) -> Bool {
    let (r0, r1, r2, _) = ADS122C04.registers(settings)
    guard try read(Config0.self, on: &bus) == r0, try read(Config1.self, on: &bus) == r1 else { return false }
    var seen = try read(Config2.self, on: &bus)
    seen.dataReady = false
    return seen == r2
  }

  /// Register 2 DRDY: a new result since the last RDATA.
  public func isDataReady(on bus: inout some I2CBus) throws(I2CError) -> Bool {
    try read(Config2.self, on: &bus).dataReady
  }

  /// RDATA and the result in one combined transfer, its integrity checked.
  public func readResult(counter: Bool, crc: Bool, on bus: inout some I2CBus) throws(I2CError) -> Result {
    let n = (counter ? 1 : 0) + 3 + (crc ? 2 : 0)
    var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
    var command = Command.readData
    try withUnsafeBytes(of: &command) { (w) throws(I2CError) in
      try withUnsafeMutableBytes(of: &bytes) { (r) throws(I2CError) in
        try bus.writeRead(w, into: UnsafeMutableRawBufferPointer(rebasing: r[0..<n]), address: address)
      }
    }
    return withUnsafeBytes(of: &bytes) { p in
      let d = counter ? 1 : 0
      let value = RegisterIO.signExtend24(p[d], p[d + 1], p[d + 2])
      var intact = true
      if crc {
        let sum = CRC16.checksum(UnsafeRawBufferPointer(rebasing: p[0..<(d + 3)]))
        intact = sum == UInt16(p[d + 3]) << 8 | UInt16(p[d + 4])
      }
      return Result(value: value, counter: counter ? p[0] : nil, intact: intact)
    }
  }
}
