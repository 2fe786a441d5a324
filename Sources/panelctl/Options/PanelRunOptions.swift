import ArgumentParser
import PanelFirmware

/// The options of every command that runs a panel and writes its reports
/// (`stream`, `serve`, `monitor`): the board and its calibration, how
/// long, the simulation, and what the host declares and changes. One
/// group, so the commands take exactly the same options.
struct PanelRunOptions: ParsableArguments {
  @OptionGroup var boardOptions: BoardOptions
  @OptionGroup var length: RunLengthOptions
  @OptionGroup var simulation: SimulationOptions
  @OptionGroup var interaction: InteractionOptions

  /// Loads the board, its calibration and the interaction setup, and
  /// makes the front end; `command` names the run in its summary. With
  /// `untilStopped` a run without `--duration` or `--frames` goes on until
  /// it is stopped (a simulated panel's scenario is then how it starts).
  func open(command: String, untilStopped: Bool = false) throws -> (run: ReportRun, frontEnd: any FrontEnd) {
    let board = try boardOptions.loadBoard()
    let calibration = try interaction.calibration(board: board, options: boardOptions)
    let setup = try interaction.setup(board: board, realTime: simulation.speed != 0 || !board.frontEnd.isSimulated)
    var options = simulation.runOptions(length, rate_hz: board.rate_hz)
    if untilStopped && options.duration_s == nil { options.duration_s = .infinity }
    let frontEnd = try FrontEndFactory.make(board: board, options: options)
    let run = ReportRun(
      command: command, board: board, calibration: calibration, frames: length.frames, setup: setup)
    return (run, frontEnd)
  }
}
