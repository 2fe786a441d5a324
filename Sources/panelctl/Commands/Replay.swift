import ArgumentParser
import PanelFirmware

extension PanelCtl {
  struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run a raw recording through the pipeline and write its report stream.",
      discussion: """
        The reports go to standard output (NDJSON), or with --to to a host, \
        as `stream` sends them; frames are replayed as fast as they can be \
        processed.
        """)

    @Argument(help: ArgumentHelp("A raw recording (CSV).", valueName: "RECORDING.csv"))
    var recording: String

    @OptionGroup var boardOptions: BoardOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup var interaction: InteractionOptions

    func run() throws {
      let board = try boardOptions.loadBoard()
      let calibration = try interaction.recordingCalibration(board: board, options: boardOptions)
      let setup = try interaction.setup(board: board)
      let source = try RecordingFrontEnd(path: recording, board: board)
      for warning in source.warnings { StandardError.line("panelctl: warning: \(warning)") }
      var run = ReportRun(command: "replay", board: board, calibration: calibration, frames: nil, setup: setup)
      // The copy shares the reader: it follows the loop through the file.
      run.progress = ("replaying", { source.fractionRead })
      try output.run(run, source, extra: RecordingFrameSink?.none)
      if let note = source.cutOffNote { StandardError.line("panelctl: note: \(note)") }
    }
  }
}
