import PanelFormats

extension Certificate {
  /// The JSON summary of a calibration.
  public static func json(_ r: CalibrationResult) -> String {
    var w = JSONWriter()
    let limits = r.session.limits
    w.object { w in
      w.field("format", "forcepanel-calibration-summary")
      w.field("version", 1)
      w.field("board", r.board.name)
      w.field("serial", r.record.serial)
      w.field("plan", r.record.plan)
      w.field("date", r.record.created)
      w.field("result", r.passed ? "pass" : "fail")
      w.field("stored", r.storage ?? "")
      // The record this certificate goes with: the CRC-32 of its file.
      if r.passed { w.field("record_crc32", hex32(CRC32.checksum(r.record.encoded().utf8))) }
      w.field("reference_temp_c", r.record.referenceTemperature_c)
      w.field("temperatures_c", array: { w in
        w.value(JSONWriter.number(r.temperatures.low))
        w.value(JSONWriter.number(r.temperatures.high))
      })
      w.field("fit", object: { w in
        w.field("model", r.fit.model.rawValue)
        w.field("spread_mm", r.fit.spread_mm)
        w.field("placements", r.record.fit?.placements ?? 0)
        w.field("residual_pct", r.record.fit?.residual_pct)
        if let k = r.record.fit?.kernel { w.field("kernel", k) }
        if let p = r.fit.profile, r.fit.learnt {
          w.field("profile_step_mm", p.step_mm)
          w.field("profile", array: { w in for v in p.values { w.value(JSONWriter.number(v)) } })
        }
        w.field("rejected_steps", array: { w in
          for s in r.steps where !s.used { w.value(JSONWriter.quoted(s.step.name)) }
        })
      })
      let (results, method) = r.accuracy
      w.field("accuracy", object: { w in
        w.field("method", method.name)
        if case .crossValidation(let folds) = method {
          w.field("folds", folds)
          w.field("skipped_folds", r.crossValidation?.skippedFolds ?? 0)
        }
        accuracy(&w, results, floor: limits.forceFloor_n)
      })
      if let single = r.singlePoint, !single.isEmpty {
        w.field("single_point", object: { w in
          w.field("method", r.singlePointNote)
          accuracy(&w, single, floor: limits.forceFloor_n)
        })
      } else {
        w.field("single_point", object: { w in w.field("method", r.singlePointNote) })
      }
      if let c = r.creep {
        w.field("creep", object: { w in
          w.field("step", c.step.name)
          w.field("measured_pct", c.measured_pct)
          w.field("extrapolated_30min_pct", c.extrapolated_pct)
          w.field("tau_s", c.tau_s)
          w.field("duration_s", c.duration_s)
        })
      }
      w.field("checks", array: { w in
        for c in r.checks {
          w.object { w in
            w.field("name", c.name)
            w.field("subject", c.subject)
            w.field("value", c.value)
            w.field("limit", c.limit)
            w.field("unit", c.unit)
            w.field("passed", c.passed)
            w.field("note", c.note)
          }
        }
      })
      w.field("checks_not_run", array: { w in
        for c in r.checksNotRun {
          w.object { w in
            w.field("name", c.name)
            w.field("why", c.why)
          }
        }
      })
      w.field("cells", array: { w in
        for (k, c) in r.cells.enumerated() {
          let p = r.record.cells[k]
          w.object { w in
            w.field("index", k)
            w.field("responds", c.responds)
            w.field("offset_counts", p.offset_counts)
            w.field("gain_counts_per_n", p.gain_counts_per_n)
            w.field("linearity_per_n", p.linearity_per_n)
            // null: not measured by this session (the record applies 0).
            w.field("tc_zero_counts_per_c", r.measuredTemperatureCoefficients.zero ? p.tcZero_counts_per_c : nil)
            w.field("tc_span_per_c", r.measuredTemperatureCoefficients.span ? p.tcSpan_per_c : nil)
            w.field("noise_counts", c.noise_counts)
            w.field("noise_n", c.noise_n)
            w.field("full_scale_n", c.fullScale_n)
            w.field("nonlinearity_pct", c.nonlinearity_pct)
            w.field("hysteresis_pct", c.hysteresis_pct)
            w.field("zero_return_pct", c.zeroReturn_pct)
          }
        }
      })
      w.field("verification", array: { w in placements(&w, r.verification) })
      w.field("single_point_verification", array: { w in placements(&w, r.singlePoint ?? []) })
      w.field("cross_validation", array: { w in placements(&w, r.crossValidation?.results ?? []) })
    }
    return w.text + "\n"
  }

  /// Accuracy figures; all null when there are no placements (not measured).
  static func accuracy(_ w: inout JSONWriter, _ results: [PlacementResult], floor: Double) {
    let a = AccuracySummary(results, floor_n: floor)
    w.field("placements", a.placements)
    w.field("force_floor_n", floor)
    guard !results.isEmpty else {
      for key in ["worst_force_error_pct", "worst_force_error_below_floor_n", "position_rms_mm", "position_max_mm"] {
        w.field(key, Double?.none)
      }
      return
    }
    w.field("worst_force_error_pct", a.worstForce_pct)
    w.field("worst_force_error_below_floor_n", a.worstForceBelowFloor_n)
    w.field("position_rms_mm", a.positionRMS_mm)
    w.field("position_max_mm", a.positionMax_mm)
  }

  static func placements(_ w: inout JSONWriter, _ results: [PlacementResult]) {
    for p in results {
      w.object { w in
        w.field("step", p.step.number)
        w.field("file", p.step.file)
        w.field("load_g", p.step.load_g)
        w.field("x_mm", p.step.x_mm)
        w.field("y_mm", p.step.y_mm)
        w.field("force_n", p.step.force_n)
        w.field("measured_n", p.force_n)
        w.field("measured_x_mm", p.x_mm)
        w.field("measured_y_mm", p.y_mm)
        w.field("force_error_pct", p.forceError_pct)
        w.field("position_error_mm", p.positionError_mm)
        w.field("frames", p.frames)
      }
    }
  }
}
