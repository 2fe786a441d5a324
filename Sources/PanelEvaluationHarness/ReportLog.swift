import PanelHardware
import PanelStreaming
import PanelTouch

/// A report stream kept in memory for scoring: every touch of every frame
/// and every touch event, in the units the stream reports.
package struct ReportLog: Sendable, Equatable {
  /// One touch in one frame's report.
  package struct Sample: Sendable, Equatable {
    package var t_us: Int64
    package var id: UInt32
    package var phase: TouchPhase
    package var x_mm: Double
    package var y_mm: Double
    package var force_n: Double
    package var stage: Stage
    package init(t_us: Int64, id: UInt32, phase: TouchPhase, x_mm: Double, y_mm: Double, force_n: Double, stage: Stage) {
      self.t_us = t_us
      self.id = id
      self.phase = phase
      self.x_mm = x_mm
      self.y_mm = y_mm
      self.force_n = force_n
      self.stage = stage
    }
  }

  /// One event about one touch.
  package struct Event: Sendable, Equatable {
    package var t_us: Int64
    package var kind: EventKind
    package var touch: UInt32
    package init(t_us: Int64, kind: EventKind, touch: UInt32) {
      self.t_us = t_us
      self.kind = kind
      self.touch = touch
    }
  }

  package var samples: [Sample] = []
  package var events: [Event] = []
  /// Frames the stream covered (set by whoever ran it).
  package var frames = 0

  package init(samples: [Sample] = [], events: [Event] = [], frames: Int = 0) {
    self.samples = samples
    self.events = events
    self.frames = frames
  }

  /// Adds a frame's report.
  package mutating func append(_ report: inout FrameReport) {
    let t = report.time.rawValue
    for i in 0..<report.touchCount {
      let r = report[touch: i]
      samples.append(
        Sample(
          t_us: t, id: r.touch.id, phase: r.touch.phase, x_mm: r.touch.x.millimetres, y_mm: r.touch.y.millimetres,
          force_n: r.touch.force.newtons, stage: r.stage))
    }
    for i in 0..<report.eventCount {
      let e = report[event: i]
      if !e.kind.isPanelEvent { events.append(Event(t_us: t, kind: e.kind, touch: e.touch)) }
    }
  }
}

/// Keeps the report stream of a run in a `ReportLog` (an evaluation's sink:
/// it grows with the touches it sees, unlike the run's own sinks).
package struct ReportLogSink: FrameSink {
  package var log = ReportLog()
  package init() {}

  package mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    loop.withReport { log.append(&$0) }
  }

  package mutating func finish() throws(SinkError) {}
}
