import PanelFormats
import PanelHardware
import PanelSimulation

/// Building driver front ends: the same generic code for a real bus and a
/// simulated one.
extension FrontEndFactory {
  /// The front end of `configuration` over any bus, clock and data-ready
  /// lines (empty `lines`: the driver polls the chips' ready bits).
  public static func driverFrontEnd<Bus: I2CBus, Clock: MonotonicClock, Line: DataReady>(
    configuration: DriverConfiguration, bus: Bus, clock: Clock, lines: [Line], options: RunOptions
  ) -> any FrontEnd {
    switch configuration.chip {
    case .nau7802:
      return CellFrontEnd(
        configuration: configuration, chip: NAU7802Cell(settings: configuration.nau7802), bus: bus, clock: clock,
        lines: lines, options: options)
    case .ads122c04:
      return CellFrontEnd(
        configuration: configuration,
        chip: ADS122C04Cell(settings: configuration.ads122c04), bus: bus, clock: clock, lines: lines,
        options: options)
    case .frame:
      return FrameFrontEnd(configuration: configuration, bus: bus, clock: clock, lines: lines, options: options)
    }
  }

  /// A simulated twin: the real drivers on `SimulatedHardware`. Without a
  /// duration or frame count it runs for its scenario's length.
  public static func simulatedTwin(
    board: Board, configuration: DriverConfiguration, parameters: SimulatedBoardParameters, options: RunOptions
  ) throws(FileError) -> any FrontEnd {
    let hardware = try simulatedHardware(board: board, configuration: configuration, parameters: parameters, options: options)
    var o = options
    if o.duration_s == nil && o.frames == nil {
      let d = hardware.signals.physics.scenario.duration_s
      if d.isFinite { o.duration_s = d }
    }
    let inner = driverFrontEnd(
      configuration: configuration, bus: hardware.bus, clock: hardware.clock, lines: hardware.dataReadyLines(),
      options: o)
    return twin(inner, hardware)
  }

  static func twin<F: FrontEnd>(_ inner: F, _ hardware: SimulatedHardware) -> any FrontEnd {
    SimulatedTwin(inner, hardware: hardware)
  }

  /// The simulated hardware of a twin board, with its scenario loaded.
  public static func simulatedHardware(
    board: Board, configuration: DriverConfiguration, parameters: SimulatedBoardParameters, options: RunOptions
  ) throws(FileError) -> SimulatedHardware {
    var scenario = Scenario.idle()
    if let path = options.scenarioPath {
      scenario = try Scenario.load(path: path, board: board)
    } else if !parameters.physics.scenario.isEmpty {
      scenario = try Scenario.load(
        path: Paths.resolve(parameters.physics.scenario, relativeTo: board.file), board: board)
    }
    return SimulatedHardware(
      board: board, configuration: configuration, parameters: parameters, scenario: scenario, speed: options.speed)
  }

  /// A front end on a real bus device: the Linux i2c-dev bus, the data-ready
  /// lines through libgpiod (one per chip; none: the driver polls), the
  /// system clock. A device that is missing fails naming the board's key.
  static func hardwareFrontEnd(board: Board, configuration: DriverConfiguration, options: RunOptions)
    throws(FileError) -> any FrontEnd
  {
    let bus = try LinuxI2CBus.open(board: board, config: configuration)
    let lines = try GPIODataReady.open(board: board, config: configuration, edge: configuration.chip.dataReadyEdge)
    return driverFrontEnd(configuration: configuration, bus: bus, clock: SystemClock(), lines: lines, options: options)
  }

  /// The calibration a simulated panel really has: of a `kind = "sim"`
  /// board or of a simulated twin's physics.
  public static func trueCalibration(board: Board, created: String) throws(FileError) -> CalibrationRecord {
    switch board.frontEnd {
    case .simulatedPanel(let parameters):
      return try simulatedPanel(board: board, parameters: parameters, options: RunOptions(speed: 0))
        .trueCalibration(created: created)
    case .simulatedTwin(let configuration, let parameters):
      let hardware = try simulatedHardware(
        board: board, configuration: configuration, parameters: parameters, options: RunOptions(speed: 0))
      return hardware.signals.physics.trueCalibration(board: board, created: created)
    case .chips(let configuration):
      throw FileError(
        file: board.file, field: "[frontend] bus",
        message: "\(Quote.text(configuration.bus.description)) is a real bus: only simulated panels have a true calibration")
    }
  }
}
