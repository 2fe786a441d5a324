import PanelCalibration
import PanelFormats

/// How a panel's calibration went in the evaluation.
package struct CalibrationOutcome: Sendable {
  /// Every check passed (nil: nothing was computed, the live run stopped).
  package var passed: Bool?
  package var failedChecks = 0
  package var firstFailure: String?
  /// Why the live calibration stopped, when it did; the scenarios then run
  /// on the simulator's true calibration instead (`panelctl sim truth`).
  package var stopped: String?
  package var model: String?
  package var spread_mm: Double?
  package var residual_pct: Double?
  /// Verification through the pipeline: worst force error at or above its
  /// floor (%), position RMS (mm).
  package var verificationForce_pct: Double?
  package var verificationPosition_mm: Double?

  package init() {}

  init(_ r: CalibrationResult) {
    passed = r.passed
    failedChecks = r.checks.filter { !$0.passed }.count
    firstFailure = r.firstFailure
    model = r.record.fit?.model
    spread_mm = r.record.fit?.spread_mm
    residual_pct = r.record.fit?.residual_pct
    if !r.verification.isEmpty {
      let a = AccuracySummary(r.verification, floor_n: r.session.limits.forceFloor_n)
      verificationForce_pct = a.worstForce_pct
      verificationPosition_mm = a.positionRMS_mm
    }
  }

  /// One line: `pass, residual 0.16 %, verification 0.27 % / 0.04 mm`.
  package var summary: String {
    if let stopped { return "stopped (\(stopped)); scenarios on the true calibration" }
    var s = passed == true ? "pass" : "fail (\(failedChecks) checks)"
    if let r = residual_pct { s += ", residual \(Format.fixed(r, 2)) %" }
    if let s2 = spread_mm { s += " (\(Format.fixed(s2, 1)) mm)" }
    if let f = verificationForce_pct, let p = verificationPosition_mm {
      s += ", verification \(Format.fixed(f, 2)) % / \(Format.fixed(p, 2)) mm"
    }
    return s
  }
}

/// One scenario's run on one panel.
package struct ScenarioResult: Sendable {
  package var name: String
  package var summary: String
  package var frames: Int
  package var score: ScenarioScore
  /// The files it left in the panel's folder.
  package var scenarioFile: String
  package var recording: String
  package var reports: String
}

/// One panel's evaluation.
package struct PanelResult: Sendable {
  package var panel: EvaluationPanel
  package var board: String
  package var boardFile: String
  package var planFile: String
  package var rate_hz: Int
  /// A grid's pitch, mm (nil on a plate).
  package var pitch_mm: Double?
  /// Where it sits in the envelope, one line.
  package var envelope: String
  package var calibration: CalibrationOutcome
  package var calibrationRecord: String?
  package var scenarios: [ScenarioResult] = []

  /// The figures that miss their bars.
  package var misses: [EvaluationMiss] {
    var list: [EvaluationMiss] = []
    for s in scenarios {
      for metric in EvaluationMetric.allCases {
        guard let bar = EvaluationBar.bar(metric, scenario: s.name, pitch_mm: pitch_mm), let v = metric.value(in: s.score)
        else { continue }
        if !bar.met(v, panel.kind, s.score) {
          list.append(
            EvaluationMiss(panel: board, scenario: s.name, metric: metric, value: v, bar: bar.describe(panel.kind, s.score)))
        }
      }
    }
    return list
  }
}
