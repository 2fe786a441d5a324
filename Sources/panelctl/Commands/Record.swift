import ArgumentParser
import ForceCore
import PanelFirmware

extension PanelCtl {
  struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Record raw frames (CSV) from the panel.",
      discussion: """
        The file appears under its name only when the recording is complete; \
        until then it is FILE.partial, written out about once a second \
        (--flush second: a kill loses at most the last second) or after every \
        frame (--flush frame). Ctrl-C ends the recording cleanly. At the end \
        one line on standard error says what was written.
        """)

    /// When the `.partial` file is handed to the kernel.
    enum FlushPolicy: String, ExpressibleByArgument, CaseIterable {
      /// After every frame: a kill loses nothing (a write per frame).
      case frame
      /// About once a second (the board's rate in frames).
      case second
    }

    @OptionGroup var boardOptions: BoardOptions
    @OptionGroup var length: RunLengthOptions
    @OptionGroup var simulation: SimulationOptions

    @Option(name: .long, help: ArgumentHelp("The recording to write.", valueName: "FILE.csv"))
    var out: String

    @Option(name: .long, help: "When the .partial file is written out: after every frame, or about once a second.")
    var flush: FlushPolicy = .second

    func run() throws {
      _ = try OutputFile.target(out)
      let board = try boardOptions.loadBoard()
      let frontEnd = try FrontEndFactory.make(
        board: board, options: simulation.runOptions(length, rate_hz: board.rate_hz))
      Terminal.stopOnSignals()
      try record(frontEnd, board: board)
    }

    func record<F: FrontEnd>(_ frontEnd: F, board: Board) throws {
      var source = frontEnd
      try source.start()
      var frame = RawFrame(cellCount: board.cellCount)
      var writer = try RecordingWriter(
        path: out, header: RecordingHeader(cellCount: board.cellCount, hasTemperature: true))
      // The header at once: a recording killed before its first rows still
      // names its columns.
      try writer.flush()
      var progress = Progress(
        label: "recording", total: Progress.frames(length, rate_hz: board.rate_hz), rate_hz: board.rate_hz)
      var count = 0
      var warnings = WarningLimiter()
      while !Terminal.shouldStop {
        if let limit = length.frames, count >= limit { break }
        guard try source.next(into: &frame) else { break }
        Notices.report(from: &source, &warnings)
        // A frame a chip could not deliver is not data: it is left out.
        guard frame.valid else { continue }
        try frame.counts.span.withUnsafeBufferPointer { counts throws(FileError) in
          try writer.append(
            tUs: frame.time.rawValue,
            counts: UnsafeBufferPointer(rebasing: counts[0..<board.cellCount]),
            temperatureC: frame.hasTemperature ? frame.temperature.celsius : nil)
        }
        count += 1
        // A kill loses at most what was not flushed: a frame or a second.
        if flush == .frame || count % board.rate_hz == 0 { try writer.flush() }
        progress.update(count)
      }
      progress.finish(count)
      for line in warnings.summary { StandardError.line("panelctl: record: \(line)") }
      try writer.finish()
      StandardError.line(
        "panelctl: record: \(count) frames (\(progress.format(progress.seconds(count))) s) written to " + Quote.line(out))
    }
  }
}
