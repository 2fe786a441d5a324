import ForceCore
import PanelFormats
import PanelHardware
import PanelMechanics
import PanelTouch

/// One frame's journey, from the front end to a report: front end -> core
/// (calibration, baselines, force image, contacts) -> tracker (ids, phases)
/// -> interaction (stages, regions, events) (`TouchFrame`, which a
/// microcontroller runs too). Generic over the front end; all state is
/// sized at setup, so `step` allocates nothing.
///
/// A class: its state (tens of kilobytes of fixed-capacity storage) lives
/// in one allocation made at setup instead of on a thread's stack.
public final class ScanLoop<Source: FrontEnd> {
  public var source: Source
  public private(set) var pipeline: ForcePipeline
  public private(set) var tracker: Tracker
  /// Stages, regions, capability; the host's settings are changed here.
  public var interaction: Interaction
  /// The frame last read. (Settable within the module only so that sinks
  /// can read it in place, `inout`; nothing else writes it.)
  public internal(set) var frame: RawFrame
  /// The report of the frame last processed. (Settable within the module
  /// only so that the sinks' encoders can read it in place, `inout`; a
  /// borrowed report would be copied whole. They do not modify it.)
  public internal(set) var report = FrameReport()
  /// Frames processed so far.
  public private(set) var frames: UInt64 = 0

  /// The report's frame time (`report.time`), read without copying the
  /// report out of the loop.
  public var reportTime: Time_us { report.time }
  /// The report's frame number (`report.frame`), likewise.
  public var reportFrame: UInt64 { report.frame }

  /// Runs `body` on the report in place, for an encoder outside the module
  /// (a sink of another program, a benchmark): the report is not copied.
  /// `body` must not modify it.
  public func withReport<R, E: Error>(_ body: (inout FrameReport) throws(E) -> R) throws(E) -> R {
    try body(&report)
  }

  /// - Parameter regions: the host's items (nil: the whole panel peeks).
  public init(source: Source, board: Board, calibration: CalibrationRecord, regions: RegionMap? = nil) {
    self.source = source
    self.pipeline = ForcePipeline(
      geometry: board.geometry, calibration: calibration.coreCalibration,
      configuration: calibration.coreConfiguration(board: board), coupling: calibration.coreCoupling)
    self.tracker = Tracker(settings: TrackerSettings(board: board))
    self.interaction = Interaction(board: board, regions: regions, calibrated: !calibration.isNominal)
    self.frame = RawFrame(cellCount: board.cellCount)
  }

  /// Set by the run before `step()` when the frame about to be read is to
  /// be the run's last (a frame limit reached, a stop asked for).
  public var endRequested = false
  /// Whether the run has ended: the frame last processed was the last one
  /// (the source said so, or `endRequested`), and its report cancelled
  /// every touch still down.
  public private(set) var ended = false
  var sourceEnded = false

  /// Reads and processes one frame. Returns false when the source ended
  /// (or the run had already ended).
  ///
  /// When this frame is the run's last — the source knows it has no more
  /// (`FrontEnd.isAtEnd`) or `endRequested` is set — the touches still
  /// down are cancelled in this frame's report, so a stream's last line is
  /// the report of its last frame (docs/formats.md, "The end of a stream").
  public func step() throws(FrontEndError) -> Bool {
    if ended {
      // A source that said it had ended is asked once more, so that what
      // ended it (a malformed row after the last good one) is thrown.
      if sourceEnded { _ = try source.next(into: &frame) }
      return false
    }
    guard try source.next(into: &frame) else { return false }
    sourceEnded = source.isAtEnd
    let last = endRequested || sourceEnded
    TouchFrame.process(
      &frame, number: frames, last: last, pipeline: &pipeline, tracker: &tracker, interaction: &interaction,
      report: &report)
    if last { ended = true }
    frames += 1
    return true
  }

  /// Ends a run whose last report was already made without knowing it
  /// was the last (the source failed, or ended without saying so first):
  /// every touch still active is cancelled, so each touch that began ends
  /// with exactly one `ended` or `cancelled`. Returns false (and leaves
  /// `report` empty) when no touch was active. The closing report has no
  /// frame of its own: it is numbered as the frame after the last, 1 us
  /// after it, so that `t_us` and `frame` still increase strictly
  /// (docs/formats.md, "The end of a stream").
  public func finish() -> Bool {
    guard !ended else { return false }
    sourceEnded = false
    ended = true
    guard
      TouchFrame.finish(
        time: Time_us(rawValue: Saturating.add(frame.time.rawValue, 1)), number: frames, tracker: &tracker,
        interaction: &interaction, report: &report)
    else { return false }
    frames += 1
    return true
  }
}
