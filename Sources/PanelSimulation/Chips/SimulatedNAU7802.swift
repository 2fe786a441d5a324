import PanelFormats
import PanelHardware

/// A register-accurate simulated NAU7802 (simulator spec in
/// adc-calibration.md): a 32-byte register file with the chip's reset
/// values and auto-increment, the power-up sequence (PUR about 200 µs after
/// PUD), conversions on the simulated clock only while PUD, PUA and CS are
/// set (restarted by a CS rising edge and by gain, rate or channel writes,
/// then settling over a few conversions), CR and the DRDY pin with its
/// edges, the AFE calibration engine (CALS busy, OCAL/GCAL, sticky
/// CAL_ERR; a calibration started before the LDO and analog front end
/// settled measures the settling error into OCAL) and the output
/// `clamp24(GCAL/2^23 * (raw - OCAL))`. Its inputs are cells of the
/// simulated panel (`PanelSignals`) or fixed values.
///
/// Faults: `isPresent = false` (NACK), `powerUpNeverReady`,
/// `failCalibration`, `conversionsStuck` (CR never sets), `brownout(at:)`,
/// `inputFault` (an open bridge: every conversion reads the rail, as does
/// a cell the panel's scenario opens), `Parameters.clearReadyOnRead`
/// (CR stays set) and `Parameters.drdyStaysHigh` (no DRDY edges above
/// 40 SPS).
public final class SimulatedNAU7802: SimulatedI2CDevice, SimulatedDataReadySource {
  /// Behaviour that differs between parts or that tests adjust.
  public struct Parameters: Sendable {
    /// GCAL1/GCAL2 after reset (the datasheet's text says 0, the format
    /// says 1.0 = 0x00800000; configurable until checked on silicon).
    public var gcalReset: UInt32 = 0x0080_0000
    /// PUD -> PUR.
    public var powerUpReady_ns: Int64 = 200_000
    /// PUA -> valid conversions (LDO and analog front end settled).
    public var analogSettle_ns: Int64 = 250_000_000
    /// CALS busy time.
    public var calibration_ns: Int64 = 344_000_000
    /// Relative error of the conversion clock (+0.01 = 1 % fast).
    public var oscillatorError = 0.0
    /// The chip's own input offset, counts at gain 128 (what an internal
    /// offset calibration measures and removes).
    public var inputOffset_counts = 0.0
    /// Conversions to settle after a restart (first order).
    public var settlingConversions = 5
    /// CR clears when ADCO is read (else it stays set once set, and the
    /// DRDY pin with it).
    public var clearReadyOnRead = true
    /// Above 40 SPS the DRDY pin stays high between conversions (Linux
    /// nau7802.c: "the interrupt line may stay high between conversions",
    /// hence its level interrupt): it rises once and gives no more edges,
    /// while CR still marks each conversion and clears when it is read.
    public var drdyStaysHigh = false
    public init() {}
  }

  public let address: I2CAddress = NAU7802.address
  public var parameters: Parameters
  /// Where the two input channels come from.
  let signals: PanelSignals?
  let inputCells: (Int?, Int?)
  /// Inputs when there is no panel, counts at gain 128 (tests).
  public var fixedInput: (Double, Double) = (0, 0)

  // Faults.
  public var isPresent = true
  public var powerUpNeverReady = false
  public var failCalibration = false
  public var conversionsStuck = false
  /// A fault at the input: every conversion reads its rail code.
  public var inputFault: SimulatedInputFault?
  /// Added to the next conversion's input, once (counts at gain 128): an
  /// impulse at the bridge (ESD, a relay nearby), one sample long.
  public var inputSpike_counts: Double?
  /// Whether the conversion that carried the last spike was read (ADCO)
  /// before the next one overwrote it; nil until it converts. A spike on a
  /// conversion nobody reads never reaches the panel.
  public private(set) var spikeRead: Bool?
  /// The result in ADCO carries a spike.
  var resultSpiked = false
  /// The data-ready pin stops moving (a broken trace, a GPIO that stopped
  /// reporting edges): it stays released and gives no edge; the chip
  /// converts as ever. The edges missed are not delivered afterwards.
  public var pinStopped = false {
    didSet {
      guard pinStopped != oldValue else { return }
      if pinStopped {
        pinEdgesHeld = drdyEdges - pinEdgesSkipped
      } else {
        pinEdgesSkipped = drdyEdges - pinEdgesHeld
      }
    }
  }
  var pinEdgesHeld = 0
  var pinEdgesSkipped = 0

  /// The register file.
  public private(set) var registers = [UInt8](repeating: 0, count: 32)
  /// Conversions completed since power-on (or the last brownout).
  public private(set) var conversions = 0
  /// Conversions overwritten before they were read.
  public private(set) var overruns = 0
  /// Rising edges of the DRDY pin since power-on.
  public private(set) var drdyEdges = 0
  /// CTRL1.VLDO's voltage when AVDDS last switched the internal LDO on:
  /// what AVDD (the bridge's excitation) came up at.
  public private(set) var ldoSwitchedOn_mV: Int?
  /// The DRDY pin (DRDY_SEL = 0, CRP = 0): asserted = high.
  var drdy = false
  var calibrationStarted: Int64 = 0
  var pointer = 0
  var expectPointer = false
  var powerUpReadyAt: Int64?
  var analogOnAt: Int64?
  var nextConversion: Int64?
  var calibrationEnds: Int64?
  var settleRemaining = 0
  var settled = 0.0
  var unread = false
  var now: Int64 = 0

  /// A chip whose channel 1 (and 2) are cells of `signals`.
  public init(signals: PanelSignals?, cell: Int?, cell2: Int? = nil, parameters: Parameters = Parameters()) {
    self.signals = signals
    self.inputCells = (cell, cell2)
    self.parameters = parameters
    powerOn()
  }

  /// A chip with fixed inputs (`fixedInput`).
  public convenience init(parameters: Parameters = Parameters()) {
    self.init(signals: nil, cell: nil, parameters: parameters)
  }

  /// Power-on reset values.
  func powerOn() {
    for i in registers.indices { registers[i] = 0 }
    store32(parameters.gcalReset, at: 0x06)
    store32(parameters.gcalReset, at: 0x0D)
    registers[0x1F] = 0x0F
    powerUpReadyAt = nil
    analogOnAt = nil
    nextConversion = nil
    calibrationEnds = nil
    settleRemaining = 0
    settled = 0
    unread = false
    drdy = false
  }

  /// A supply dip that resets the chip at `ns`: every register back to its
  /// power-on value, conversions stopped.
  public func brownout(at ns: Int64) {
    advance(to: ns)
    powerOn()
    conversions = 0
  }

  // MARK: Registers as types

  var puCtrl: NAU7802.PUCtrl {
    get { NAU7802.PUCtrl(rawValue: registers[0]) }
    set { registers[0] = newValue.rawValue }
  }
  var ctrl1: NAU7802.Ctrl1 { NAU7802.Ctrl1(rawValue: registers[1]) }
  var ctrl2: NAU7802.Ctrl2 {
    get { NAU7802.Ctrl2(rawValue: registers[2]) }
    set { registers[2] = newValue.rawValue }
  }

  /// Conversion period at the current rate, with the clock's error.
  public var period_ns: Int64 {
    Int64((1e9 / Double(ctrl2.rate.samplesPerSecond) / (1 + parameters.oscillatorError)).rounded())
  }

  var isConverting: Bool {
    let p = puCtrl
    return p.powerUpDigital && p.powerUpAnalog && p.cycleStart && p.powerUpReady && !p.registerReset
      && calibrationEnds == nil
  }

  // MARK: Time

  /// Brings the chip up to `t`: PUR, calibration end, conversions due.
  func advance(to t: Int64) {
    if t > now { now = t }
    if let at = powerUpReadyAt, t >= at {
      puCtrl.powerUpReady = true
      powerUpReadyAt = nil
      if puCtrl.cycleStart { restart(at: at) }
    }
    if let end = calibrationEnds, t >= end {
      finishCalibration(at: end)
    }
    guard isConverting, var next = nextConversion else { return }
    let period = period_ns
    if t >= next + 8 * period {
      // Long unattended: skip ahead, keeping the last few conversions.
      let skip = (t - next) / period - 4
      overruns += Int(skip)
      conversions += Int(skip)
      settleRemaining = max(0, settleRemaining - Int(skip))
      next += skip * period
    }
    while next <= t {
      convert(at: next)
      next += period
    }
    nextConversion = next
  }

  /// Moves the conversion cycle on by `ns` at `t` (less than a period):
  /// the chip converts at other instants from then on, as after a
  /// restart, without the restart (`FaultSoak.placebo`).
  package func shiftPhase(at t: Int64, by ns: Int64) {
    advance(to: t)
    if let next = nextConversion { nextConversion = next + ns }
  }

  /// Restarts the conversion cycle at `t` (CS edge, configuration change).
  func restart(at t: Int64) {
    nextConversion = t + period_ns
    settleRemaining = parameters.settlingConversions
  }

  func convert(at t: Int64) {
    guard !conversionsStuck else { return }
    let gain = Double(ctrl1.gain.factor)
    let i2c = NAU7802.I2CCtrl(rawValue: registers[0x11])
    var input: Double
    if i2c.shortInputs {
      input = 0
    } else {
      input = channelInput(ctrl2.channel2 ? 1 : 0, at: t)
    }
    let spiked = inputSpike_counts != nil
    input += parameters.inputOffset_counts + settlingError(at: t) + (inputSpike_counts ?? 0)
    inputSpike_counts = nil
    let raw = input * gain / 128
    if settleRemaining > 0 {
      settled += (raw - settled) * 0.55
      settleRemaining -= 1
    } else {
      settled = raw
    }
    let ocal = Double(load24(at: ctrl2.channel2 ? 0x0A : 0x03))
    let gcal = Double(load32(at: ctrl2.channel2 ? 0x0D : 0x06)) / Double(1 << 23)
    let out = (gcal * (settled - ocal)).rounded()
    var code = Int32(max(-8_388_608, min(8_388_607, out)))
    if let fault = inputFault ?? openInput(at: t) { code = fault.code }
    let u = UInt32(bitPattern: code)
    registers[0x12] = UInt8(truncatingIfNeeded: u >> 16)
    registers[0x13] = UInt8(truncatingIfNeeded: u >> 8)
    registers[0x14] = UInt8(truncatingIfNeeded: u)
    if unread { overruns += 1 }
    unread = true
    resultSpiked = spiked
    if spiked { spikeRead = false }
    puCtrl.conversionReady = true
    if !drdy && isPresent { drdyEdges += 1 }
    drdy = true
    conversions += 1
  }

  /// Before the LDO and analog front end settle the input is far off.
  func settlingError(at t: Int64) -> Double {
    guard let on = analogOnAt, t - on < parameters.analogSettle_ns else { return 0 }
    return 400_000 * (1 - Double(t - on) / Double(parameters.analogSettle_ns))
  }

  /// The panel's scenario opened the bridge of the converted channel's cell.
  func openInput(at t: Int64) -> SimulatedInputFault? {
    let cell = ctrl2.channel2 ? inputCells.1 : inputCells.0
    guard let signals, let cell, signals.isOpen(cell: cell, at: t) else { return nil }
    return .openBridge
  }

  /// CR cleared by reading ADCO: the DRDY pin falls with it, unless it
  /// stays high between conversions (`drdyStaysHigh` above 40 SPS).
  func resultRead() {
    puCtrl.conversionReady = false
    unread = false
    if resultSpiked {
      spikeRead = true
      resultSpiked = false
    }
    if !(parameters.drdyStaysHigh && ctrl2.rate.samplesPerSecond > 40) { drdy = false }
  }

  func channelInput(_ channel: Int, at t: Int64) -> Double {
    let cell = channel == 0 ? inputCells.0 : inputCells.1
    if let signals, let cell { return signals.counts(cell: cell, at: t) }
    return channel == 0 ? fixedInput.0 : fixedInput.1
  }

  func startCalibration(at t: Int64) {
    calibrationEnds = t + parameters.calibration_ns
    calibrationStarted = t
    puCtrl.conversionReady = false
    unread = false
    drdy = false
  }

  /// The calibration engine: output = GCAL * (measurement - OCAL).
  func finishCalibration(at t: Int64) {
    calibrationEnds = nil
    var c = ctrl2
    c.calibrationStart = false
    let channel = c.channel2 ? 1 : 0
    let ocalAt = channel == 0 ? 0x03 : 0x0A
    let gcalAt = channel == 0 ? 0x06 : 0x0D
    let gain = Double(ctrl1.gain.factor)
    var failed = failCalibration
    switch c.calibrationMode {
    case .internalOffset?:
      // Inputs shorted: the chip's own offset, plus whatever the analog
      // front end still had to settle when the calibration began.
      let offset = parameters.inputOffset_counts + settlingError(at: calibrationStarted)
      store24(Int32((offset * gain / 128).rounded()), at: ocalAt)
    case .systemOffset?:
      let measured = (channelInput(channel, at: t) + parameters.inputOffset_counts) * gain / 128
      store24(Int32(max(-8_388_608, min(8_388_607, measured.rounded()))), at: ocalAt)
    case .systemGain?:
      let measured = (channelInput(channel, at: t) + parameters.inputOffset_counts) * gain / 128
        - Double(load24(at: ocalAt))
      // Gain above ~256, or a negative input, cannot be calibrated.
      if measured <= 8_388_607 / 256 {
        failed = true
      } else {
        let g = 8_388_607 / measured * Double(1 << 23)
        store32(UInt32(min(g, Double(UInt32.max))), at: gcalAt)
      }
    case nil:
      failed = true
    }
    c.calibrationError = failed
    ctrl2 = c
    if puCtrl.cycleStart { restart(at: t) }
  }

  // MARK: Register writes

  func writeRegister(_ r: Int, _ value: UInt8, at t: Int64) {
    switch r {
    case 0x00:
      let old = puCtrl
      var new = NAU7802.PUCtrl(rawValue: value)
      if new.registerReset {
        powerOn()
        registers[0] = 0x01
        return
      }
      new.powerUpReady = old.powerUpReady
      new.conversionReady = old.conversionReady
      if new.powerUpDigital && !old.powerUpDigital {
        powerUpReadyAt = powerUpNeverReady ? nil : t + parameters.powerUpReady_ns
      }
      if !new.powerUpDigital {
        new.powerUpReady = false
        powerUpReadyAt = nil
      }
      if new.powerUpAnalog && !old.powerUpAnalog { analogOnAt = t }
      if new.internalLDO && !old.internalLDO { ldoSwitchedOn_mV = ctrl1.ldo.millivolts }
      if !new.powerUpAnalog { analogOnAt = nil }
      puCtrl = new
      if new.cycleStart && (!old.cycleStart || !old.powerUpReady) { restart(at: t) }
      if !new.cycleStart { nextConversion = nil }
    case 0x01:
      let old = ctrl1
      registers[1] = value
      if old.gain != ctrl1.gain && isConverting { restart(at: t) }
    case 0x02:
      let old = ctrl2
      var new = NAU7802.Ctrl2(rawValue: value)
      new.calibrationError = old.calibrationError  // read only
      let starting = new.calibrationStart && calibrationEnds == nil
      if calibrationEnds != nil { new.calibrationStart = true }
      ctrl2 = new
      if starting {
        startCalibration(at: t)
      } else if (old.rate != new.rate || old.channel2 != new.channel2) && isConverting {
        restart(at: t)
      }
    case 0x12...0x14, 0x1F:
      break  // read only
    default:
      registers[r] = value
    }
  }

  // MARK: Multi-byte registers

  func load24(at r: Int) -> Int32 {
    let u = UInt32(registers[r]) << 16 | UInt32(registers[r + 1]) << 8 | UInt32(registers[r + 2])
    return Int32(bitPattern: u << 8) >> 8
  }

  func store24(_ value: Int32, at r: Int) {
    let u = UInt32(bitPattern: value)
    registers[r] = UInt8(truncatingIfNeeded: u >> 16)
    registers[r + 1] = UInt8(truncatingIfNeeded: u >> 8)
    registers[r + 2] = UInt8(truncatingIfNeeded: u)
  }

  func load32(at r: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(registers[r + $1]) }
  }

  func store32(_ value: UInt32, at r: Int) {
    for k in 0..<4 { registers[r + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
  }

  // MARK: SimulatedI2CDevice

  public func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool {
    guard isPresent else { return false }
    advance(to: ns)
    expectPointer = !reading
    return true
  }

  public func write(_ byte: UInt8, at ns: Int64) -> Bool {
    advance(to: ns)
    if expectPointer {
      pointer = Int(byte & 0x1F)
      expectPointer = false
    } else {
      writeRegister(pointer, byte, at: ns)
      pointer = (pointer + 1) & 0x1F
    }
    return true
  }

  public func read(at ns: Int64) -> UInt8 {
    let value = registers[pointer]
    if pointer == 0x12 && parameters.clearReadyOnRead { resultRead() }
    pointer = (pointer + 1) & 0x1F
    return value
  }

  public func stop(at ns: Int64) {
    advance(to: ns)
  }

  // MARK: SimulatedDataReadySource (DRDY with DRDY_SEL = 0)

  public func isDataReady(at ns: Int64) -> Bool {
    advance(to: ns)
    return isPresent && drdy && !ctrl1.drdyOutputsClock && !pinStopped
  }

  /// Edges the pin gave; a stopped pin's count stands still, and once it
  /// moves again only the edges after that count.
  public func dataReadyEdges(at ns: Int64) -> Int {
    advance(to: ns)
    return pinStopped ? pinEdgesHeld : drdyEdges - pinEdgesSkipped
  }

  public func nextDataReady(after ns: Int64) -> Int64? {
    advance(to: ns)
    guard isPresent, !conversionsStuck, !drdy, !pinStopped else { return nil }
    if let end = calibrationEnds { return puCtrl.cycleStart ? end + period_ns : nil }
    if let at = powerUpReadyAt { return puCtrl.cycleStart ? at + period_ns : nil }
    return isConverting ? nextConversion : nil
  }
}
