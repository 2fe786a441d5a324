import ForceCore
import PanelCalibration
import PanelFirmware
import PanelFormats
import PanelHardware
import PanelSimulation
import PanelStreaming

/// The evaluation's steps on one panel, each the library path of a
/// command: a live simulated calibration (`calibrate --plan ... --speed 0`),
/// its computation (`calibrate --session`), a recording (`record
/// --scenario ... --speed 0`) and its replay (`replay`).
package enum EvaluationSteps {
  /// What a live calibration run says to nobody (an unattended fixture).
  struct Unattended: LiveCalibrationObserver {
    mutating func begin(_ step: CalibrationStep, index: Int, count: Int) throws(CalibrationRunError) {}
    mutating func update(_ step: CalibrationStep, phase: LivePhase) {}
    mutating func recorded(_ step: CalibrationStep) {}
    var shouldStop: Bool { false }
  }

  /// Runs `plan` live on the simulated panel of `board` (the simulator
  /// places the masses), recording the session into `directory`.
  package static func calibrateLive(
    board: Board, plan: CalibrationPlan, directory: String, date: String
  ) throws(EvaluationError) {
    let parameters: SimulationParameters
    do {
      parameters = try board.simulationParameters
    } catch {
      throw .file(error)
    }
    let panel = SimulatedPanel(board: board, parameters: parameters, scenario: .idle(), duration_s: .infinity, speed: 0)
    let session = CalibrationSession(recording: plan, directory: directory, serial: parameters.serial, date: date)
    var run = LiveCalibration(source: panel, board: board, plan: plan, session: session) { panel, step, rise in
      panel.apply(step, rise_s: rise)
    }
    var observer = Unattended()
    do {
      try run.run(&observer)
    } catch {
      throw .calibration(error)
    }
  }

  /// Computes the calibration of the session in `directory`, and writes
  /// what `calibrate --session --out STEM.toml` writes: the record and its
  /// certificate when every check passes, else the failed certificate
  /// (`STEM.failed.certificate.*`) and, so that the scenarios can be
  /// replayed by hand with it, the fitted record without its verdict
  /// (`STEM.unchecked.toml`).
  package static func calibrate(board: Board, directory: String, stem: String) throws(FileError) -> CalibrationResult {
    let session = try CalibrationSession.load(directory: directory, board: board)
    let result = try CalibrationComputation.run(session: session, board: board, created: session.date)
    if result.passed {
      try result.record.write(to: stem + ".toml")
    } else {
      try unchecked(result.record).write(to: stem + ".unchecked.toml")
    }
    let certificate = stem + (result.passed ? ".certificate" : ".failed.certificate")
    try AtomicFile.write(Certificate.html(result), to: certificate + ".html")
    try AtomicFile.write(Certificate.json(result), to: certificate + ".json")
    return result
  }

  /// A failed calibration's fitted parameters as a record that loads: its
  /// verdict and checks left out (they are in the failed certificate).
  package static func unchecked(_ record: CalibrationRecord) -> CalibrationRecord {
    var r = record
    r.result = ""
    r.checks = []
    return r
  }

  /// Records `scenarioPath` on the simulated panel of `board` into
  /// `recording` (a raw recording, docs/formats.md), as fast as it
  /// can; returns the frames written.
  @discardableResult
  package static func record(board: Board, scenarioPath: String, to recording: String) throws(EvaluationError) -> Int {
    do {
      var source = try FrontEndFactory.make(board: board, options: RunOptions(scenarioPath: scenarioPath, speed: 0))
      try source.start()
      var frame = RawFrame(cellCount: board.cellCount)
      var writer = try RecordingWriter(
        path: recording, header: RecordingHeader(cellCount: board.cellCount, hasTemperature: true))
      var count = 0
      while try source.next(into: &frame) {
        // A frame a chip could not deliver is not data: it is left out.
        guard frame.valid else { continue }
        try frame.counts.span.withUnsafeBufferPointer { counts throws(FileError) in
          try writer.append(
            tUs: frame.time.rawValue, counts: UnsafeBufferPointer(rebasing: counts[0..<board.cellCount]),
            temperatureC: frame.hasTemperature ? frame.temperature.celsius : nil)
        }
        count += 1
      }
      try writer.finish()
      return count
    } catch let e as FileError {
      throw .file(e)
    } catch let e as FrontEndError {
      throw .frontEnd(recording, e)
    } catch {
      throw .file(FileError(file: recording, message: "\(error)"))
    }
  }

  /// Replays `recording` through the scan loop with `calibration`, as
  /// `replay` does: the NDJSON report stream goes to `reports`, and comes
  /// back as a log for scoring.
  package static func replay(
    board: Board, recording: String, calibration: CalibrationRecord, reports: String
  ) throws(EvaluationError) -> ReportLog {
    let source: RecordingFrontEnd
    do {
      source = try RecordingFrontEnd(path: recording, board: board)
    } catch {
      throw .file(error)
    }
    let output = MemoryOutput()
    var sinks = SinkPair(NDJSONSink(output: output, board: board), ReportLogSink())
    let loop = ScanLoop(source: source, board: board, calibration: calibration)
    do {
      try loop.source.start()
      while try loop.step() { try sinks.consume(loop) }
      // Touches still down at the end are cancelled, not left open.
      if loop.finish() { try sinks.consume(loop) }
      try sinks.finish()
      try AtomicFile.write(output.bytes, to: reports)
    } catch let e as FrontEndError {
      throw .frontEnd(recording, e)
    } catch let e as SinkError {
      throw .file(FileError(file: reports, message: e.description))
    } catch let e as FileError {
      throw .file(e)
    } catch {
      throw .file(FileError(file: recording, message: "\(error)"))
    }
    var log = sinks.second.log
    log.frames = Int(loop.frames)
    return log
  }
}

/// Why an evaluation step failed.
package enum EvaluationError: Error, CustomStringConvertible, Sendable {
  case file(FileError)
  case frontEnd(String, FrontEndError)
  /// The live calibration stopped (a step did not settle in time).
  case calibration(CalibrationRunError)

  package var description: String {
    switch self {
    case .file(let e): return e.description
    case .frontEnd(let path, let e): return "\(path): \(e.description)"
    case .calibration(let e): return "live calibration: \(e.description)"
    }
  }
}

/// Messages kept in memory (a report stream written to its file at the end).
final class MemoryOutput: MessageOutput {
  var bytes: [UInt8] = []

  func send(_ message: ByteBuffer) throws(SinkError) {
    bytes.append(contentsOf: message.bytes)
    message.removeAll()
  }

  func close() {}
}
