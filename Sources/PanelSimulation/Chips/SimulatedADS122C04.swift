import PanelFormats
import PanelHardware

/// A register-accurate simulated ADS122C04 (simulator spec in
/// adc-calibration.md): the command decoder (RESET, START/SYNC, POWERDOWN,
/// RDATA, RREG, WREG), four registers reset to 0x00, single-shot and
/// continuous conversions at the normal or turbo rate on the simulated
/// clock (a configuration write restarts a conversion in progress), the
/// DRDY bit and pin (cleared by RDATA), the conversion counter and the
/// CRC-16 or inverted-data trailers, the general-call reset, and the
/// temperature sensor mode. Inputs: AIN0-AIN1 and AIN2-AIN3 are cells of
/// the simulated panel; the shorted input reads the chip's own offset.
///
/// Faults: `isPresent = false` (NACK), `conversionsStuck`, `brownout(at:)`,
/// `inputFault` (every conversion reads its rail code, as does a cell the
/// panel's scenario opens).
public final class SimulatedADS122C04: SimulatedI2CDevice, SimulatedDataReadySource {
  public struct Parameters: Sendable {
    /// Relative error of the 2.048 MHz clock.
    public var oscillatorError = 0.0
    /// The chip's own offset, counts at gain 128.
    public var inputOffset_counts = 0.0
    public init() {}
  }

  public let address: I2CAddress
  public var parameters: Parameters
  let signals: PanelSignals?
  let inputCells: (Int?, Int?)
  /// Inputs when there is no panel (AIN0-AIN1, AIN2-AIN3), counts at gain 128.
  public var fixedInput: (Double, Double) = (0, 0)
  /// Die temperature when there is no panel, °C.
  public var fixedTemperature = 25.0

  // Faults.
  public var isPresent = true
  public var conversionsStuck = false
  /// A fault at the input: every conversion reads its rail code.
  public var inputFault: SimulatedInputFault?

  public private(set) var registers: [UInt8] = [0, 0, 0, 0]
  public private(set) var conversions = 0
  /// The DCNT counter (increments per conversion, wraps).
  public private(set) var counter: UInt8 = 0
  /// Falling edges of the DRDY pin (asserted: low) since power-on.
  public private(set) var drdyEdges = 0
  var result: Int32 = 0
  var nextConversion: Int64?
  var output: [UInt8] = []
  var outputIndex = 0
  var firstByte = true
  var pendingWrite: UInt8?
  var generalCall = false

  public init(
    address: I2CAddress, signals: PanelSignals? = nil, cell: Int? = nil, cell2: Int? = nil,
    parameters: Parameters = Parameters()
  ) {
    self.address = address
    self.signals = signals
    self.inputCells = (cell, cell2)
    self.parameters = parameters
    output.reserveCapacity(8)
  }

  var config0: ADS122C04.Config0 { ADS122C04.Config0(rawValue: registers[0]) }
  var config1: ADS122C04.Config1 { ADS122C04.Config1(rawValue: registers[1]) }
  var config2: ADS122C04.Config2 {
    get { ADS122C04.Config2(rawValue: registers[2]) }
    set { registers[2] = newValue.rawValue }
  }

  /// Conversion period at the current rate and mode.
  public var period_ns: Int64 {
    let sps = ADS122C04.samplesPerSecond(rateCode: config1.rateCode, turbo: config1.turbo)
    return Int64((1e9 / Double(sps) / (1 + parameters.oscillatorError)).rounded())
  }

  /// RESET command, general-call reset or power cycle.
  public func reset() {
    registers = [0, 0, 0, 0]
    nextConversion = nil
    counter = 0
    result = 0
    output.removeAll(keepingCapacity: true)
  }

  /// A supply dip at `ns`: back to power-on state, conversions stopped.
  public func brownout(at ns: Int64) {
    advance(to: ns)
    reset()
  }

  func advance(to t: Int64) {
    guard var next = nextConversion else { return }
    let period = period_ns
    if t >= next + 8 * period, config1.continuous {
      let skip = (t - next) / period - 4
      counter &+= UInt8(truncatingIfNeeded: skip)
      conversions += Int(skip)
      next += skip * period
    }
    while next <= t {
      convert(at: next)
      if config1.continuous {
        next += period
      } else {
        nextConversion = nil
        return
      }
    }
    nextConversion = next
  }

  func convert(at t: Int64) {
    guard !conversionsStuck else { return }
    if config1.temperatureSensor {
      let celsius = signals.map { $0.temperature(at: t).celsius } ?? fixedTemperature
      // 14 bits, 0.03125 °C per LSB, left-justified in the 24-bit result.
      result = Int32((celsius / 0.03125).rounded()) << 10
    } else {
      var input: Double
      switch config0.input {
      case .ain0ain1: input = channel(0, at: t)
      case .ain1ain0: input = -channel(0, at: t)
      case .ain2ain3: input = channel(1, at: t)
      case .ain3ain2: input = -channel(1, at: t)
      default: input = 0
      }
      input += parameters.inputOffset_counts
      let raw = (input * Double(config0.gain.factor) / 128).rounded()
      result = Int32(max(-8_388_608, min(8_388_607, raw)))
      if let fault = inputFault ?? openInput(at: t) { result = fault.code }
    }
    counter &+= 1
    conversions += 1
    if !config2.dataReady && isPresent { drdyEdges += 1 }
    config2.dataReady = true
  }

  /// The panel's scenario opened the bridge of the selected input's cell.
  func openInput(at t: Int64) -> SimulatedInputFault? {
    let cell: Int?
    switch config0.input {
    case .ain0ain1, .ain1ain0: cell = inputCells.0
    case .ain2ain3, .ain3ain2: cell = inputCells.1
    default: cell = nil
    }
    guard let signals, let cell, signals.isOpen(cell: cell, at: t) else { return nil }
    return .openBridge
  }

  func channel(_ k: Int, at t: Int64) -> Double {
    let cell = k == 0 ? inputCells.0 : inputCells.1
    if let signals, let cell { return signals.counts(cell: cell, at: t) }
    return k == 0 ? fixedInput.0 : fixedInput.1
  }

  /// A command byte (or WREG's value byte), effective at `t`.
  func command(_ byte: UInt8, at t: Int64) {
    if let r = pendingWrite {
      pendingWrite = nil
      let old = registers[Int(r)]
      registers[Int(r)] = r == 2 ? (byte & 0x7F) | (registers[2] & 0x80) : byte
      // A configuration write restarts a conversion in progress.
      if nextConversion != nil && old != registers[Int(r)] { nextConversion = t + period_ns }
      return
    }
    switch byte {
    case 0x06, 0x07:
      reset()
    case 0x08, 0x09:
      nextConversion = t + period_ns
    case 0x02, 0x03:
      nextConversion = nil
    case 0x10...0x1F:
      var c = config2
      output.removeAll(keepingCapacity: true)
      if c.counter { output.append(counter) }
      let u = UInt32(bitPattern: result)
      output.append(UInt8(truncatingIfNeeded: u >> 16))
      output.append(UInt8(truncatingIfNeeded: u >> 8))
      output.append(UInt8(truncatingIfNeeded: u))
      appendIntegrity()
      outputIndex = 0
      c.dataReady = false
      config2 = c
    case 0x20...0x2F:
      // Register data carry the integrity check too (ADS1x2C04 datasheet:
      // "output data can be register contents or conversion results"); a
      // host reading one byte simply does not clock the rest.
      output.removeAll(keepingCapacity: true)
      output.append(registers[Int((byte >> 2) & 3)])
      appendIntegrity()
      outputIndex = 0
    case 0x40...0x4F:
      pendingWrite = (byte >> 2) & 3
    default:
      break
    }
  }

  /// The CRC-16 or the inverted copy of what is in `output`, per register 2.
  func appendIntegrity() {
    switch config2.integrity {
    case .crc16:
      let crc = CRC16.checksum(output)
      output.append(UInt8(crc >> 8))
      output.append(UInt8(crc & 0xFF))
    case .inverted:
      for k in output.indices { output.append(~output[k]) }
    case .none:
      break
    }
  }

  // MARK: SimulatedI2CDevice

  public func answers(_ address: I2CAddress) -> Bool {
    address == self.address || address.rawValue == 0
  }

  public func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool {
    guard isPresent else { return false }
    advance(to: ns)
    generalCall = address.rawValue == 0
    if generalCall && reading { return false }
    firstByte = true
    return true
  }

  public func write(_ byte: UInt8, at ns: Int64) -> Bool {
    advance(to: ns)
    if generalCall {
      if byte == 0x06 { reset() }
      return true
    }
    command(byte, at: ns)
    firstByte = false
    return true
  }

  public func read(at ns: Int64) -> UInt8 {
    guard outputIndex < output.count else { return 0xFF }
    defer { outputIndex += 1 }
    return output[outputIndex]
  }

  public func stop(at ns: Int64) {
    advance(to: ns)
    pendingWrite = nil
  }

  // MARK: SimulatedDataReadySource (the DRDY pin, active low)

  public func isDataReady(at ns: Int64) -> Bool {
    advance(to: ns)
    return isPresent && config2.dataReady
  }

  public func dataReadyEdges(at ns: Int64) -> Int {
    advance(to: ns)
    return drdyEdges
  }

  public func nextDataReady(after ns: Int64) -> Int64? {
    advance(to: ns)
    guard isPresent, !conversionsStuck, !config2.dataReady else { return nil }
    return nextConversion
  }
}
