import ForceCore

/// One frame's journey, from the front end to a report: front end -> core
/// (calibration, baselines, force image, contacts) -> tracker (ids, phases)
/// -> interaction (stages, regions, events). Generic over the front end; all
/// state is sized at setup, so `step` allocates nothing.
///
/// A class: its state (tens of kilobytes of fixed-capacity storage) lives
/// in one allocation made at setup instead of on a thread's stack.
public final class ScanLoop<Source: FrontEnd> {
  public var source: Source
  public private(set) var pipeline: ForcePipeline
  public private(set) var tracker: Tracker
  /// Stages, regions, capability; the host's settings are changed here.
  public var interaction: Interaction
  /// The frame last read.
  public private(set) var frame: RawFrame
  /// The report of the frame last processed.
  public private(set) var report = FrameReport()
  /// Frames processed so far.
  public private(set) var frames: UInt64 = 0

  /// - Parameter regions: the host's items (nil: the whole panel peeks).
  public init(source: Source, board: Board, calibration: CalibrationRecord, regions: RegionMap? = nil) {
    self.source = source
    self.pipeline = ForcePipeline(
      geometry: board.geometry, calibration: calibration.coreCalibration,
      configuration: board.coreConfiguration, coupling: calibration.coreCoupling)
    self.tracker = Tracker(settings: TrackerSettings(board: board))
    self.interaction = Interaction(board: board, regions: regions, calibrated: !calibration.isNominal)
    self.frame = RawFrame(cellCount: board.cellCount)
  }

  /// Reads and processes one frame. Returns false when the source ended.
  public func step() throws(FrontEndError) -> Bool {
    guard try source.next(into: &frame) else { return false }
    interaction.observe(&frame)
    pipeline.process(&frame)
    tracker.update(
      contacts: pipeline.contacts, outcome: pipeline.outcome, loadAbsorbed: pipeline.loadAbsorbed)
    makeReport(time: frame.time)
    frames += 1
    return true
  }

  /// Ends the run: every touch still active is cancelled, so each touch
  /// that began ends with exactly one `ended` or `cancelled`. Returns false
  /// (and leaves `report` empty) when no touch was active.
  public func finish() -> Bool {
    tracker.cancelAll()
    makeReport(time: frame.time)
    return !report.isEmpty
  }

  func makeReport(time: Time_us) {
    report.removeAll()
    report.time = time
    report.frame = frames
    for i in 0..<tracker.count {
      report.append(TouchReport(touch: tracker[i]))
    }
    interaction.update(&report)
  }
}
