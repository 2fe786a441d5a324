import ForceCore
import PanelFormats
import PanelHardware

/// A simulated panel controller speaking the frame protocol
/// (docs/frame-protocol.md): it converts every cell of the simulated panel
/// at its frame rate on the simulated clock, keeps the latest complete
/// frame (latched when a read starts, so a read never mixes two frames),
/// counts frames in the sequence, sets READY, OVERRUN, RESTARTED,
/// CELL_FAULT and RUNNING, and asserts its DRDY pin while READY (an edge
/// per frame that finds it released).
public final class SimulatedFrameController: SimulatedI2CDevice, SimulatedDataReadySource {
  public let address: I2CAddress
  let signals: PanelSignals?
  public let cellCount: Int
  /// Relative error of the controller's frame clock.
  public var oscillatorError = 0.0
  public var maxRate_hz = 2000
  /// Cells when there is no panel (tests), counts.
  public var fixedCounts: [Int32]

  // Faults.
  public var isPresent = true
  /// Set CELL_FAULT in every frame.
  public var cellFault = false
  public var framesStuck = false

  public private(set) var sequence: UInt16 = 0
  public private(set) var status = FrameProtocol.Status()
  public private(set) var rate_hz = 100
  public private(set) var framesProduced = 0
  /// Edges of the DRDY pin (READY rising) since power-on.
  public private(set) var drdyEdges = 0
  var registers = [UInt8](repeating: 0, count: 0x20)
  var nextFrame: Int64?
  var latest: [UInt8] = []
  var latched: [UInt8] = []
  var counts: [Int32]
  var pointer = Int(FrameProtocol.Register.frame)
  var expectPointer = false
  var readIndex = 0
  var readingFrame = false

  public init(address: I2CAddress = 0x28, signals: PanelSignals?, cellCount: Int) {
    self.address = address
    self.signals = signals
    self.cellCount = cellCount
    fixedCounts = Array(repeating: 0, count: cellCount)
    counts = fixedCounts
    latest.reserveCapacity(FrameProtocol.frameSize(cells: cellCount))
    latched.reserveCapacity(FrameProtocol.frameSize(cells: cellCount))
    powerOn()
  }

  /// Power-on: not running, 100 Hz, RESTARTED, no frame yet.
  func powerOn() {
    status = FrameProtocol.Status()
    status.restarted = true
    rate_hz = 100
    nextFrame = nil
    sequence = 0
    FrameProtocol.encode(sequence: 0, status: status, temperature: nil, counts: fixedCounts.map { _ in 0 }, into: &latest)
    refreshRegisters()
  }

  /// A supply dip at `ns`: the controller restarts and forgets its setup.
  public func brownout(at ns: Int64) {
    advance(to: ns)
    powerOn()
  }

  var period_ns: Int64 { Int64((1e9 / Double(max(rate_hz, 1)) / (1 + oscillatorError)).rounded()) }

  func refreshRegisters() {
    registers[0] = FrameProtocol.magic.0
    registers[1] = FrameProtocol.magic.1
    registers[2] = FrameProtocol.version.major
    registers[3] = FrameProtocol.version.minor
    registers[4] = UInt8(cellCount)
    registers[5] = UInt8(maxRate_hz >> 8)
    registers[6] = UInt8(maxRate_hz & 0xFF)
    var c = FrameProtocol.Control()
    c.run = status.running
    registers[8] = c.rawValue
    registers[9] = UInt8(rate_hz >> 8)
    registers[10] = UInt8(rate_hz & 0xFF)
    registers[0x10] = status.rawValue
  }

  func advance(to t: Int64) {
    guard var next = nextFrame, !framesStuck else { return }
    let period = period_ns
    if t >= next + 8 * period {
      let skip = (t - next) / period - 2
      sequence &+= UInt16(truncatingIfNeeded: skip)
      framesProduced += Int(skip)
      status.overrun = true
      next += skip * period
    }
    while next <= t {
      produce(at: next)
      next += period
    }
    nextFrame = next
  }

  func produce(at t: Int64) {
    for k in 0..<cellCount {
      if let signals {
        let c = signals.counts(cell: k, at: t)
        counts[k] = Int32(max(Double(RawCounts.min), min(Double(RawCounts.max), c.rounded())))
      } else {
        counts[k] = fixedCounts[k]
      }
    }
    let temperature = signals.map { Int16(clamping: $0.temperature(at: t).rawValue) }
    sequence &+= 1
    framesProduced += 1
    if status.ready { status.overrun = true }
    if !status.ready && isPresent { drdyEdges += 1 }
    status.ready = true
    status.cellFault = cellFault
    FrameProtocol.encode(sequence: sequence, status: status, temperature: temperature, counts: counts, into: &latest)
    registers[0x10] = status.rawValue
  }

  func writeRegister(_ r: Int, _ value: UInt8, at t: Int64) {
    switch r {
    case 0x08:
      let c = FrameProtocol.Control(rawValue: value)
      if c.reset {
        powerOn()
        return
      }
      status.restarted = false
      if c.run && !status.running { nextFrame = t + period_ns }
      if !c.run { nextFrame = nil }
      status.running = c.run
    case 0x09:
      registers[9] = value  // the high byte waits for the low one
      return
    case 0x0A:
      rate_hz = max(1, min(maxRate_hz, Int(registers[9]) << 8 | Int(value)))
      if status.running { nextFrame = t + period_ns }
    default:
      break
    }
    refreshRegisters()
  }

  // MARK: SimulatedI2CDevice

  public func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool {
    guard isPresent else { return false }
    advance(to: ns)
    expectPointer = !reading
    readIndex = 0
    readingFrame = reading && pointer == Int(FrameProtocol.Register.frame)
    if readingFrame {
      // Latch the latest frame with the status as it is now.
      latched.removeAll(keepingCapacity: true)
      latched.append(contentsOf: latest)
      latched[2] = status.rawValue
      let n = cellCount
      let crc = latched.withUnsafeBytes { CRC16.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<(6 + 3 * n)])) }
      latched[6 + 3 * n] = UInt8(crc >> 8)
      latched[7 + 3 * n] = UInt8(crc & 0xFF)
      status.ready = false
      status.overrun = false
      registers[0x10] = status.rawValue
    }
    return true
  }

  public func write(_ byte: UInt8, at ns: Int64) -> Bool {
    if expectPointer {
      pointer = Int(byte)
      expectPointer = false
    } else {
      if pointer < registers.count { writeRegister(pointer, byte, at: ns) }
      pointer += 1
    }
    return true
  }

  public func read(at ns: Int64) -> UInt8 {
    if readingFrame {
      defer { readIndex += 1 }
      return readIndex < latched.count ? latched[readIndex] : 0xFF
    }
    defer { pointer += 1 }
    return pointer < registers.count ? registers[pointer] : 0xFF
  }

  public func stop(at ns: Int64) {
    advance(to: ns)
    pointer = Int(FrameProtocol.Register.frame)
    readingFrame = false
  }

  // MARK: SimulatedDataReadySource

  public func isDataReady(at ns: Int64) -> Bool {
    advance(to: ns)
    return isPresent && status.ready
  }

  public func dataReadyEdges(at ns: Int64) -> Int {
    advance(to: ns)
    return drdyEdges
  }

  public func nextDataReady(after ns: Int64) -> Int64? {
    advance(to: ns)
    guard isPresent, !framesStuck, !status.ready else { return nil }
    return nextFrame
  }
}
