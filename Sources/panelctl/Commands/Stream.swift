import ArgumentParser
import PanelFirmware

/// Output formats of the report stream.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
  /// JSON lines (CONTRACTS.md section 4): standard output, or TCP with --to.
  case ndjson
  /// TUIO 2.0 bundles over UDP, with pressure.
  case tuio
  /// TUIO 1.1 /tuio/2Dcur bundles over UDP (no pressure in that protocol).
  case tuio1
}

extension PanelCtl {
  struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run the panel and stream its reports (NDJSON on standard output, TCP, TUIO over UDP, uinput).",
      discussion: """
        Network outputs never hold up the panel: a host that is away or slow \
        costs dropped reports (counted, and summed up on standard error at \
        the end), never frames. A TCP host that goes away is reconnected.
        """)

    @OptionGroup var boardOptions: BoardOptions
    @OptionGroup var length: RunLengthOptions
    @OptionGroup var simulation: SimulationOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var devices: DeviceOutputOptions

    func run() throws {
      let board = try boardOptions.loadBoard()
      let calibration = try boardOptions.loadCalibration(for: board)
      let frontEnd = try FrontEndFactory.make(
        board: board, options: simulation.runOptions(length, rate_hz: board.rate_hz))
      let extra = try devices.sinks(board: board)
      Terminal.stopOnSignals()
      let run = ReportRun(
        command: "stream", board: board, calibration: calibration, frames: length.frames)
      try output.run(run, frontEnd, extra: extra)
    }
  }
}

/// Runs a scan loop to its end and feeds every frame to the sinks.
struct ReportRun {
  let command: String
  let board: Board
  let calibration: CalibrationRecord
  let frames: Int?

  func run<F: FrontEnd, S: FrameSink>(_ frontEnd: F, _ sinks: S) throws {
    var source = frontEnd
    var sinks = sinks
    try source.start()
    let loop = ScanLoop(source: source, board: board, calibration: calibration)
    let limit = frames.map { UInt64($0) } ?? UInt64.max
    do {
      while loop.frames < limit, !Terminal.shouldStop, !sinks.isClosed {
        guard try loop.step() else { break }
        try sinks.consume(loop)
      }
      // Touches still down when the run stops are cancelled, not left open.
      if loop.finish() && !sinks.isClosed { try sinks.consume(loop) }
    } catch {
      try? sinks.finish()
      throw error
    }
    try sinks.finish()
    if let summary = sinks.summary {
      Terminal.writeError("panelctl: \(command): frames \(loop.frames); \(summary)\n")
    }
  }
}
