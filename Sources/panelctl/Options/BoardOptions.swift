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

  func loadBoard() throws(FileError) -> Board { try Board.load(path: board) }

  func loadCalibration(for board: Board) throws(FileError) -> CalibrationRecord {
    try CalibrationLookup.load(board: board, explicitPath: calibration)
  }
}

/// How long to run and, for simulated panels, what happens on them.
struct RunLengthOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "SECONDS"))
  var duration: Double?

  @Option(name: .long, help: ArgumentHelp("Stop after this many frames.", valueName: "N"))
  var frames: Int?

  func validate() throws {
    if let d = duration, !(d > 0) { throw ValidationError("--duration must be greater than 0, is \(d)") }
    if let f = frames, f < 1 { throw ValidationError("--frames must be at least 1, is \(f)") }
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
    if !(speed >= 0) || !speed.isFinite { throw ValidationError("--speed must be 0 or more, is \(speed)") }
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
