import ArgumentParser
import PanelFirmware

/// Output formats of the report stream.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
  case ndjson
}

extension PanelCtl {
  struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run the panel and write its report stream (NDJSON on standard output).")

    @OptionGroup var boardOptions: BoardOptions
    @OptionGroup var length: RunLengthOptions
    @OptionGroup var simulation: SimulationOptions

    @Option(name: .long, help: "Report format.")
    var format: ReportFormat = .ndjson

    @Flag(name: .long, help: "Also write frames without touches or events.")
    var idle = false

    @OptionGroup var interaction: InteractionOptions

    func run() throws {
      let board = try boardOptions.loadBoard()
      let calibration = try interaction.calibration(board: board, options: boardOptions)
      let setup = try interaction.setup(board: board)
      let frontEnd = try FrontEndFactory.make(
        board: board, options: simulation.runOptions(length, rate_hz: board.rate_hz))
      Terminal.stopOnSignals()
      try ReportRun(board: board, calibration: calibration, frames: length.frames, idle: idle, setup: setup)
        .run(frontEnd)
    }
  }
}

/// Runs a scan loop to its end and writes the reports to standard output.
struct ReportRun {
  let board: Board
  let calibration: CalibrationRecord
  let frames: Int?
  let idle: Bool
  var setup = InteractionSetup()

  func run<F: FrontEnd>(_ frontEnd: F) throws {
    guard let h = board.haptics else { return try run(frontEnd, haptics: NoHaptics()) }
    if h.bus == "sim" { return try run(frontEnd, haptics: InteractionSetup.started(HapticsFactory.simulated(h).feedback)) }
    try run(frontEnd, haptics: InteractionSetup.started(try HapticsFactory.linux(h)))
  }

  func run<F: FrontEnd, H: HapticOutput>(_ frontEnd: F, haptics: H) throws {
    var haptics = haptics
    var source = frontEnd
    try source.start()
    var setup = self.setup
    let board = setup.configure(self.board)
    let loop = ScanLoop(source: source, board: board, calibration: calibration, regions: setup.regions)
    let encoder = NDJSONEncoder(interaction: board.interaction)
    let buffer = ByteBuffer(capacity: 64 * 1024)
    var out = OutputChannel(fd: 1)
    let limit = frames.map { UInt64($0) } ?? UInt64.max
    while loop.frames < limit, !Terminal.shouldStop, !out.closed {
      guard try loop.step() else { break }
      haptics.respond(to: loop.report)  // the click, in the frame of its stage change
      Notices.report(from: &loop.source)
      if idle || !loop.report.isEmpty {
        encoder.encode(loop.report, into: buffer)
        try out.flush(buffer)
      }
      setup.poll(time: loop.report.time, &loop.interaction)
    }
    // Touches still down when the run stops are cancelled, not left open.
    if loop.finish() && !out.closed {
      encoder.encode(loop.report, into: buffer)
      try out.flush(buffer)
    }
  }
}
