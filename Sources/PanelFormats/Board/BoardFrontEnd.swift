import PanelHardware

/// What makes a board's raw frames (`[frontend]`), read and checked once
/// when the board file is loaded. Adding a front end: a case here, its
/// parser in `BoardFrontEnd+TOML.swift`, its factory in PanelFirmware's
/// `FrontEndFactory.make` (docs/architecture.md, "Adding a front end").
public enum BoardFrontEnd: Sendable {
  /// `kind = "sim"`: a simulated panel that renders whole frames
  /// (PanelSimulation's `SimulatedPanel`).
  case simulatedPanel(SimulationParameters)
  /// A driver kind on an i2c-dev node: real chips behind the Linux drivers.
  case chips(DriverConfiguration)
  /// A driver kind with `bus = "sim"`: the real drivers on simulated chips,
  /// the panel's physics and the simulated bus as `[frontend.sim]` says.
  case simulatedTwin(DriverConfiguration, SimulatedBoardParameters)

  /// How the board file names it (`kind`), for messages and `info`.
  public var kind: String {
    switch self {
    case .simulatedPanel: BoardFrontEnd.simulatedPanelKind
    case .chips(let c), .simulatedTwin(let c, _): c.chip.rawValue
    }
  }

  /// The chips' configuration of a driver front end, real or simulated.
  public var driverConfiguration: DriverConfiguration? {
    switch self {
    case .simulatedPanel: nil
    case .chips(let c), .simulatedTwin(let c, _): c
    }
  }

  /// A simulated twin's `[frontend.sim]`; nil for the other front ends.
  public var twinParameters: SimulatedBoardParameters? {
    guard case .simulatedTwin(_, let p) = self else { return nil }
    return p
  }

  /// Whether the frames come from a simulation (a simulated panel or a
  /// twin), which can run faster than real time.
  public var isSimulated: Bool {
    switch self {
    case .simulatedPanel, .simulatedTwin: true
    case .chips: false
    }
  }
}

extension Board {
  /// The simulated panel's parameters; an error naming `[frontend] kind`
  /// when the board's front end is another.
  public var simulationParameters: SimulationParameters {
    get throws(FileError) {
      guard case .simulatedPanel(let p) = frontEnd else {
        throw FileError(
          file: file, field: "[frontend] kind", message: "\(Quote.text(frontEnd.kind)) is not a simulated front end")
      }
      return p
    }
  }

  /// The chips' configuration (a real board or a twin); an error naming
  /// `[frontend] kind` for a simulated panel.
  public var driverConfiguration: DriverConfiguration {
    get throws(FileError) {
      guard let c = frontEnd.driverConfiguration else {
        throw FileError(
          file: file, field: "[frontend] kind", message: "\(Quote.text(frontEnd.kind)) is not a driver front end")
      }
      return c
    }
  }
}
