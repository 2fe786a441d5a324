import PanelFormats
import PanelHardware
import PanelSimulation

/// Opens the front end a board file names.
public enum FrontEndFactory {
  /// The front-end kinds a board file may name.
  public static let kinds = ["sim"] + DriverConfiguration.Chip.allCases.map(\.rawValue)

  public static func make(board: Board, options: RunOptions) throws(FileError) -> any FrontEnd {
    switch board.frontEnd.kind {
    case "sim":
      return try simulatedPanel(board: board, options: options)
    case _ where DriverConfiguration.Chip(rawValue: board.frontEnd.kind) != nil:
      let configuration = try driverConfiguration(board)
      if configuration.isSimulated {
        return try simulatedTwin(board: board, configuration: configuration, options: options)
      }
      return try hardwareFrontEnd(board: board, configuration: configuration, options: options)
    default:
      throw unknownKind(board.frontEnd)
    }
  }

  /// Whether `board`'s frames come from a simulation (a simulated panel
  /// or a twin on a simulated bus), which can run faster than real time.
  public static func isSimulated(_ board: Board) -> Bool {
    board.frontEnd.kind == "sim" || ((try? driverConfiguration(board).isSimulated) ?? false)
  }

  /// Checks the kind-specific keys of a `[frontend]` table (at board load),
  /// for a board of `cellCount` cells sampled at `rate_hz`.
  public static func check(_ spec: FrontEndSpec, cellCount: Int = 1, rate_hz: Int = 1) throws(FileError) {
    switch spec.kind {
    case "sim":
      if let table = spec.table { _ = try SimulationParameters(table: table) }
    case _ where DriverConfiguration.Chip(rawValue: spec.kind) != nil:
      guard let table = spec.table else { throw unknownKind(spec) }
      _ = try DriverConfiguration(table: table, cellCount: cellCount, rate_hz: rate_hz)
    default:
      throw unknownKind(spec)
    }
  }

  /// The driver configuration of a board whose front end is a driver stack.
  public static func driverConfiguration(_ board: Board) throws(FileError) -> DriverConfiguration {
    guard let table = board.frontEnd.table, DriverConfiguration.Chip(rawValue: board.frontEnd.kind) != nil else {
      throw FileError(
        file: board.file, field: "[frontend] kind",
        message: "\(Quote.text(board.frontEnd.kind)) is not a driver front end")
    }
    return try DriverConfiguration(table: table, cellCount: board.cellCount, rate_hz: board.rate_hz)
  }

  static func unknownKind(_ spec: FrontEndSpec) -> FileError {
    let message = "unknown front end \(Quote.text(spec.kind)) (expected one of: \(kinds.joined(separator: ", ")))"
    if let table = spec.table { return table.error("kind", message) }
    return FileError(file: "", field: "[frontend] kind", message: message)
  }

  /// The nominal sensitivity of the board's front end (counts per newton),
  /// for running without a calibration (`CalibrationRecord.nominal`): the
  /// simulator's own, or, for a converter, from the gain it is programmed
  /// with, its reference and the load cells' rating (`CellRating`; the
  /// NAU7802's reference is its AVDD, which excites the bridge; the
  /// ADS122C04's external reference is the excitation, its internal one
  /// 2.048 V; a frame controller's converters are taken as ratiometric).
  public static func nominalGain(board: Board) throws(FileError) -> Double {
    if board.frontEnd.kind == "sim" { return try simulationParameters(board).gain_counts_per_n }
    let c = try driverConfiguration(board)
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

  /// The simulated panel of a `kind = "sim"` board, with its scenario.
  public static func simulatedPanel(board: Board, options: RunOptions) throws(FileError) -> SimulatedPanel {
    let parameters = try simulationParameters(board)
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

  public static func simulationParameters(_ board: Board) throws(FileError) -> SimulationParameters {
    guard board.frontEnd.kind == "sim" else {
      throw FileError(
        file: board.file, field: "[frontend] kind",
        message: "\(Quote.text(board.frontEnd.kind)) is not a simulated front end")
    }
    guard let table = board.frontEnd.table else { return SimulationParameters() }
    let parameters = try SimulationParameters(table: table)
    try parameters.check(board: board)
    return parameters
  }
}
