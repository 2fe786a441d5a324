import ArgumentParser
import PanelFirmware

/// `--board` and `--calibration`, shared by every command that runs a panel.
struct BoardOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("The board file (boards/*.toml).", valueName: "BOARD.toml"))
  var board: String

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The calibration record (default: calibration/NAME.toml beside the boards folder).",
      valueName: "CAL"))
  var calibration: String?

  @Option(
    name: .customLong("fallback-calibration"),
    help: ArgumentHelp(
      "The calibration record when the panel holds no valid one (default: calibration/NAME.toml); the panel's own comes first.",
      valueName: "CAL"))
  var fallbackCalibration: String?

  func validate() throws {
    if calibration != nil && fallbackCalibration != nil {
      throw ValidationError("--calibration overrides the panel's record, --fallback-calibration only stands in for it: give one")
    }
  }

  func loadBoard() throws(FileError) -> Board { try Board.load(path: board) }

  func loadCalibration(for board: Board) throws(FileError) -> CalibrationRecord {
    try CalibrationLookup.load(board: board, explicitPath: calibration, fallbackPath: fallbackCalibration)
  }
}

/// How long to run and, for simulated panels, what happens on them.
struct RunLengthOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "SECONDS"))
  var duration: Double?

  @Option(name: .long, help: ArgumentHelp("Stop after this many frames.", valueName: "N"))
  var frames: Int?

  func validate() throws {
    try OptionBounds.duration(duration)
    try OptionBounds.frames(frames)
  }
}

/// The bounds of the options every command shares: the same `ValueBound`s
/// as the files', so no value on the command line can overflow a time or a
/// frame count either.
enum OptionBounds {
  /// The most frames a run may ask for (a run's longest length at the highest rate).
  static let maxFrames = 1_000_000_000_000

  /// The one wording of a value outside its option's range:
  /// "--speed -1 is out of range (allowed: 0 or 0.001...1000)".
  static func outOfRange(_ option: String, _ value: some CustomStringConvertible, allowed: String) -> ValidationError {
    var text = value.description
    if let d = value as? Double, d == d.rounded(), abs(d) < 1e15 { text = String(Int64(d)) }
    return ValidationError("\(option) \(text) is out of range (allowed: \(allowed))")
  }

  static func duration(_ d: Double?) throws {
    if let d, !ValueBound.runLength_s.contains(d) {
      throw outOfRange("--duration", d, allowed: ValueBound.runLength_s.description)
    }
  }

  static func frames(_ f: Int?) throws {
    if let f, !(1...maxFrames).contains(f) {
      throw outOfRange("--frames", f, allowed: "1...\(maxFrames)")
    }
  }

  /// 0 (as fast as possible) or within `ValueBound.speed`.
  static func speed(_ s: Double) throws {
    if s != 0 && !ValueBound.speed.contains(s) {
      throw outOfRange("--speed", s, allowed: "0 (as fast as possible) or \(ValueBound.speed)")
    }
  }
}

struct SimulationOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("Scripted touches for a simulated panel (scenarios/*.toml).", valueName: "FILE"))
  var scenario: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Simulated panels: 1 runs in real time, 0 as fast as possible.", valueName: "FACTOR"))
  var speed: Double = 1

  func validate() throws {
    try OptionBounds.speed(speed)
  }

  func runOptions(_ length: RunLengthOptions, rate_hz: Int) -> RunOptions {
    var duration = length.duration
    if let f = length.frames {
      let d = Double(f) / Double(rate_hz)
      duration = min(duration ?? d, d)
    }
    return RunOptions(scenarioPath: scenario, speed: speed, duration_s: duration, frames: length.frames)
  }
}
