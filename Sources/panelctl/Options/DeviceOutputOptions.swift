import ArgumentParser
import PanelFirmware

/// Outputs beside the report stream: `--record`.
struct DeviceOutputOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("Also record the raw frames (CSV, as `record` writes them).", valueName: "FILE.csv"))
  var record: String?

  func sinks(board: Board) throws -> RecordingFrameSink? {
    guard let record else { return nil }
    return try RecordingFrameSink(path: record, board: board)
  }
}
