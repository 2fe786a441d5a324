import ArgumentParser
import PanelFirmware

/// Output formats of the report stream.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
  /// JSON lines (docs/formats.md): standard output, or TCP with --to.
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
        Network outputs never hold up the panel: a host that is away, slow or talking back \
        costs dropped reports (counted, and summed up on standard error at \
        the end), never frames. A TCP host that goes away is reconnected.
        """)

    @OptionGroup var panel: PanelRunOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var devices: DeviceOutputOptions

    func run() throws {
      try devices.checkOutputs()
      let (run, frontEnd) = try panel.open(command: "stream")
      let extra = try devices.sinks(board: run.board)
      Terminal.stopOnSignals()
      try output.run(run, frontEnd, extra: extra)
    }
  }
}

/// Runs a scan loop to its end and feeds every frame to the sinks; between
/// frames, reports the front end's notices and applies the control lines
/// due (`--control`).
struct ReportRun {
  let command: String
  /// The board with the start-up interaction overrides applied.
  let board: Board
  let calibration: CalibrationRecord
  let frames: Int?
  var setup: InteractionSetup
  /// A progress line on a terminal: its label and how much of the work is
  /// done, 0...1 (a replay: how much of the recording is read).
  var progress: (label: String, fraction: () -> Double)?

  init(
    command: String, board: Board, calibration: CalibrationRecord, frames: Int?,
    setup: InteractionSetup = InteractionSetup()
  ) {
    self.command = command
    self.board = setup.configure(board)
    self.calibration = calibration
    self.frames = frames
    self.setup = setup
  }

  /// Runs with the board's haptic driver (if any) ahead of `sinks`: the
  /// click in the frame of its stage.
  func run<F: FrontEnd, S: FrameSink>(_ frontEnd: F, _ sinks: S) throws {
    guard let h = board.haptics else { return try drive(frontEnd, sinks) }
    switch h.bus {
    case .simulated:
      let feedback = InteractionSetup.started(HapticsFactory.simulated(h).feedback)
      try drive(frontEnd, SinkPair(HapticSink(feedback), sinks))
    case .device(let path):
      try drive(frontEnd, SinkPair(HapticSink(InteractionSetup.started(try HapticsFactory.linux(h, device: path))), sinks))
    }
  }

  func drive<F: FrontEnd, S: FrameSink>(_ frontEnd: F, _ sinks: S) throws {
    var sinks = sinks
    var setup = self.setup
    var source = frontEnd
    try source.start()
    let loop = ScanLoop(source: source, board: board, calibration: calibration, regions: setup.regions)
    let limit = frames.map { UInt64($0) } ?? UInt64.max
    var bar = progress.map { Progress(label: $0.label, total: nil, rate_hz: board.rate_hz) }
    do {
      while !sinks.isClosed {
        // The frame about to be read is the last when the frame limit
        // says so or a stop was asked for: its report closes the touches.
        if loop.frames + 1 >= limit || Terminal.shouldStop { loop.endRequested = true }
        guard try loop.step() else { break }
        try sinks.consume(loop)
        Notices.report(from: &loop.source, &setup.warnings)
        setup.poll(time: loop.reportTime, &loop.interaction)
        bar?.update(Int(loop.frames), fraction: progress?.fraction())
      }
      bar?.finish(Int(loop.frames), fraction: progress?.fraction())
      // A source that ended without saying so first: the touches still
      // down are cancelled on a closing line (docs/formats.md).
      if loop.finish() && !sinks.isClosed { try sinks.consume(loop) }
    } catch {
      // A run that fails part-way (a front end gone) still ends every
      // touch it began (docs/formats.md) before it says why.
      bar?.finish()
      if loop.finish() && !sinks.isClosed { try? sinks.consume(loop) }
      try? sinks.finish()
      throw error
    }
    for line in setup.warnings.summary { StandardError.line("panelctl: \(command): \(line)") }
    try sinks.finish()
    if let summary = sinks.summary {
      StandardError.line("panelctl: \(command): frames \(loop.frames); \(summary)")
    }
  }
}
