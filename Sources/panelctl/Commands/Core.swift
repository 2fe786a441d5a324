import ArgumentParser
import CoreRunner
import ForceCore
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

extension PanelCtl {
  /// ForceCore on its own: core scripts (a panel's core setup and raw frames
  /// in the core's fixed-point units) and their traces, as a
  /// microcontroller running ForceCore reads and writes them (docs/firmware.md).
  struct Core: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "ForceCore on its own: export a core script, run one.",
      subcommands: [Export.self, Run.self])

    struct Export: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Write a board's core setup, and a recording's frames, as a core script (standard output).",
        discussion: """
          The setup is what the board's pipeline is built from: geometry, \
          configuration, each cell's calibration and any coupling, in the \
          core's fixed-point formats; a firmware can compile it in or load it.
          """)

      @Argument(help: ArgumentHelp("A raw recording (CSV) whose frames to add.", valueName: "RECORDING.csv"))
      var recording: String?

      @OptionGroup var boardOptions: BoardOptions

      func run() throws {
        let board = try boardOptions.loadBoard()
        let calibration = try boardOptions.loadCalibration(for: board)
        var sink = DescriptorSink(fd: 1)
        var writer = ScriptWriter()
        var cells = calibration.coreCalibration
        writer.writeSetup(
          geometry: board.geometry, calibration: &cells, configuration: calibration.coreConfiguration(board: board),
          coupling: calibration.coreCoupling, to: &sink)
        if let recording {
          var source = try RecordingFrontEnd(path: recording, board: board)
          for warning in source.warnings { StandardError.line("panelctl: warning: \(warning)") }
          var frame = RawFrame(cellCount: board.cellCount)
          while try source.next(into: &frame) {
            writer.writeFrame(&frame, to: &sink)
            if writer.failed { break }
          }
        }
        writer.flush(to: &sink)
        if writer.failed { throw CommandFailure(message: sink.failure, status: .error) }
      }
    }

    struct Run: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Run ForceCore on a core script; write its trace (standard output).",
        discussion: """
          One line per frame: frame, time, outcome, touched, load absorbed, \
          a hash of the force image, the contacts (x, y in um, force in \
          1/1024 mN, peak cell, cells); then the health counters. The same \
          code runs on a microcontroller (Firmware/), so the traces compare \
          byte for byte.
          """)

      @Argument(help: ArgumentHelp("A core script (panelctl core export).", valueName: "SCRIPT"))
      var script: String

      func run() throws {
        let fd = try InputFile.open(script)
        defer { close(fd) }
        var source = DescriptorSource(fd: fd)
        var sink = DescriptorSink(fd: 1)
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
  let fd: Int32
  var failure = ""

  mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
      let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      if errno == EINTR { continue }
      failure = "cannot read: " + String(cString: strerror(errno))
      return -1
    }
  }
}

/// A file descriptor a script or trace is written to.
struct DescriptorSink: ByteSink {
  let fd: Int32
  var failure = ""

  mutating func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var done = 0
    while done < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
      if n > 0 {
        done += n
      } else if n < 0 && errno == EINTR {
        continue
      } else {
        failure = "standard output: cannot write: " + String(cString: strerror(errno))
        return false
      }
    }
    return true
  }
}
