import PanelCalibration
import PanelFormats
import PanelHardware
import PanelSimulation

/// The panel's EEPROM on its board's bus (`[frontend.eeprom]`), its switch
/// channel selected first when it sits behind one: where the calibration is
/// stored at the factory and found at start-up.
public struct PanelMemory<Bus: I2CBus, Clock: MonotonicClock> {
  public var bus: Bus
  public var clock: Clock
  public let store: PanelCalibrationStore
  let mux: TCA9548A?
  let channel: Int?
  /// Where the EEPROM is, for messages.
  public let location: String

  /// Nil when the board has no EEPROM.
  public init?(configuration c: DriverConfiguration, bus: Bus, clock: Clock) {
    guard let e = c.eeprom else { return nil }
    self.bus = bus
    self.clock = clock
    store = PanelCalibrationStore(eeprom: EEPROM24(kind: e.kind, address: e.place.address))
    mux = e.place.channel == nil ? nil : c.mux.map { TCA9548A(address: $0) }
    channel = e.place.channel
    location = c.eepromLocation.map { "\($0)" } ?? "EEPROM"
  }

  mutating func select() throws(I2CError) {
    if let mux, let channel { try mux.select(channel: channel, on: &bus) }
  }

  /// What the EEPROM holds (problems are reported, never thrown).
  public mutating func read(board: Board) -> PanelReadout {
    do {
      try select()
    } catch {
      return PanelReadout(problems: ["\(location): selecting its switch channel failed: \(error)"])
    }
    return store.read(on: &bus, board: board)
  }

  /// Stores a passing calibration in both copies, read back and verified.
  @discardableResult
  public mutating func write(_ record: CalibrationRecord, board: Board) throws(PanelStoreError) -> UInt32 {
    do {
      try select()
    } catch {
      throw .eeprom(copy: 1, .bus(error))
    }
    return try store.write(record, board: board, on: &bus, clock: &clock)
  }
}

extension PanelMemory where Bus == LinuxI2CBus, Clock == SystemClock {
  /// The EEPROM of a board on a real bus; nil when the board has none or
  /// is simulated (a simulated twin's EEPROM lives only as long as its run).
  public static func open(board: Board) throws(FileError) -> PanelMemory? {
    guard case .chips(let c) = board.frontEnd, c.eeprom != nil else { return nil }
    return PanelMemory(configuration: c, bus: try LinuxI2CBus.open(board: board, config: c), clock: SystemClock())
  }
}

/// A simulated twin board opened for calibration: its front end (the real
/// drivers on simulated chips), its hardware (the fixture moves masses on
/// its physics; its EEPROM takes the record), with the board's scenario
/// replaced by the fixture.
public struct SimulatedTwinRig {
  public let frontEnd: any FrontEnd
  public let hardware: SimulatedHardware
  public let serial: String

  public init(board: Board, speed: Double) throws(FileError) {
    guard case .simulatedTwin(let c, let parameters) = board.frontEnd else {
      let real = try board.driverConfiguration
      throw FileError(file: board.file, field: "[frontend] bus", message: "\(Quote.text(real.bus.description)) is a real bus, not a simulated twin")
    }
    hardware = try FrontEndFactory.simulatedHardware(
      board: board, configuration: c, parameters: parameters, options: RunOptions(speed: speed))
    hardware.signals.clearScenario()
    let inner = FrontEndFactory.driverFrontEnd(
      configuration: c, bus: hardware.bus, clock: hardware.clock, lines: hardware.dataReadyLines(),
      options: RunOptions(speed: speed))
    frontEnd = FrontEndFactory.twin(inner, hardware)
    serial = hardware.parameters.physics.serial
  }

  /// The twin's EEPROM on its simulated bus (nil: the board has none).
  public var memory: PanelMemory<SimulatedI2CBus, SimulatedClock>? {
    PanelMemory(configuration: hardware.configuration, bus: hardware.bus, clock: hardware.clock)
  }
}
