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

  func sinks(board: Board) throws -> SinkPair<UInputSink?, RecordingFrameSink?> {
    var device: UInputSink?
    if uinput {
      let sink = try UInputSink(board: board)
      device = sink
      let node = sink.device.eventNode ?? "no event node"
      Terminal.writeError("panelctl: uinput: \"\(sink.device.name)\" is \(node) (\(sink.device.sysname))\n")
    }
    let recording = try record.map { path throws(FileError) in try RecordingFrameSink(path: path, board: board) }
    return SinkPair(device, recording)
  }
}
