import ArgumentParser
import PanelFirmware

/// Outputs beside the report stream: `--uinput`, `--record`.
struct DeviceOutputOptions: ParsableArguments {
  @Flag(
    name: .long,
    help: "Also be a Linux multi-touch device (uinput: slots, pressure, a direct touchscreen).")
  var uinput = false

  @Option(
    name: .long,
    help: ArgumentHelp("Also record the raw frames (CSV, as `record` writes them).", valueName: "FILE.csv"))
  var record: String?

  /// Checks `--record`'s name (`OutputFile`), before any work.
  func checkOutputs() throws(FileError) {
    if let record { _ = try OutputFile.target(record) }
  }

  func sinks(board: Board) throws -> SinkPair<UInputSink?, RecordingFrameSink?> {
    var device: UInputSink?
    if uinput {
      let sink = try UInputSink(board: board)
      device = sink
      let node = sink.device.eventNode ?? "no event node"
      StandardError.line("panelctl: uinput: \"\(sink.device.name)\" is \(node) (\(sink.device.sysname))")
    }
    let recording = try record.map { path throws(FileError) in try RecordingFrameSink(path: path, board: board) }
    return SinkPair(device, recording)
  }
}
