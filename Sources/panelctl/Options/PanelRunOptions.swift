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
  /// makes the front end; `command` names the run in its summary.
  func open(command: String) throws -> (run: ReportRun, frontEnd: any FrontEnd) {
    let board = try boardOptions.loadBoard()
    let calibration = try interaction.calibration(board: board, options: boardOptions)
    let setup = try interaction.setup(board: board, realTime: simulation.speed != 0 || !FrontEndFactory.isSimulated(board))
    let frontEnd = try FrontEndFactory.make(
      board: board, options: simulation.runOptions(length, rate_hz: board.rate_hz))
    let run = ReportRun(
      command: command, board: board, calibration: calibration, frames: length.frames, setup: setup)
    return (run, frontEnd)
  }
}
