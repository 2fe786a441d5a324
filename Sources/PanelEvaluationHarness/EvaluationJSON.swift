import PanelCalibration
import PanelFirmware

/// The evaluation as JSON: the bars, every panel with its calibration and
/// each scenario's figures, counts and files, and the misses.
package enum EvaluationJSON {
  package static func text(_ results: [PanelResult], seed: UInt64, quick: Bool) -> String {
    var w = JSONWriter()
    let misses = results.flatMap(\.misses)
    w.object { w in
      w.field("format", "forcepanel-evaluation")
      w.field("version", 1)
      w.key("seed")
      w.value("\(seed)")
      w.field("quick", quick)
      w.field("passed", misses.isEmpty)
      w.field("bars", array: { w in
        for bar in EvaluationBar.all {
          w.object { w in
            w.field("metric", bar.metric.rawValue)
            w.field("at_least", bar.atLeast)
            w.field("plate", bar.plate)
            w.field("grid", bar.grid)
            if let s = bar.scenarios { w.field("scenarios", array: { w in for name in s { w.value(JSONWriter.quoted(name)) } }) }
            if !bar.except.isEmpty {
              w.field("except", array: { w in for name in bar.except { w.value(JSONWriter.quoted(name)) } })
            }
            if let p = bar.maxPitch_mm { w.field("max_pitch_mm", p) }
          }
        }
      })
      w.field("panels", array: { w in
        for r in results { panel(r, &w) }
      })
      w.field("misses", array: { w in
        for m in misses {
          w.object { w in
            w.field("panel", m.panel)
            w.field("scenario", m.scenario)
            w.field("metric", m.metric.rawValue)
            w.field("value", m.value)
            w.field("bar", m.bar)
          }
        }
      })
    }
    return w.text + "\n"
  }

  static func panel(_ r: PanelResult, _ w: inout JSONWriter) {
    w.object { w in
      w.field("name", r.board)
      w.field("origin", r.panel.origin.rawValue)
      w.field("kind", r.panel.kind.rawValue)
      w.field("board_file", r.boardFile)
      w.field("plan_file", r.planFile)
      w.field("rate_hz", r.rate_hz)
      w.field("envelope", r.envelope)
      w.field("calibration", object: { w in
        let c = r.calibration
        if let p = c.passed { w.field("passed", p) } else { w.field("passed", nil as Double?) }
        w.field("failed_checks", c.failedChecks)
        if let f = c.firstFailure { w.field("first_failure", f) }
        if let s = c.stopped { w.field("stopped", s) }
        if let m = c.model { w.field("model", m) }
        w.field("spread_mm", c.spread_mm)
        w.field("residual_pct", c.residual_pct)
        w.field("verification_force_pct", c.verificationForce_pct)
        w.field("verification_position_rms_mm", c.verificationPosition_mm)
        if let path = r.calibrationRecord { w.field("record", path) }
      })
      w.field("scenarios", array: { w in
        for s in r.scenarios {
          w.object { w in
            w.field("name", s.name)
            w.field("summary", s.summary)
            w.field("frames", s.frames)
            w.field("files", object: { w in
              w.field("scenario", s.scenarioFile)
              w.field("recording", s.recording)
              w.field("reports", s.reports)
            })
            w.field("metrics", object: { w in
              for metric in EvaluationMetric.allCases { w.field(metric.rawValue, metric.value(in: s.score)) }
            })
            let c = s.score
            w.field("counts", object: { w in
              w.field("fingers", c.fingers)
              w.field("found", c.found)
              w.field("touches", c.touches)
              w.field("splits", c.splits)
              w.field("false_touches", c.falseTouches)
              w.field("taps", c.taps)
              w.field("peek_presses", c.peekPresses)
              w.field("pop_presses", c.popPresses)
              w.field("pairs", c.pairs)
              w.field("held_fingers", c.heldFingers)
            })
            w.field("misses", array: { w in
              for m in r.misses where m.scenario == s.name { w.value(JSONWriter.quoted(m.metric.rawValue)) }
            })
          }
        }
      })
    }
  }
}
