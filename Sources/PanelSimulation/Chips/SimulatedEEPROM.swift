import PanelHardware

/// A simulated 24C02 or 24C32 serial EEPROM.
///
/// - Write transfer: the word address (1 byte, or 2 with the top 4 bits
///   ignored), then data into the page latch; the address counter wraps
///   within the page, so bytes past the page's end overwrite its start.
///   The STOP starts the write cycle: the latched bytes are programmed over
///   `writeCycle_ns` and the chip acknowledges nothing meanwhile.
/// - A write of the word address alone (no data) only sets the pointer.
/// - Read: sequential from the pointer, wrapping at the end of memory.
/// - Power loss: `cutPower(afterDataBytes:)` drops power as the next write's
///   n+1-th data byte arrives (that page is never programmed); `cutPower(at:)`
///   during a write cycle leaves the page partly programmed, the byte being
///   programmed corrupted; `cutPower(programmingByte:)` does that while the
///   coming writes' n-th data byte is being programmed. Unpowered, the chip
///   acknowledges nothing.
public final class SimulatedEEPROM: SimulatedI2CDevice {
  public let address: I2CAddress
  public let kind: EEPROM24.Kind
  /// The memory; erased = 0xFF.
  public private(set) var memory: [UInt8]
  /// tWR, ns.
  public var writeCycle_ns: Int64 = 5_000_000
  public private(set) var isPowered = true
  /// Page writes programmed so far.
  public private(set) var pageWrites = 0

  var pointer = 0
  var addressBytesSeen = 0
  var wordAddress = 0
  var writing = false
  /// The page latch: the page's base and which of its bytes were written.
  var latchBase = 0
  var latch: [UInt8]
  var latched: [Bool]
  var latchCount = 0
  /// Order the latched offsets were first written in.
  var cycleStart_ns: Int64 = 0
  var busyUntil_ns: Int64 = .min
  var cyclePending = false
  var powerCutCountdown: Int?
  /// Data bytes still to be programmed before power goes (mid-cycle).
  var programmingCutCountdown: Int?

  public init(kind: EEPROM24.Kind, address: I2CAddress = 0x50, contents: [UInt8]? = nil) {
    self.kind = kind
    self.address = address
    memory = [UInt8](repeating: 0xFF, count: kind.size)
    if let contents { for (i, b) in contents.prefix(kind.size).enumerated() { memory[i] = b } }
    latch = [UInt8](repeating: 0, count: kind.pageSize)
    latched = [Bool](repeating: false, count: kind.pageSize)
  }

  /// Loses power when the `n+1`-th data byte of the coming writes arrives.
  public func cutPower(afterDataBytes n: Int) {
    powerCutCountdown = n
  }

  /// Loses power while the coming writes' `n`-th data byte (from 0) is
  /// being programmed: its page keeps the bytes before it (in address
  /// order), that byte is corrupted, the rest of the page is not written.
  public func cutPower(programmingByte n: Int) {
    programmingCutCountdown = n
  }

  /// Loses power at `ns`: a write cycle then running programs only part of
  /// its page, in address order, and corrupts the byte it was on.
  public func cutPower(at ns: Int64) {
    if cyclePending && ns < busyUntil_ns {
      let fraction = Double(ns - cycleStart_ns) / Double(writeCycle_ns)
      let total = latchCount
      let programmed = Int(Double(total) * fraction)
      var k = 0
      for i in 0..<kind.pageSize where latched[i] {
        if k < programmed {
          memory[latchBase + i] = latch[i]
        } else if k == programmed {
          memory[latchBase + i] = latch[i] ^ 0xA5
        }
        k += 1
      }
      cyclePending = false
      busyUntil_ns = .min
    } else {
      settle(at: ns)
    }
    isPowered = false
    dropLatch()
  }

  public func restorePower() {
    isPowered = true
    powerCutCountdown = nil
    programmingCutCountdown = nil
    writing = false
  }

  /// Finishes a write cycle whose time is up.
  func settle(at ns: Int64) {
    guard cyclePending, ns >= busyUntil_ns else { return }
    for i in 0..<kind.pageSize where latched[i] { memory[latchBase + i] = latch[i] }
    cyclePending = false
    pageWrites += 1
    dropLatch()
  }

  func dropLatch() {
    for i in 0..<kind.pageSize { latched[i] = false }
    latchCount = 0
  }

  /// Busy programming at `ns`.
  public func isBusy(at ns: Int64) -> Bool {
    settle(at: ns)
    return cyclePending
  }

  public func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool {
    guard isPowered else { return false }
    settle(at: ns)
    if cyclePending { return false }
    writing = !reading
    if writing {
      addressBytesSeen = 0
      wordAddress = 0
      dropLatch()
    }
    return true
  }

  public func write(_ byte: UInt8, at ns: Int64) -> Bool {
    guard isPowered, writing else { return false }
    if addressBytesSeen < kind.addressBytes {
      wordAddress = (wordAddress << 8) | Int(byte)
      addressBytesSeen += 1
      if addressBytesSeen == kind.addressBytes {
        pointer = wordAddress & (kind.size - 1)
        latchBase = pointer - pointer % kind.pageSize
      }
      return true
    }
    if let n = powerCutCountdown {
      if n == 0 {
        isPowered = false
        powerCutCountdown = nil
        dropLatch()
        return false
      }
      powerCutCountdown = n - 1
    }
    let i = pointer - latchBase
    if !latched[i] { latchCount += 1 }
    latch[i] = byte
    latched[i] = true
    pointer = latchBase + (i + 1) % kind.pageSize
    return true
  }

  public func read(at ns: Int64) -> UInt8 {
    guard isPowered else { return 0xFF }
    let byte = memory[pointer]
    pointer = (pointer + 1) % kind.size
    return byte
  }

  public func stop(at ns: Int64) {
    guard isPowered, writing else { return }
    writing = false
    if latchCount > 0 {
      cyclePending = true
      cycleStart_ns = ns
      busyUntil_ns = ns + writeCycle_ns
      if let n = programmingCutCountdown {
        if n < latchCount {
          programmingCutCountdown = nil
          cutPower(at: ns + Int64((Double(n) + 0.5) / Double(latchCount) * Double(writeCycle_ns)))
        } else {
          programmingCutCountdown = n - latchCount
        }
      }
    }
  }
}
