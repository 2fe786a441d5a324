import ArgumentParser
import ForceCore
import PanelFirmware

extension Sensitivity: ExpressibleByArgument {}

/// `--regions`, `--control`, `--sensitivity`, `--force-touch`,
/// `--uncalibrated`: what the host declares and changes, for every command
/// that writes a report stream.
struct InteractionOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("Items on the panel and what each supports (docs/regions.md).", valueName: "FILE"))
  var regions: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Control lines read while running, from a file or a named pipe (docs/regions.md).", valueName: "FILE"))
  var control: String?

  @Option(name: .long, help: "Sensitivity at the start (default: the board's).")
  var sensitivity: Sensitivity?

  @Option(name: .customLong("force-touch"), help: ArgumentHelp("3D Touch at the start (default: the board's).", valueName: "on|off"))
  var forceTouch: OnOff?

  @Flag(name: .long, help: "Run without a calibration (nominal gains): force is unavailable.")
  var uncalibrated = false

  /// Loads the files the options name. `realTime`: the run keeps real
  /// time, so what a control line loads is loaded off the frame loop.
  func setup(board: Board, realTime: Bool = false) throws(FileError) -> InteractionSetup {
    var s = InteractionSetup()
    if let regions {
      let map = try RegionMap.load(path: regions, board: board)
      for w in map.warnings { StandardError.line("panelctl: warning: \(w)") }
      s.regions = map
    }
    if let control {
      s.control = try ControlChannel(path: control, board: board, loading: realTime ? .background : .inline)
    }
    s.sensitivity = sensitivity
    s.forceTouch = forceTouch.map { $0 == .on }
    return s
  }

  /// The run's calibration: the board's, or nominal with `--uncalibrated`.
  func calibration(board: Board, options: BoardOptions) throws(FileError) -> CalibrationRecord {
    if uncalibrated {
      return CalibrationRecord.nominal(board: board, gain_counts_per_n: FrontEndFactory.nominalGain(board: board))
    }
    return try options.loadCalibration(for: board)
  }

  /// The calibration of a replay: as `calibration(board:options:)`, but a
  /// recording names no panel, so the file's serial is taken (with a note).
  func recordingCalibration(board: Board, options: BoardOptions) throws(FileError) -> CalibrationRecord {
    if uncalibrated { return try calibration(board: board, options: options) }
    let found = try CalibrationLookup.forRecording(board: board, explicitPath: options.calibration)
    for note in found.notes { StandardError.line("panelctl: note: \(note)") }
    return found.record
  }
}

enum OnOff: String, ExpressibleByArgument, CaseIterable {
  case on, off
}

/// The interaction a report run starts with, and its control channel.
struct InteractionSetup {
  var regions: RegionMap?
  var control: ControlChannel?
  var sensitivity: Sensitivity?
  var forceTouch: Bool?
  /// Control line warnings: a few a minute, the rest counted.
  var warnings = WarningLimiter()

  /// The board with the start-up overrides applied.
  func configure(_ board: Board) -> Board {
    var b = board
    if let sensitivity { b.interaction.sensitivity = sensitivity }
    if let forceTouch { b.interaction.forceTouch = forceTouch }
    return b
  }

  /// Between frames: applies the control lines due at `time`; a line that
  /// cannot be used is a warning on standard error (rate-limited, see
  /// `WarningLimiter`), and the run goes on.
  mutating func poll(time: Time_us, _ interaction: inout Interaction) {
    guard control != nil else { return }
    let (due, errors) = control!.pollLines(time: time)
    for e in errors { warnings.warn("control line", "panelctl: warning: \(e)") }
    for (command, line) in due {
      let place = "\(control!.path):\(line)"
      do {
        try interaction.apply(command)
      } catch {
        warnings.warn("control line", "panelctl: warning: \(place): \(error)")
        continue
      }
      // The advice on what the line declared, said once (a regions file's
      // lines name that file; items on the line, the line).
      for w in command.warnings(after: interaction, place: place) {
        warnings.warn("control line", "panelctl: warning: \(w)")
      }
    }
  }

  /// The haptic driver brought up (a chip that does not answer is a
  /// warning; it is tried again at the next click).
  static func started<Bus: I2CBus>(_ feedback: HapticFeedback<Bus>) -> HapticFeedback<Bus> {
    var feedback = feedback
    do {
      try feedback.start()
    } catch {
      StandardError.line("panelctl: warning: \(feedback.settings.bus): \(error)")
    }
    return feedback
  }
}
