import ForceCore
import PanelFormats
import PanelHardware

/// Where a live step is.
public enum LivePhase: Sendable, Equatable {
  /// Waiting for the readings to change (the mass to arrive).
  case waitingForLoad
  /// Waiting for the readings to stay still; `score` <= 1 is still,
  /// `settled` is the fraction of the settling time already still.
  case settling(score: Double, settled: Double)
  /// Recording the step; `fraction` done.
  case recording(fraction: Double)
}

/// What a live calibration tells the person or the fixture running it.
public protocol LiveCalibrationObserver {
  /// A step begins (`index` from 1 of `count`). A fixture controller's
  /// observer blocks here until the controller says the step is in place.
  mutating func begin(_ step: CalibrationStep, index: Int, count: Int) throws(CalibrationRunError)
  /// Called once per stability window.
  mutating func update(_ step: CalibrationStep, phase: LivePhase)
  mutating func recorded(_ step: CalibrationStep)
  /// Checked between frames (Ctrl-C).
  var shouldStop: Bool { get }
}

/// Why a live calibration stopped before its end.
public enum CalibrationRunError: Error, CustomStringConvertible, Sendable {
  case frontEnd(FrontEndError)
  case file(FileError)
  /// A step did not settle, or no load arrived, in time.
  case timeout(step: String, String)
  /// The source ran out of frames.
  case ended(step: String)
  /// Ctrl-C, or the fixture controller said so.
  case stopped(step: String, String)

  public var description: String {
    switch self {
    case .frontEnd(let e): return e.description
    case .file(let e): return e.description
    case .timeout(let step, let why): return "\(step): \(why)"
    case .ended(let step): return "\(step): the panel stopped delivering frames"
    case .stopped(let step, let why): return "stopped at \(step): \(why)"
    }
  }
}

/// Runs a plan on a live panel and records the session (docs/formats.md):
/// for each step the fixture (or the simulated panel itself)
/// applies the load, the readings are watched until they are still, then
/// the step is recorded; a step disturbed while recording is recorded
/// again. `plan.toml` is written last, so a directory without it is an
/// incomplete session.
public struct LiveCalibration<Source: FrontEnd> {
  public private(set) var source: Source
  public let board: Board
  public let timing: CalibrationTiming
  public let session: CalibrationSession
  /// Applies a step's load and temperature itself (a simulated panel); nil
  /// when a person or a fixture does.
  let placeLoad: ((inout Source, CalibrationStep, Double) -> Void)?
  public private(set) var detector: StabilityDetector
  var frame: RawFrame
  /// Recordings disturbed and taken again.
  public private(set) var retakes = 0
  static var maxRetakes: Int { 5 }

  public init(
    source: Source, board: Board, plan: CalibrationPlan, session: CalibrationSession,
    placeLoad: ((inout Source, CalibrationStep, Double) -> Void)? = nil
  ) {
    self.source = source
    self.board = board
    self.timing = plan.timing
    self.session = session
    self.placeLoad = placeLoad
    detector = StabilityDetector(
      cellCount: board.cellCount, rate_hz: board.rate_hz, window_s: plan.timing.window_s,
      settle_s: plan.timing.settle_s)
    frame = RawFrame(cellCount: board.cellCount)
  }

  /// Runs every step and writes the session.
  public mutating func run<O: LiveCalibrationObserver>(_ observer: inout O) throws(CalibrationRunError) {
    do {
      try Directory.create(session.directory)
    } catch {
      throw .file(error)
    }
    if TextFile.exists(session.planPath) {
      throw .file(FileError(file: session.planPath, message: "the directory already holds a session; record into a new one"))
    }
    do {
      try source.start()
    } catch {
      throw .frontEnd(error)
    }
    // A first window gives the levels to compare the first load against.
    while try !nextWindow(name: "start") {}
    var previous: CalibrationStep?
    var setPoint: Double?
    for (i, step) in session.steps.enumerated() {
      try observer.begin(step, index: i + 1, count: session.steps.count)
      let moves = previous.map { !$0.samePlacement(as: step) } ?? false
      let heats = step.temp_c != nil && step.temp_c != setPoint
      if let c = step.temp_c { setPoint = c }
      if moves || heats, let placeLoad { placeLoad(&source, step, timing.rise_s) }
      try measure(step, expectChange: moves, setPoint: setPoint, observer: &observer)
      // The creep allowance is relative to the zero (refreshed at every tare).
      if step.role == .tare { detector.zeroLevel = detector.level }
      observer.recorded(step)
      previous = step
    }
    do {
      try AtomicFile.write(session.encodedPlan(), to: session.planPath)
    } catch {
      throw .file(error)
    }
  }

  /// Reads frames until a stability window completes.
  mutating func nextWindow(name: String) throws(CalibrationRunError) -> Bool {
    let more: Bool
    do {
      more = try source.next(into: &frame)
    } catch {
      throw .frontEnd(error)
    }
    guard more else { throw .ended(step: name) }
    return detector.add(&frame)
  }

  /// Waits for the load (when it changes), for stillness, then records.
  mutating func measure<O: LiveCalibrationObserver>(
    _ step: CalibrationStep, expectChange: Bool, setPoint: Double?, observer: inout O
  ) throws(CalibrationRunError) {
    let rate = Double(board.rate_hz)
    let limit = Int(saturating: timing.timeout_s * rate)
    let reference = detector.level
    detector.restart()
    var frames = 0
    var waiting = expectChange
    var rows: [Int32] = []
    var times: [Int64] = []
    var temperatures: [Double?] = []
    let wanted = max(StepData.minimumFrames, Int(saturating: (step.record_s * rate).rounded()))
    rows.reserveCapacity(wanted * board.cellCount)
    var recording = false
    var again = 0
    while true {
      if observer.shouldStop { throw .stopped(step: step.name, "interrupted") }
      let more: Bool
      do {
        more = try source.next(into: &frame)
      } catch {
        throw .frontEnd(error)
      }
      guard more else { throw .ended(step: step.name) }
      frames += 1
      let windowDone = detector.add(&frame)
      if recording {
        for k in 0..<board.cellCount { rows.append(frame.counts[k]) }
        times.append(frame.time.rawValue)
        temperatures.append(frame.hasTemperature ? frame.temperature.celsius : nil)
        if times.count >= wanted {
          try write(step, rows: rows, times: times, temperatures: temperatures)
          return
        }
        if windowDone {
          if detector.score > 1 {
            // Disturbed while recording: take it again.
            retakes += 1
            again += 1
            if again > Self.maxRetakes {
              throw .timeout(step: step.name, "the readings keep moving while the step is recorded (\(again) retakes)")
            }
            recording = false
            rows.removeAll(keepingCapacity: true)
            times.removeAll(keepingCapacity: true)
            temperatures.removeAll(keepingCapacity: true)
          } else {
            observer.update(step, phase: .recording(fraction: Double(times.count) / Double(wanted)))
          }
        }
        continue
      }
      guard windowDone else { continue }
      if waiting {
        let change = detector.change(from: reference)
        if change.sigmas >= 10 {
          waiting = false
          detector.restart()
        } else {
          observer.update(step, phase: .waitingForLoad)
          if frames > limit {
            throw .timeout(
              step: step.name,
              "no change in \(Format.short(timing.timeout_s)) s: was the \(Format.short(step.load_g)) g mass placed at (\(Format.short(step.x_mm)), \(Format.short(step.y_mm))) mm?")
          }
          continue
        }
      }
      var still = detector.isStill
      if let target = setPoint, frame.hasTemperature, abs(frame.temperature.celsius - target) > 0.5 { still = false }
      observer.update(step, phase: .settling(score: detector.score, settled: detector.settled))
      if still {
        recording = true
      } else if frames > limit {
        let moving = detector.score.isFinite ? " (score \(Format.short(detector.score)))" : ""
        throw .timeout(step: step.name, "the readings did not settle in \(Format.short(timing.timeout_s)) s\(moving)")
      }
    }
  }

  func write(_ step: CalibrationStep, rows: [Int32], times: [Int64], temperatures: [Double?]) throws(CalibrationRunError) {
    let n = board.cellCount
    do {
      var writer = try RecordingWriter(
        path: session.path(of: step), header: RecordingHeader(cellCount: n, hasTemperature: true))
      try rows.withUnsafeBufferPointer { (all) throws(FileError) in
        for (i, t) in times.enumerated() {
          try writer.append(
            tUs: t, counts: UnsafeBufferPointer(rebasing: all[(i * n)..<((i + 1) * n)]), temperatureC: temperatures[i])
        }
      }
      try writer.finish()
    } catch {
      throw .file(error)
    }
  }
}

/// Directories.
public enum Directory {
  /// Creates `path` and its missing parents.
  public static func create(_ path: String) throws(FileError) {
    var current = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/") {
      current += part + "/"
      do throws(Errno) {
        try FileSystem.makeDirectory(current)
      } catch where error == .fileExists {
      } catch {
        throw FileError(file: path, message: "cannot create the directory: " + error.description.lowercased())
      }
    }
  }

  /// The bytes of the regular files under `path`, its subfolders included
  /// (symlinks not followed; what cannot be read counts 0).
  public static func size(_ path: String) -> Int64 {
    var total: Int64 = 0
    for name in FileSet.entries(of: path) {
      let child = path.hasSuffix("/") ? path + name : path + "/" + name
      guard let status = try? FileSystem.status(child, followLinks: false) else { continue }
      switch status.kind {
      case .directory: total += size(child)
      case .regular: total += Int64(status.size)
      default: break
      }
    }
    return total
  }

  /// Creates a directory of its own for this run: `base`, or `base-2`,
  /// `base-3`, ... when another run has it (`mkdir` is the claim, so two
  /// runs started in the same second never share one). Returns its path.
  public static func createNew(_ base: String) throws(FileError) -> String {
    try create(Paths.directory(of: base))
    for n in 1...1000 {
      let path = n == 1 ? base : "\(base)-\(n)"
      do throws(Errno) {
        try FileSystem.makeDirectory(path)
        return path
      } catch where error == .fileExists {
      } catch {
        throw FileError(file: path, message: "cannot create the directory: " + error.description.lowercased())
      }
    }
    throw FileError(file: base, message: "1000 directories of this name already exist")
  }
}
