import PanelFiles

/// The NAU7802 as a `CellChip`: bring-up per the datasheet (see `NAU7802`),
/// PU_CTRL.CR as the ready bit, a 3-byte burst as the result, PU_CTRL to
/// tell a chip with a conversion after all (CR) from a reset one (PUD, PUA
/// or CS lost) and a stuck one.
public struct NAU7802Cell: CellChip {
  public enum Step: Equatable, Sendable {
    case reset
    case waitPowerUp(deadline_us: Int64)
    case settle
    case calibrating(deadline_us: Int64)
  }

  public let settings: NAU7802Settings
  public var firstStep: Step { .reset }
  public var period_us: Int64 { 1_000_000 / Int64(settings.rate.samplesPerSecond) }
  /// PUD -> PUR is about 200 µs; give up after this.
  public var powerUpTimeout_us: Int64 = 2_000
  /// CALS takes about 344 ms; give up after this.
  public var calibrationTimeout_us: Int64 = 1_000_000
  /// How often CALS is polled.
  public var calibrationPoll_us: Int64 = 10_000

  public init(settings: NAU7802Settings) {
    self.settings = settings
  }

  public mutating func advance<Bus: I2CBus, Clock: MonotonicClock>(
    _ step: Step, at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> BringUpOutcome<Step> {
    let s = settings
    let now = io.clock.now_us()
    switch step {
    case .reset:
      try io.run(place) { (bus) throws(I2CError) in try NAU7802().resetRegisters(on: &bus) }
      return .next(.waitPowerUp(deadline_us: now + powerUpTimeout_us), after_us: 210)
    case .waitPowerUp(let deadline):
      if try io.run(place, { (bus) throws(I2CError) in try NAU7802().isPowerUpReady(on: &bus) }) {
        try io.run(place) { (bus) throws(I2CError) in try NAU7802().configure(s, on: &bus) }
        return .next(.settle, after_us: Int64(s.settle_ms) * 1000)
      }
      return now >= deadline ? .failed(.powerUpNeverReady) : .next(step, after_us: 100)
    case .settle:
      try io.run(place) { (bus) throws(I2CError) in
        try NAU7802().startCalibration(.internalOffset, settings: s, on: &bus)
      }
      return .next(.calibrating(deadline_us: now + calibrationTimeout_us), after_us: calibrationPoll_us)
    case .calibrating(let deadline):
      switch try io.run(place, { (bus) throws(I2CError) in try NAU7802().calibrationStatus(on: &bus) }) {
      case .running: return now >= deadline ? .failed(.calibrationTimeout) : .next(step, after_us: calibrationPoll_us)
      case .failed: return .failed(.calibrationFailed)
      case .done: return .discard(s.discard)
      }
    }
  }

  public func hasResult<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> Bool {
    try io.run(place) { (bus) throws(I2CError) in try NAU7802().isConversionReady(on: &bus) }
  }

  public mutating func read<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> CellSample {
    .value(try io.run(place) { (bus) throws(I2CError) in try NAU7802().readConversion(on: &bus) }, missed: 0)
  }

  public func diagnose<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> CellDiagnosis {
    let p = try io.run(place) { (bus) throws(I2CError) in try NAU7802().read(NAU7802.PUCtrl.self, on: &bus) }
    let expected = NAU7802.runningPUCtrl(settings)
    if !p.powerUpDigital || !p.powerUpAnalog || !p.cycleStart || p.registerReset
      || p.internalLDO != expected.internalLDO
    {
      return .reset(seen: "PU_CTRL \(p)")
    }
    return p.conversionReady ? .ready : .stuck
  }
}

extension NAU7802Cell {
  public func describe<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> [String] {
    var r = [UInt8](repeating: 0, count: 32)
    try r.withUnsafeMutableBytes { p in
      Result { () throws(I2CError) in
        try io.run(place) { (bus) throws(I2CError) in try NAU7802().readRegisters(from: 0, into: p, on: &bus) }
      }
    }.get()
    let pu = NAU7802.PUCtrl(rawValue: r[0])
    let c1 = NAU7802.Ctrl1(rawValue: r[1])
    let c2 = NAU7802.Ctrl2(rawValue: r[2])
    var bits: [String] = []
    for (on, name) in [
      (pu.registerReset, "RR"), (pu.powerUpDigital, "PUD"), (pu.powerUpAnalog, "PUA"), (pu.powerUpReady, "PUR"),
      (pu.cycleStart, "CS"), (pu.conversionReady, "CR"), (pu.internalLDO, "AVDDS"),
    ] where on { bits.append(name) }
    let ocal = RegisterIO.signExtend24(r[3], r[4], r[5])
    let gcal = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(r[6 + $1]) }
    let adco = RegisterIO.signExtend24(r[0x12], r[0x13], r[0x14])
    return [
      "00-0f: " + hexBytes(r[0..<16]),
      "10-1f: " + hexBytes(r[16..<32]),
      "PU_CTRL \(pu) (\(bits.joined(separator: " "))); CTRL1 \(c1) (gain \(c1.gain.factor), LDO "
        + "\(Double(c1.ldo.millivolts) / 1000) V); CTRL2 \(c2) (\(c2.rate.samplesPerSecond) SPS, channel "
        + "\(c2.channel2 ? 2 : 1), CALS \(c2.calibrationStart ? 1 : 0), CAL_ERR \(c2.calibrationError ? 1 : 0))",
      "OCAL1 \(ocal), GCAL1 \(rounded(Double(gcal) / Double(1 << 23), 6)), ADCO \(adco), REV_ID \(Register8Hex.hex(r[0x1F]))",
    ]
  }
}

/// The NAU7802 front end.
public typealias NAU7802FrontEnd<Bus: I2CBus, Clock: MonotonicClock, Line: DataReady> = CellFrontEnd<
  NAU7802Cell, Bus, Clock, Line
>
