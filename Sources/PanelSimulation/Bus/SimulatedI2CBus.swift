import PanelHardware

/// A simulated I2C bus: the same `I2CBus` protocol as the Linux i2c-dev bus,
/// served by register-accurate simulated chips instead of silicon.
///
/// - Devices attach to the main segment or, through a simulated TCA9548A,
///   to its downstream channels; a transfer reaches every device at its
///   address on an enabled segment. Several devices at one address get a
///   write all at once (broadcast) and drive a read together (wired-AND: a
///   0 bit wins). Nobody acknowledging is a NACK.
/// - Every transfer advances the simulated clock by what `timing` says it
///   costs (host overhead, bits on the wire, tBUF), and chips see each
///   byte at its time on the wire.
/// - `isTracing` records every transfer as an `I2CTransferEvent`.
/// - `inject` adds faults: NACKs, timeouts, bus errors, corrupted reads.
///
/// Nothing here allocates per transfer unless tracing is on.
public final class SimulatedI2CBus: I2CBus {
  /// Counters of what went over the bus.
  public struct Statistics: Sendable, Equatable {
    public var transfers: UInt64 = 0
    public var nacks: UInt64 = 0
    public var faults: UInt64 = 0
    /// Bit times on the wire, summed.
    public var bitTimes: UInt64 = 0
    /// Simulated time spent in transfers (overhead, wire, tBUF), ns.
    public var busy_ns: Int64 = 0
  }

  /// How messages name the bus ("sim").
  public let name: String
  public let clock: SimulatedClock
  public var timing: I2CBusTiming
  public var modelledTiming: I2CBusTiming? { timing }
  /// The main segment (devices wired directly to the adapter).
  public let segment: SimulatedI2CSegment
  /// How long the adapter waits for a stuck bus before reporting a
  /// timeout, ns.
  public var timeout_ns: Int64 = 25_000_000
  /// Record every transfer in `trace`.
  public var isTracing = false
  public private(set) var trace: [I2CTransferEvent] = []
  public private(set) var statistics = Statistics()
  var faults: [I2CFaultRule] = []
  var targets: [any SimulatedI2CDevice] = []
  var acknowledged: [Bool] = []

  public init(name: String = "sim", clock: SimulatedClock = SimulatedClock(), timing: I2CBusTiming = I2CBusTiming(khz: 400)) {
    self.name = name
    self.clock = clock
    self.timing = timing
    segment = SimulatedI2CSegment(name: name)
    targets.reserveCapacity(16)
    acknowledged.reserveCapacity(16)
  }

  /// Wires `device` to the main segment.
  public func attach(_ device: any SimulatedI2CDevice) {
    segment.attach(device)
  }

  /// Makes the next `count` transfers to `address` (nil: any) fail with
  /// `fault`, after letting `after` of them through. `count: .max` = always.
  /// Every rule counts every transfer it matches; when two would fire on
  /// one transfer the one injected first wins.
  public func inject(_ fault: I2CFault, at address: I2CAddress? = nil, after: Int = 0, count: Int = 1) {
    faults.append(I2CFaultRule(fault: fault, address: address, skip: after, remaining: count))
  }

  public func clearFaults() { faults.removeAll() }

  public func clearTrace() { trace.removeAll() }

  // MARK: I2CBus

  public func write(_ bytes: UnsafeRawBufferPointer, to address: I2CAddress) throws(I2CError) {
    try transfer(address, writing: bytes, reading: nil)
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer, from address: I2CAddress) throws(I2CError) {
    try transfer(address, writing: nil, reading: buffer)
  }

  public func writeRead(
    _ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, address: I2CAddress
  ) throws(I2CError) {
    try transfer(address, writing: bytes, reading: buffer)
  }

  // MARK: The wire

  /// One transfer: [START addr+W bytes] [Sr] [addr+R bytes] STOP.
  func transfer(
    _ address: I2CAddress, writing: UnsafeRawBufferPointer?, reading: UnsafeMutableRawBufferPointer?
  ) throws(I2CError) {
    statistics.transfers += 1
    clock.advance(by: timing.hostOverhead_ns)
    let t0 = clock.now_ns
    var fault: I2CFault?
    for i in faults.indices {
      // Every rule counts the transfer; the first that fires decides.
      if let f = faults[i].take(address), fault == nil { fault = f }
    }
    switch fault {
    case .nack?:
      statistics.faults += 1
      finish(t0, bits: I2CBusTiming.bitTimesOfNack, stopping: false)
      record(.nack(address))
      statistics.nacks += 1
      throw .nack(address)
    case .timeout?:
      statistics.faults += 1
      clock.advance(by: timeout_ns)
      statistics.busy_ns += timeout_ns
      record(.timeout(address))
      throw .timeout(address)
    case .busError(let errno)?:
      statistics.faults += 1
      finish(t0, bits: I2CBusTiming.bitTimesOfNack, stopping: false)
      record(.busError(address))
      throw .bus(address, errno: errno)
    default:
      break
    }

    resolve(address)
    var bits = 1  // START
    var ok = true
    if writing != nil || reading == nil {
      bits += 9
      ok = begin(address, reading: false, at: t0 + timing.wire_ns(bitTimes: bits))
      if ok, let bytes = writing {
        for byte in bytes {
          bits += 9
          let t = t0 + timing.wire_ns(bitTimes: bits)
          var any = false
          for i in targets.indices where acknowledged[i] {
            if targets[i].write(byte, at: t) { any = true }
          }
          if !any {
            ok = false
            break
          }
        }
      }
      if ok && reading != nil { bits += 1 }  // repeated START
    }
    if ok, let buffer = reading {
      bits += 9
      ok = begin(address, reading: true, at: t0 + timing.wire_ns(bitTimes: bits))
      if ok {
        for k in 0..<buffer.count {
          bits += 9
          let t = t0 + timing.wire_ns(bitTimes: bits)
          var byte: UInt8 = 0xFF
          for i in targets.indices where acknowledged[i] { byte &= targets[i].read(at: t) }
          if case .corruptRead(let index, let mask)? = fault, index == k {
            byte ^= mask
            statistics.faults += 1
          }
          buffer[k] = byte
        }
      }
    }
    bits += 1  // STOP
    let end = t0 + timing.wire_ns(bitTimes: bits)
    for device in targets { device.stop(at: end) }
    finish(t0, bits: bits, stopping: true)
    guard ok else {
      statistics.nacks += 1
      record(.nack(address))
      throw .nack(address)
    }
    if isTracing {
      switch (writing, reading) {
      case (let w?, let r?): trace.append(.writeRead(address, Array(w), Array(r)))
      case (_, let r?): trace.append(.read(address, Array(r)))
      case (let w, nil): trace.append(.write(address, w.map { Array($0) } ?? []))
      }
    }
  }

  /// Every device the address reaches: on the main segment and on each
  /// enabled channel downstream of a switch, recursively.
  func resolve(_ address: I2CAddress) {
    targets.removeAll(keepingCapacity: true)
    collect(address, on: segment)
    acknowledged.removeAll(keepingCapacity: true)
    for _ in targets { acknowledged.append(false) }
  }

  func collect(_ address: I2CAddress, on segment: SimulatedI2CSegment) {
    for device in segment.devices {
      if device.answers(address) { targets.append(device) }
      device.forEachEnabledSegment { collect(address, on: $0) }
    }
  }

  /// Addresses every target; true when at least one acknowledged.
  func begin(_ address: I2CAddress, reading: Bool, at t: Int64) -> Bool {
    var any = false
    for i in targets.indices {
      acknowledged[i] = targets[i].start(address, reading: reading, at: t)
      if acknowledged[i] { any = true }
    }
    return any
  }

  func finish(_ t0: Int64, bits: Int, stopping: Bool) {
    statistics.bitTimes += UInt64(bits)
    let wire = timing.wire_ns(bitTimes: bits)
    clock.advance(to: t0 + wire + timing.tBUF_ns)
    statistics.busy_ns += timing.hostOverhead_ns + wire + timing.tBUF_ns
    // A paced clock keeps a bus-bound front end in real time too.
    if clock.speed > 0 { clock.pace() }
  }

  func record(_ event: I2CTransferEvent) {
    if isTracing { trace.append(event) }
  }
}
