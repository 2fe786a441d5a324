import ArgumentParser
import CoreRunner
import ForceCore
import PanelFirmware

extension PanelCtl {
  /// The touch stack on its own: core scripts (a panel's setup and raw
  /// frames in the core's fixed-point units, and the host's changes) and
  /// their traces, as a microcontroller running ForceCore and PanelTouch
  /// reads and writes them (docs/firmware.md).
  struct Core: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "The touch stack on its own: export a core script, run one.",
      subcommands: [Export.self, Run.self])

    struct Export: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Write a board's setup, and a recording's frames, as a core script (standard output).",
        discussion: """
          The setup is what the board's touch stack is built from: geometry, \
          the core's configuration, each cell's calibration and any coupling \
          in the core's fixed-point formats, the tracker's and the stage \
          machine's settings, the regions (--regions); between the frames, \
          the changes a control file (--control) makes, at the frames where \
          `replay` makes them. A firmware can compile it in or load it.
          """)

      @Argument(help: ArgumentHelp("A raw recording (CSV) whose frames to add.", valueName: "RECORDING.csv"))
      var recording: String?

      @OptionGroup var boardOptions: BoardOptions
      @OptionGroup var interactionOptions: InteractionOptions

      func run() throws {
        let loaded = try boardOptions.loadBoard()
        let calibration =
          recording == nil
          ? try interactionOptions.calibration(board: loaded, options: boardOptions)
          : try interactionOptions.recordingCalibration(board: loaded, options: boardOptions)
        var setup = try interactionOptions.setup(board: loaded)
        let board = setup.configure(loaded)
        var sink = DescriptorSink(fd: .standardOutput)
        var writer = ScriptWriter()
        var cells = calibration.coreCalibration
        writer.writeSetup(
          geometry: board.geometry, calibration: &cells, configuration: calibration.coreConfiguration(board: board),
          coupling: calibration.coreCoupling, to: &sink)
        var xs = CellArray<Double>(repeating: 0)
        var ys = CellArray<Double>(repeating: 0)
        for k in 0..<min(board.cellCount, Capacity.cells) {
          xs[k] = board.cells[k].x_mm
          ys[k] = board.cells[k].y_mm
        }
        writer.writeTouchSetup(
          tracker: TrackerSettings(board: board), interaction: board.interaction, calibrated: !calibration.isNominal,
          x_mm: &xs, y_mm: &ys, cells: board.cellCount, pitch_mm: board.grid?.pitch_mm ?? 0, to: &sink)
        if let regions = setup.regions { write(regions, with: &writer, to: &sink) }
        if let recording {
          // The number of frames first: the last one ends the stream.
          var count = 0
          var counter = try RecordingFrontEnd(path: recording, board: board)
          var frame = RawFrame(cellCount: board.cellCount)
          while try counter.next(into: &frame) { count += 1 }
          writer.writeFrames(count, to: &sink)
          var source = try RecordingFrontEnd(path: recording, board: board)
          for warning in source.warnings { StandardError.line("panelctl: warning: \(warning)") }
          // The host's changes, as `replay` applies them after each frame
          // (an interaction of the board's on the side keeps the map that
          // `quick_actions` lines change, and refuses what the stream would).
          var shadow = Interaction(board: board, regions: setup.regions, calibrated: !calibration.isNominal)
          while try source.next(into: &frame) {
            writer.writeFrame(&frame, to: &sink)
            if writer.failed { break }
            guard setup.control != nil else { continue }
            let (due, errors) = setup.control!.pollLines(time: frame.time)
            for e in errors { setup.warnings.warn("control line", "panelctl: warning: \(e)") }
            for (command, line) in due {
              do {
                try shadow.apply(command)
              } catch {
                setup.warnings.warn("control line", "panelctl: warning: \(setup.control!.path):\(line): \(error)")
                continue
              }
              switch command {
              case .sensitivity(let s): writer.writeSensitivity(s, to: &sink)
              case .forceTouch(let on): writer.writeForceTouch(on, to: &sink)
              case .regions, .quickActions:
                write(shadow.regions, with: &writer, to: &sink)
                writer.writeRegions(to: &sink)
              }
            }
          }
          for line in setup.warnings.summary { StandardError.line("panelctl: core export: \(line)") }
        }
        writer.flush(to: &sink)
        if writer.failed { throw CommandFailure(message: sink.failure, status: .error) }
      }

      /// `map`'s items as `region` lines.
      func write(_ map: RegionMap, with writer: inout ScriptWriter, to sink: inout DescriptorSink) {
        for r in map.rectangles {
          writer.writeRegion(x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1, traits: r.traits, to: &sink)
        }
      }
    }

    struct Run: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Run the touch stack on a core script; write its trace (standard output).",
        discussion: """
          One line per frame: frame, time, outcome, touched, load absorbed, \
          a hash of the force image, the contacts (x, y in um, force in \
          1/1024 mN, peak cell, cells); with the touch layer, the frame's \
          report (touches with id, phase, position, force, stage; events) \
          when it has any; then the health counters. The same code runs on \
          a microcontroller (Firmware/), so the traces compare byte for byte \
          (docs/firmware.md).
          """)

      @Argument(help: ArgumentHelp("A core script (panelctl core export).", valueName: "SCRIPT"))
      var script: String

      func run() throws {
        let fd = FileDescriptor(rawValue: try InputFile.open(script))
        defer { fd.close() }
        var source = DescriptorSource(fd: fd)
        var sink = DescriptorSink(fd: .standardOutput)
        var meter = NoMeter()
        do {
          _ = try CoreRun.run(&source, &sink, meter: &meter)
        } catch {
          if !source.failure.isEmpty { throw FileError(file: script, message: source.failure) }
          if !sink.failure.isEmpty { throw CommandFailure(message: sink.failure, status: .error) }
          throw FileError(file: script, line: error.line, message: error.message.description)
        }
      }
    }
  }
}

/// A file descriptor read for a core script.
struct DescriptorSource: ByteSource {
  let fd: FileDescriptor
  var failure = ""

  mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    do throws(Errno) {
      return try fd.read(into: buffer)
    } catch {
      failure = "cannot read: \(error)"
      return -1
    }
  }
}

/// A file descriptor a script or trace is written to.
struct DescriptorSink: ByteSink {
  let fd: FileDescriptor
  var failure = ""

  mutating func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
    do throws(Errno) {
      try fd.writeAll(bytes)
      return true
    } catch {
      failure = "standard output: cannot write: \(error)"
      return false
    }
  }
}
