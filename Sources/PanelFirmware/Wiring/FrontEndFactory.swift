import PanelFormats
import PanelHardware
import PanelSimulation

/// Opens the front end a board's typed `[frontend]` (`BoardFrontEnd`) is:
/// one factory per case, none of them reading the board file.
public enum FrontEndFactory {
  public static func make(board: Board, options: RunOptions) throws(FileError) -> any FrontEnd {
    switch board.frontEnd {
    case .simulatedPanel(let parameters):
      return try simulatedPanel(board: board, parameters: parameters, options: options)
    case .chips(let configuration):
      return try hardwareFrontEnd(board: board, configuration: configuration, options: options)
    case .simulatedTwin(let configuration, let parameters):
      return try simulatedTwin(board: board, configuration: configuration, parameters: parameters, options: options)
    }
  }

  /// The nominal sensitivity of the board's front end (counts per newton),
  /// for running without a calibration (`CalibrationRecord.nominal`): the
  /// simulator's own, or, for a converter, from the gain it is programmed
  /// with, its reference and the load cells' rating (`CellRating`; the
  /// NAU7802's reference is its AVDD, which excites the bridge; the
  /// ADS122C04's external reference is the excitation, its internal one
  /// 2.048 V; a frame controller's converters are taken as ratiometric).
  public static func nominalGain(board: Board) -> Double {
    switch board.frontEnd {
    case .simulatedPanel(let parameters):
      return parameters.gain_counts_per_n
    case .chips(let c), .simulatedTwin(let c, _):
      switch c.chip {
      case .nau7802:
        return c.cells.counts_per_n(gain: c.nau7802.gain.factor, excitationOverReference: 1)
      case .ads122c04:
        let ratio = c.ads122c04.reference == .internal2V048 ? c.cells.excitation_v / 2.048 : 1
        return c.cells.counts_per_n(gain: c.ads122c04.gain.factor, excitationOverReference: ratio)
      case .frame:
        return c.cells.counts_per_n(gain: c.frame.gain, excitationOverReference: 1)
      }
    }
  }

  /// The simulated panel of a `kind = "sim"` board, with its scenario.
  public static func simulatedPanel(board: Board, parameters: SimulationParameters, options: RunOptions)
    throws(FileError) -> SimulatedPanel
  {
    var scenario = Scenario.idle()
    if let path = options.scenarioPath {
      scenario = try Scenario.load(path: path, board: board)
    } else if !parameters.scenario.isEmpty {
      scenario = try Scenario.load(path: Paths.resolve(parameters.scenario, relativeTo: board.file), board: board)
    }
    return SimulatedPanel(
      board: board, parameters: parameters, scenario: scenario, duration_s: options.duration_s,
      speed: options.speed)
  }
}

extension FrontEndFactory {
  /// The simulated panel of a `kind = "sim"` board with its own parameters.
  public static func simulatedPanel(board: Board, options: RunOptions) throws(FileError) -> SimulatedPanel {
    try simulatedPanel(board: board, parameters: board.simulationParameters, options: options)
  }
}
