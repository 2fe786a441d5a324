import ArgumentParser
import PanelFirmware

extension PanelCtl {
  /// Tools for simulated panels.
  struct Sim: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Tools for simulated panels.",
      subcommands: [Truth.self, Evaluate.self, Soak.self])

    struct Truth: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Write the calibration a simulated panel really has (its own parameters).")

      @Option(name: .long, help: ArgumentHelp("A simulated board file (kind = \"sim\" or a twin with bus = \"sim\").", valueName: "BOARD.toml"))
      var board: String

      @Option(name: .long, help: ArgumentHelp("Where to write the calibration.", valueName: "CAL"))
      var out: String

      @Option(name: .long, help: "The record's creation time (ISO 8601).")
      var created = "2026-01-01T00:00:00Z"

      func run() throws {
        let target = try FileSet.calibrationOutput(out)
        let b = try Board.load(path: board)
        let record = try FrontEndFactory.trueCalibration(board: b, created: created)
        // A record committed with its certificates is replaced with them
        // (a true calibration has none); any other is written in place.
        guard case .file(let file) = target else { return try record.write(to: out) }
        let files = FileSet.calibration(record: file)
        if files.isCommitted {
          try files.prepare([files.names[0]: Array(record.encoded().utf8)]).commit()
        } else {
          try record.write(to: file)
        }
      }
    }
  }
}
