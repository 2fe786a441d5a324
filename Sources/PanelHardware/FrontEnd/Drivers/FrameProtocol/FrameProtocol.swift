/// The panel front-end frame protocol (docs/frame-protocol.md): a panel
/// with its own controller delivers a whole frame per burst read. Register
/// map and frame layout, shared by the driver and the simulated controller.
public enum FrameProtocol {
  /// Register addresses (8-bit pointer, auto-increment).
  public enum Register {
    /// ID: "F", "P", major, minor (4 bytes, read only).
    public static let id: UInt8 = 0x00
    /// CELLS: cells per frame (1 byte, read only).
    public static let cells: UInt8 = 0x04
    /// MAX_RATE: highest frame rate, Hz (2 bytes, big-endian, read only).
    public static let maxRate: UInt8 = 0x05
    /// CTRL: RUN and soft reset (1 byte).
    public static let control: UInt8 = 0x08
    /// RATE: frames per second (2 bytes, big-endian).
    public static let rate: UInt8 = 0x09
    /// STATUS (1 byte, read only).
    public static let status: UInt8 = 0x10
    /// FRAME: the latest complete frame (8 + 3N bytes, read only). A read
    /// with no register write before it starts here.
    public static let frame: UInt8 = 0x20
  }

  public static let magic: (UInt8, UInt8) = (0x46, 0x50)  // "FP"
  public static let version: (major: UInt8, minor: UInt8) = (1, 0)
  /// Temperature field value meaning "not measured".
  public static let noTemperature = Int16.min

  /// Bytes of a frame of `cells` cells: header 6, 3 per cell, CRC 2.
  public static func frameSize(cells: Int) -> Int { 8 + 3 * cells }

  /// CTRL (0x08).
  public struct Control: Register8 {
    public static let address: UInt8 = Register.control
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// RUN: produce frames at RATE.
    public var run: Bool { get { bit(0) } set { setBit(0, newValue) } }
    /// RESET (write only): restart the controller.
    public var reset: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// STATUS (0x10), also byte 2 of every frame.
  public struct Status: Register8 {
    public static let address: UInt8 = Register.status
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// READY: a frame not read yet.
    public var ready: Bool { get { bit(0) } set { setBit(0, newValue) } }
    /// OVERRUN: a frame was replaced unread since the last frame read.
    public var overrun: Bool { get { bit(1) } set { setBit(1, newValue) } }
    /// RESTARTED: the controller restarted (power, brown-out, watchdog)
    /// since CTRL was last written; its configuration is lost.
    public var restarted: Bool { get { bit(2) } set { setBit(2, newValue) } }
    /// CELL_FAULT: a cell's converter failed; the frame's counts are not valid.
    public var cellFault: Bool { get { bit(3) } set { setBit(3, newValue) } }
    /// RUNNING: producing frames.
    public var running: Bool { get { bit(4) } set { setBit(4, newValue) } }
  }

  /// A frame's header, decoded.
  public struct Header: Sendable, Equatable {
    public var sequence: UInt16
    public var status: Status
    public var cells: Int
    /// 1/256 °C; nil when not measured.
    public var temperature: Int16?
  }

  /// Decodes and checks a frame in `bytes` (exactly `frameSize` of its N):
  /// nil when the CRC does not match or N does not fit the length.
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, into counts: (Int, Int32) -> Void
  ) -> Header? {
    guard bytes.count >= 8 else { return nil }
    let n = Int(bytes[3])
    guard bytes.count == frameSize(cells: n) else { return nil }
    let crc = CRC16.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<(6 + 3 * n)]))
    guard crc == UInt16(bytes[6 + 3 * n]) << 8 | UInt16(bytes[7 + 3 * n]) else { return nil }
    let t = Int16(bitPattern: UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
    for k in 0..<n {
      counts(k, RegisterIO.signExtend24(bytes[6 + 3 * k], bytes[7 + 3 * k], bytes[8 + 3 * k]))
    }
    return Header(
      sequence: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), status: Status(rawValue: bytes[2]), cells: n,
      temperature: t == noTemperature ? nil : t)
  }

  /// Encodes a frame into `bytes` (the controller's side).
  public static func encode(
    sequence: UInt16, status: Status, temperature: Int16?, counts: [Int32], into bytes: inout [UInt8]
  ) {
    let n = counts.count
    bytes.removeAll(keepingCapacity: true)
    bytes.append(UInt8(sequence >> 8))
    bytes.append(UInt8(sequence & 0xFF))
    bytes.append(status.rawValue)
    bytes.append(UInt8(n))
    let t = UInt16(bitPattern: temperature ?? noTemperature)
    bytes.append(UInt8(t >> 8))
    bytes.append(UInt8(t & 0xFF))
    for c in counts {
      let u = UInt32(bitPattern: c)
      bytes.append(UInt8(truncatingIfNeeded: u >> 16))
      bytes.append(UInt8(truncatingIfNeeded: u >> 8))
      bytes.append(UInt8(truncatingIfNeeded: u))
    }
    let crc = bytes.withUnsafeBytes { CRC16.checksum($0) }
    bytes.append(UInt8(crc >> 8))
    bytes.append(UInt8(crc & 0xFF))
  }
}

/// Driver of a panel controller speaking the frame protocol, generic over
/// the bus. Every method is one transfer.
public struct FrameController: Sendable, Equatable {
  public let address: I2CAddress

  public init(address: I2CAddress) {
    self.address = address
  }

  /// ID and CELLS and MAX_RATE in one burst from 0x00: (magic ok and
  /// major version, cells, max rate).
  public func identify(on bus: inout some I2CBus) throws(I2CError) -> (isFrameController: Bool, major: UInt8, cells: Int, maxRate: Int) {
    var b: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0)
    try withUnsafeMutableBytes(of: &b) { (p) throws(I2CError) in
      try RegisterIO.read(FrameProtocol.Register.id, into: p, at: address, on: &bus)
    }
    return (b.0 == FrameProtocol.magic.0 && b.1 == FrameProtocol.magic.1, b.2, Int(b.4), Int(b.5) << 8 | Int(b.6))
  }

  /// RATE, then CTRL with RUN (two writes; writing CTRL clears RESTARTED).
  public func start(rate_hz: Int, on bus: inout some I2CBus) throws(I2CError) {
    var rate: (UInt8, UInt8, UInt8) = (FrameProtocol.Register.rate, UInt8(rate_hz >> 8), UInt8(rate_hz & 0xFF))
    try withUnsafeBytes(of: &rate) { (p) throws(I2CError) in try bus.write(p, to: address) }
    var control = FrameProtocol.Control()
    control.run = true
    try RegisterIO.write(FrameProtocol.Control.address, control.rawValue, at: address, on: &bus)
  }

  /// STATUS (one combined transfer).
  public func status(on bus: inout some I2CBus) throws(I2CError) -> FrameProtocol.Status {
    FrameProtocol.Status(rawValue: try RegisterIO.read(FrameProtocol.Register.status, at: address, on: &bus))
  }

  /// The latest frame: one plain read of `buffer.count` bytes (the pointer
  /// rests on FRAME after every STOP).
  public func readFrame(into buffer: UnsafeMutableRawBufferPointer, on bus: inout some I2CBus) throws(I2CError) {
    try bus.read(into: buffer, from: address)
  }
}
