/// The ADS122C04 as a `CellChip`: RESET, configuration with read-back,
/// START/SYNC in continuous mode; register 2 DRDY as the ready bit; RDATA
/// with the counter and CRC-16 as the result (a CRC mismatch is `.corrupt`,
/// a counter gap counts the conversions missed); after a conversion did
/// not come in time, register 1 reading back different means the chip was
/// reset, register 2's DRDY that it has one after all.
public struct ADS122C04Cell: CellChip {
  public enum Step: Equatable, Sendable {
    case reset
    case configure
  }

  public let settings: ADS122C04Settings
  var lastCounter: UInt8?

  public var firstStep: Step { .reset }
  public var period_us: Int64 { 1_000_000 / Int64(settings.samplesPerSecond) }

  public init(settings: ADS122C04Settings) {
    self.settings = settings
  }

  public mutating func advance<Bus: I2CBus, Clock: MonotonicClock>(
    _ step: Step, at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> BringUpOutcome<Step> {
    let chip = ADS122C04(address: place.address)
    let s = settings
    switch step {
    case .reset:
      lastCounter = nil
      try io.run(place) { (bus) throws(I2CError) in try chip.send(ADS122C04.Command.reset, on: &bus) }
      return .next(.configure, after_us: 50)
    case .configure:
      try io.run(place) { (bus) throws(I2CError) in try chip.configure(s, on: &bus) }
      guard try io.run(place, { (bus) throws(I2CError) in try chip.isConfigured(s, on: &bus) }) else {
        return .failed(.unexpected("its registers do not read back as written (not an ADS122C04?)"))
      }
      try io.run(place) { (bus) throws(I2CError) in try chip.send(ADS122C04.Command.start, on: &bus) }
      return .discard(1)
    }
  }

  public func hasResult<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> Bool {
    let chip = ADS122C04(address: place.address)
    return try io.run(place) { (bus) throws(I2CError) in try chip.isDataReady(on: &bus) }
  }

  public mutating func read<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> CellSample {
    let chip = ADS122C04(address: place.address)
    let s = settings
    let r = try io.run(place) { (bus) throws(I2CError) in
      try chip.readResult(counter: s.counter, crc: s.crc, on: &bus)
    }
    guard r.intact else { return .corrupt }
    var missed: UInt64 = 0
    if let c = r.counter {
      if let last = lastCounter, c &- last > 1 { missed = UInt64(c &- last) - 1 }
      lastCounter = c
    }
    return .value(r.value, missed: missed)
  }

  public func diagnose<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> CellDiagnosis {
    let chip = ADS122C04(address: place.address)
    let seen = try io.run(place) { (bus) throws(I2CError) in try chip.read(ADS122C04.Config1.self, on: &bus) }
    guard seen == ADS122C04.registers(settings).1 else { return .reset(seen: "register 1 \(seen)") }
    return try hasResult(at: place, io: &io) ? .ready : .stuck
  }
}

extension ADS122C04Cell {
  public func describe<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> [String] {
    let chip = ADS122C04(address: place.address)
    let r0 = try io.run(place) { (bus) throws(I2CError) in try chip.read(ADS122C04.Config0.self, on: &bus) }
    let r1 = try io.run(place) { (bus) throws(I2CError) in try chip.read(ADS122C04.Config1.self, on: &bus) }
    let r2 = try io.run(place) { (bus) throws(I2CError) in try chip.read(ADS122C04.Config2.self, on: &bus) }
    let r3 = try io.run(place) { (bus) throws(I2CError) in try chip.read(ADS122C04.Config3.self, on: &bus) }
    let sps = ADS122C04.samplesPerSecond(rateCode: r1.rateCode, turbo: r1.turbo)
    return [
      "registers 0-3: \(r0) \(r1) \(r2) \(r3)",
      "MUX \(r0.input), gain \(r0.gain.factor)\(r0.pgaBypass ? " (PGA bypassed)" : ""); \(sps) SPS"
        + "\(r1.turbo ? " turbo" : ""), \(r1.continuous ? "continuous" : "single shot"), VREF \(r1.reference)"
        + "\(r1.temperatureSensor ? ", temperature sensor" : ""); DRDY \(r2.dataReady ? 1 : 0), DCNT "
        + "\(r2.counter ? "on" : "off"), CRC \(r2.integrity)",
    ]
  }
}

/// The ADS122C04 front end.
public typealias ADS122C04FrontEnd<Bus: I2CBus, Clock: MonotonicClock, Line: DataReady> = CellFrontEnd<
  ADS122C04Cell, Bus, Clock, Line
>
