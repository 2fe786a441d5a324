import ForceCore
import PanelFormats
import PanelHardware

/// The hardware of a simulated twin board (`bus = "sim"`), built from the
/// same `[frontend]` table as the real board: a simulated clock and bus,
/// the switch, one simulated chip per place, the EEPROM, and the chips'
/// data-ready pins, every chip's inputs wired to the panel's physics.
/// Reference semantics: tests keep it to inject faults and read traces.
public final class SimulatedHardware {
  public let configuration: DriverConfiguration
  public let parameters: SimulatedBoardParameters
  public let clock: SimulatedClock
  public let bus: SimulatedI2CBus
  public let signals: PanelSignals
  public let mux: SimulatedTCA9548A?
  public private(set) var nau7802s: [SimulatedNAU7802] = []
  public private(set) var ads122c04s: [SimulatedADS122C04] = []
  public private(set) var frameController: SimulatedFrameController?
  public let eeprom: SimulatedEEPROM?
  /// Each chip's data-ready pin, in chip order.
  public private(set) var pins: [any SimulatedDataReadySource] = []

  public init(
    board: Board, configuration c: DriverConfiguration, parameters p: SimulatedBoardParameters, scenario: Scenario,
    speed: Double = 0
  ) {
    configuration = c
    parameters = p
    clock = SimulatedClock(speed: speed)
    bus = SimulatedI2CBus(
      name: c.bus.description, clock: clock, timing: I2CBusTiming(khz: c.bus_khz, hostOverhead_us: p.hostOverhead_us))
    signals = PanelSignals(physics: PanelPhysics(board: board, parameters: p.physics, scenario: scenario))
    mux = c.mux.map { SimulatedTCA9548A(address: $0, busName: c.bus.description) }
    if let mux { bus.attach(mux) }
    if let e = c.eeprom {
      let chip = SimulatedEEPROM(kind: e.kind, address: e.place.address)
      eeprom = chip
    } else {
      eeprom = nil
    }
    if let e = c.eeprom, let chip = eeprom { attach(chip, at: e.place) }

    // Per-chip imperfections, drawn from the seed apart from the physics.
    var draw = SimRandom(seed: p.physics.seed ^ 0xC41F_5EED)
    for (i, place) in c.places.enumerated() {
      let oscillator = draw.symmetric() * p.oscillatorTolerance
      let offset = (draw.symmetric() * p.chipOffset_counts).rounded()
      switch c.chip {
      case .nau7802:
        var q = SimulatedNAU7802.Parameters()
        q.oscillatorError = oscillator
        q.inputOffset_counts = offset
        q.analogSettle_ns = Int64(p.analogSettle_ms * 1e6)
        q.calibration_ns = Int64(p.calibration_ms * 1e6)
        let chip = SimulatedNAU7802(signals: signals, cell: i, parameters: q)
        nau7802s.append(chip)
        pins.append(chip)
        if !p.absent.contains(i) { attach(chip, at: place) }
      case .ads122c04:
        var q = SimulatedADS122C04.Parameters()
        q.oscillatorError = oscillator
        q.inputOffset_counts = offset
        let second = c.ads122c04.input == .ain2ain3
        let chip = SimulatedADS122C04(
          address: place.address, signals: signals, cell: second ? nil : i, cell2: second ? i : nil, parameters: q)
        ads122c04s.append(chip)
        pins.append(chip)
        if !p.absent.contains(i) { attach(chip, at: place) }
      case .frame:
        let chip = SimulatedFrameController(address: place.address, signals: signals, cellCount: board.cellCount)
        chip.oscillatorError = oscillator
        frameController = chip
        pins.append(chip)
        if !p.absent.contains(i) { attach(chip, at: place) }
      }
    }
  }

  /// Wires `device` where `place` says: a switch channel or the main bus.
  public func attach(_ device: any SimulatedI2CDevice, at place: DriverConfiguration.Place) {
    if let channel = place.channel, let mux {
      mux.attach(device, channel: channel)
    } else {
      bus.attach(device)
    }
  }

  /// The data-ready lines the board wires (`drdy_lines`), else none.
  public func dataReadyLines() -> [SimulatedDataReadyLine] {
    guard configuration.dataReady != nil else { return [] }
    return pins.map { SimulatedDataReadyLine(source: $0, clock: clock) }
  }
}

/// A driver front end running on simulated hardware: starts the scenario
/// once the chips are up, so bring-up time does not eat into it.
public struct SimulatedTwin<Inner: FrontEnd>: FrontEnd {
  public var inner: Inner
  public let hardware: SimulatedHardware

  public init(_ inner: Inner, hardware: SimulatedHardware) {
    self.inner = inner
    self.hardware = hardware
  }

  public var cellCount: Int { inner.cellCount }
  public var health: FrontEndHealth { inner.health }

  public mutating func start() throws(FrontEndError) {
    try inner.start()
    hardware.signals.origin_ns = hardware.clock.now_ns
  }

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    try inner.next(into: &frame)
  }

  public mutating func takeNotice() -> FrontEndNotice? { inner.takeNotice() }
  public var isAtEnd: Bool { inner.isAtEnd }
}

extension SimulatedTwin: InspectableFrontEnd where Inner: InspectableFrontEnd {
  public mutating func inspect() -> FrontEndInfo {
    var info = inner.inspect()
    let s = hardware.bus.statistics
    let p = hardware.parameters.physics
    info.add(
      "simulation",
      "simulated twin: seed \(p.seed), serial \(p.serial); simulated time \(rounded(Double(hardware.clock.now_ns) / 1e9, 3)) s, "
        + "\(s.transfers) transfers, bus busy \(rounded(Double(s.busy_ns) / 1e6, 1)) ms")
    return info
  }
}
