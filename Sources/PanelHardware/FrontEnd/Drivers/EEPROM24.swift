/// Why an EEPROM access failed.
public enum EEPROMError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The range does not fit the memory.
  case outOfRange(offset: Int, count: Int, size: Int)
  /// A transfer failed (after the write-cycle retries).
  case bus(I2CError)
  /// The chip never acknowledged again after a write (ACK polling gave up).
  case writeCycleTimeout(I2CAddress, timeout_us: Int64)

  public var description: String {
    switch self {
    case .outOfRange(let o, let c, let s): return "\(c) bytes at offset \(o) do not fit the EEPROM's \(s) bytes"
    case .bus(let e): return "EEPROM: \(e)"
    case .writeCycleTimeout(let a, let t):
      return "EEPROM at \(a) still busy \(t / 1000) ms after a write (no acknowledge)"
    }
  }
}

/// Driver of 24C02 / 24C32 serial EEPROMs (Microchip/Atmel AT24C02, 24LC32A),
/// generic over the bus.
///
/// - Reads: write the word address, repeated START, sequential read.
/// - Writes: split at page boundaries (a write running past the end of a
///   page would wrap to the page's start); each page is one transfer, after
///   which the chip programs it for tWR (at most 5 ms) and does not
///   acknowledge its address. The driver ACK-polls (an empty write, i.e.
///   START, address+W, STOP) until the chip answers or `writeCycleTimeout_us`
///   passes, and retries a page whose address was not acknowledged because
///   an earlier cycle was still running.
public struct EEPROM24: Sendable, Equatable {
  /// The parts this driver knows.
  public enum Kind: String, Sendable, CaseIterable {
    /// 256 x 8, one address byte, 8-byte pages.
    case c02 = "24c02"
    /// 4096 x 8, two address bytes, 32-byte pages.
    case c32 = "24c32"

    public var size: Int { self == .c02 ? 256 : 4096 }
    public var pageSize: Int { self == .c02 ? 8 : 32 }
    public var addressBytes: Int { self == .c02 ? 1 : 2 }
    /// "24C32".
    public var name: String { rawValue.uppercased() }
  }

  public let kind: Kind
  /// 0x50...0x57 (pins A2..A0).
  public let address: I2CAddress
  public static let addresses: ClosedRange<UInt8> = 0x50...0x57
  /// How long ACK polling waits for a write cycle (tWR is at most 5 ms).
  public var writeCycleTimeout_us: Int64 = 20_000

  public init(kind: Kind, address: I2CAddress = 0x50) {
    self.kind = kind
    self.address = address
  }

  public var size: Int { kind.size }

  /// Reads `buffer.count` bytes from `offset`: one combined transfer.
  public func read(
    at offset: Int, into buffer: UnsafeMutableRawBufferPointer, on bus: inout some I2CBus
  ) throws(EEPROMError) {
    try check(offset, buffer.count)
    guard buffer.count > 0 else { return }
    var word = wordAddress(offset)
    do throws(I2CError) {
      try withUnsafeBytes(of: &word) { (p) throws(I2CError) in
        try bus.writeRead(UnsafeRawBufferPointer(rebasing: p[0..<kind.addressBytes]), into: buffer, address: address)
      }
    } catch {
      throw .bus(error)
    }
  }

  /// Writes `bytes` at `offset`, page by page, each page followed by ACK
  /// polling, so the data are programmed when this returns.
  public func write(
    _ bytes: UnsafeRawBufferPointer, at offset: Int, on bus: inout some I2CBus,
    clock: inout some MonotonicClock
  ) throws(EEPROMError) {
    try check(offset, bytes.count)
    var done = 0
    while done < bytes.count {
      let at = offset + done
      let count = min(kind.pageSize - at % kind.pageSize, bytes.count - done)
      try writePage(UnsafeRawBufferPointer(rebasing: bytes[done..<(done + count)]), at: at, on: &bus, clock: &clock)
      done += count
    }
  }

  /// Polls until the chip acknowledges its address (its write cycle is over).
  public func waitUntilReady(on bus: inout some I2CBus, clock: inout some MonotonicClock) throws(EEPROMError) {
    let deadline = clock.now_us() + writeCycleTimeout_us
    while true {
      do throws(I2CError) {
        try bus.write(UnsafeRawBufferPointer(start: nil, count: 0), to: address)
        return
      } catch .nack {
        if clock.now_us() >= deadline { throw .writeCycleTimeout(address, timeout_us: writeCycleTimeout_us) }
        clock.sleep(us: 100)
      } catch {
        throw .bus(error)
      }
    }
  }

  /// One page (or part of one): address bytes then data, one transfer.
  func writePage(
    _ data: UnsafeRawBufferPointer, at offset: Int, on bus: inout some I2CBus,
    clock: inout some MonotonicClock
  ) throws(EEPROMError) {
    let n = kind.addressBytes
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n + kind.pageSize) { (storage) throws(EEPROMError) in
      var word = wordAddress(offset)
      withUnsafeBytes(of: &word) { for i in 0..<n { storage[i] = $0[i] } }
      for i in 0..<data.count { storage[n + i] = data[i] }
      let message = UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(storage)[0..<(n + data.count)])
      var busyRetried = false
      while true {
        do throws(I2CError) {
          try bus.write(message, to: address)
          break
        } catch .nack where !busyRetried {
          // An earlier write cycle may still be running: wait it out once.
          busyRetried = true
          try waitUntilReady(on: &bus, clock: &clock)
        } catch {
          throw .bus(error)
        }
      }
      try waitUntilReady(on: &bus, clock: &clock)
    }
  }

  /// The word address as sent, most significant byte first.
  func wordAddress(_ offset: Int) -> (UInt8, UInt8) {
    kind.addressBytes == 1 ? (UInt8(offset & 0xFF), 0) : (UInt8((offset >> 8) & 0x0F), UInt8(offset & 0xFF))
  }

  func check(_ offset: Int, _ count: Int) throws(EEPROMError) {
    if offset < 0 || count < 0 || offset + count > kind.size {
      throw .outOfRange(offset: offset, count: count, size: kind.size)
    }
  }
}

extension EEPROM24 {
  /// Reads `count` bytes from `offset` into a new array.
  public func read(at offset: Int, count: Int, on bus: inout some I2CBus) throws(EEPROMError) -> [UInt8] {
    try check(offset, count)
    var bytes = [UInt8](repeating: 0, count: count)
    try bytes.withUnsafeMutableBytes { p in
      Result { () throws(EEPROMError) in try read(at: offset, into: p, on: &bus) }
    }.get()
    return bytes
  }

  /// Writes `bytes` at `offset` (see `write(_:at:on:clock:)`).
  public func write(
    _ bytes: [UInt8], at offset: Int, on bus: inout some I2CBus, clock: inout some MonotonicClock
  ) throws(EEPROMError) {
    try bytes.withUnsafeBytes { p in
      Result { () throws(EEPROMError) in try write(p, at: offset, on: &bus, clock: &clock) }
    }.get()
  }
}
