import ArgumentParser
import ForceCore
import PanelFirmware

extension PanelCtl {
  struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Identify the board's front end: its configuration, chips, registers and health.",
      discussion: """
        Brings the front end up as stream would, reads --frames frames, then \
        reads every chip's registers and prints them with the health \
        counters and the frame rate reached. Works on real boards and on \
        simulated twins alike.
        """)

    @Option(name: .long, help: ArgumentHelp("The board file (boards/*.toml).", valueName: "BOARD.toml"))
    var board: String

    @Option(name: .long, help: ArgumentHelp("Frames to read before reporting.", valueName: "N"))
    var frames = 64

    func validate() throws {
      if !(0...OptionBounds.maxFrames).contains(frames) {
        throw OptionBounds.outOfRange("--frames", frames, allowed: "0...\(OptionBounds.maxFrames)")
      }
    }

    func run() throws {
      let b = try Board.load(path: board)
      let frontEnd = try FrontEndFactory.make(board: b, options: RunOptions(speed: 0, frames: frames))
      Terminal.stopOnSignals()
      try show(frontEnd, b)
    }

    func show<F: FrontEnd>(_ frontEnd: F, _ b: Board) throws {
      var source = frontEnd
      try source.start()
      var frame = RawFrame(cellCount: b.cellCount)
      // With the board's calibration (when it has one where stream would
      // look), the frames also go through the core, for the noise it
      // measures and the thresholds it takes from it.
      let calibration = try? CalibrationLookup.find(board: b, explicitPath: nil).record
      var pipeline = calibration.map {
        ForcePipeline(
          geometry: b.geometry, calibration: $0.coreCalibration, configuration: $0.coreConfiguration(board: b),
          coupling: $0.coreCoupling)
      }
      var first: Int64?
      var last: Int64 = 0
      var count = 0
      while count < frames, !Terminal.shouldStop {
        guard try source.next(into: &frame) else { break }
        Notices.report(from: &source)
        if first == nil { first = frame.time.rawValue }
        last = frame.time.rawValue
        count += 1
        pipeline?.process(&frame)
      }
      var lines = [FrontEndInfo.Line("board", "\(b.name) (\(b.file)): \(b.cellCount) cells at \(b.rate_hz) Hz")]
      if var inspectable = source as? any InspectableFrontEnd {
        lines += inspectable.inspect().lines
      } else {
        lines.append(.init("front end", "\(b.frontEnd.kind)"))
        lines.append(.init("health", source.health.description))
      }
      if let first, count > 1, last > first {
        let rate = Double(count - 1) / (Double(last - first) / 1e6)
        lines.append(.init("frame rate", "\((rate * 10).rounded() / 10) frames/s over \(count) frames (front end clock)"))
      }
      if let pipeline, count > 1 {
        let sigma = (0..<b.cellCount).map { Double(pipeline.noise.sigma[$0]) / 1024 }.sorted()
        let t = pipeline.effectiveThresholds
        lines.append(
          .init(
            "noise",
            "\(Format.fixed(sigma[sigma.count / 2], 1)) mN per cell (median; largest \(Format.fixed(sigma.last ?? 0, 1)) mN) over \(count) frames, as the core measures it"))
        lines.append(
          .init(
            "thresholds",
            "touch on \(Format.fixed(t.on.newtons, 3)) N, off \(Format.fixed(t.off.newtons, 3)) N (the board's \(Format.fixed(b.detection.touchOn_n, 3)) / \(Format.fixed(b.detection.touchOff_n, 3)), or its noise's)"))
      }
      var text = ""
      for line in lines {
        let label = line.label + String(repeating: " ", count: max(0, 11 - line.label.count))
        // Names from the board file and from the chips: escaped.
        text += (line.label.isEmpty ? "             " : label + "  ") + Quote.printable(line.text) + "\n"
      }
      print(text, terminator: "")
    }
  }
}
