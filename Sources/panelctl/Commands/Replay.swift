import ArgumentParser
import PanelFirmware

extension PanelCtl {
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run a raw recording through the pipeline and write its report stream.")

    @Argument(help: ArgumentHelp("A raw recording (CSV).", valueName: "RECORDING.csv"))
    var recording: String

    @OptionGroup var boardOptions: BoardOptions

    @Option(name: .long, help: "Report format.")
    var format: ReportFormat = .ndjson

    @Flag(name: .long, help: "Also write frames without touches or events.")
    var idle = false

    @OptionGroup var interaction: InteractionOptions

    func run() throws {
      let board = try boardOptions.loadBoard()
      let calibration = try interaction.calibration(board: board, options: boardOptions)
      let setup = try interaction.setup(board: board)
      let source = try RecordingFrontEnd(path: recording, board: board)
      try ReportRun(board: board, calibration: calibration, frames: nil, idle: idle, setup: setup).run(source)
    }
  }
}
