import ForceCore

/// Brackets ForceCore's part of a frame (`ForcePipeline.process`): a
/// cycle counter on a microcontroller. Nothing else of the frame is inside.
public protocol CoreMeter {
  mutating func willProcessCore()
  mutating func didProcessCore()
}

/// No measuring.
public struct NoCoreMeter: CoreMeter {
  public init() {}
  @inline(__always) public func willProcessCore() {}
  @inline(__always) public func didProcessCore() {}
}

/// One frame's way through the touch stack: ForceCore's pipeline, the
/// tracker, the interaction, into the frame's report. The scan loop runs
/// it on a host (PanelStreaming's `ScanLoop`) and CoreRunner on a
/// microcontroller, so that both are the same code. Allocation-free.
public enum TouchFrame {
  /// Runs `frame` through the stack and makes its report, numbered
  /// `number`. When `last` (the stream ends with this frame), the touches
  /// still down are cancelled in this report (docs/formats.md, "The end of
  /// a stream").
  @inline(__always)
  public static func process(
    _ frame: inout RawFrame, number: UInt64, last: Bool, pipeline: inout ForcePipeline, tracker: inout Tracker,
    interaction: inout Interaction, report: inout FrameReport
  ) {
    var meter = NoCoreMeter()
    process(
      &frame, number: number, last: last, pipeline: &pipeline, tracker: &tracker, interaction: &interaction,
      report: &report, meter: &meter)
  }

  /// `process`, with ForceCore's part bracketed by `meter`.
  @inline(__always)
  public static func process<M: CoreMeter>(
    _ frame: inout RawFrame, number: UInt64, last: Bool, pipeline: inout ForcePipeline, tracker: inout Tracker,
    interaction: inout Interaction, report: inout FrameReport, meter: inout M
  ) {
    interaction.observe(&frame)
    meter.willProcessCore()
    pipeline.process(&frame)
    meter.didProcessCore()
    tracker.update(
      contacts: interaction.contacts(of: &pipeline), outcome: pipeline.outcome, loadAbsorbed: pipeline.loadAbsorbed)
    if last { tracker.cancelInThisFrame() }
    makeReport(time: frame.time, number: number, tracker: &tracker, interaction: &interaction, report: &report)
  }

  /// Ends a run whose last report was made without knowing it was the last
  /// (the source failed, or ended without saying so first): every touch
  /// still active is cancelled in a closing report at `time`, numbered
  /// `number` (the frame after the last, 1 us after it). Returns false
  /// (and leaves `report` empty) when no touch was active.
  public static func finish(
    time: Time_us, number: UInt64, tracker: inout Tracker, interaction: inout Interaction, report: inout FrameReport
  ) -> Bool {
    tracker.cancelAll()
    guard tracker.count > 0 else {
      report.removeAll()
      return false
    }
    makeReport(time: time, number: number, tracker: &tracker, interaction: &interaction, report: &report)
    return true
  }

  /// The report of the tracker's touches: stages, items and events from
  /// the interaction.
  @inline(__always)
  static func makeReport(
    time: Time_us, number: UInt64, tracker: inout Tracker, interaction: inout Interaction, report: inout FrameReport
  ) {
    report.removeAll()
    report.time = time
    report.frame = number
    for i in 0..<tracker.count {
      report.append(TouchReport(touch: tracker[i]))
    }
    interaction.update(&report)
  }
}
