import Testing

@testable import ForceCore

/// The temperature's compensation: a first reading or a large step retunes
/// every cell at once; the small steps of a sensor's last bit and of slow
/// ramps retune 8 cells a frame, round the panel, so every cell follows
/// within cells / 8 frames; the span's scale is recomputed only once the
/// temperature has moved 1/16 degC.
@Suite struct RetuneTests {
  static let cells = 48

  /// A 48-cell grid whose cells have different zero and span coefficients.
  static func pipeline() -> ForcePipeline {
    let g = PanelGeometry(
      width: Length_um(millimetres: 160), height: Length_um(millimetres: 120), columns: 8, rows: 6,
      pitch: Length_um(millimetres: 20))
    var calibration = CellArray<CellCalibration>(repeating: .unity)
    for k in 0..<cells {
      calibration[k] = CellCalibration(
        offset: 1000, gain: 60_000, tcZero: 20 + Double(k), tcSpan: -0.0003 * (1 + Double(k % 5) / 4))
    }
    var c = CoreConfiguration()
    c.frameRate_hz = 500
    return ForcePipeline(geometry: g, calibration: calibration, configuration: c)
  }

  static func step(_ p: inout ForcePipeline, celsius: Double) {
    var frame = RawFrame(cellCount: cells)
    for k in 0..<cells { frame.counts[k] = 1000 }
    frame.temperature = Temperature_C(celsius: celsius)
    frame.hasTemperature = true
    p.process(&frame)
  }

  /// Cells whose conversion is exactly the one at `celsius`, and the
  /// frame path's copy of its scale with it.
  static func exact(_ p: ForcePipeline, _ celsius: Double) -> Int {
    (0..<cells).filter { k in
      let want = p.calibration[k].conversion(at: Temperature_C(celsius: celsius))
      let have = p.tracks[k].conversion
      return have.zeroShift == want.zeroShift && have.scale_Q40 == want.scale_Q40
        && p.cells[k].linear.scale_Q40 == want.scale_Q40
    }.count
  }

  @Test func aFirstReadingAndALargeStepRetuneEveryCellAtOnce() {
    var p = Self.pipeline()
    Self.step(&p, celsius: 31)
    #expect(Self.exact(p, 31) == Self.cells)
    Self.step(&p, celsius: 33)
    #expect(Self.exact(p, 33) == Self.cells)
  }

  @Test func smallStepsReachEveryCellWithinCellsOver8Frames() {
    var p = Self.pipeline()
    Self.step(&p, celsius: 30)
    let t = 30 + 1.0 / 256
    Self.step(&p, celsius: t)
    // One frame: 8 cells have the new zero shift, the others not yet.
    let zeroAt = { (p: ForcePipeline) in
      (0..<Self.cells).filter { k in
        p.tracks[k].conversion.zeroShift == p.calibration[k].conversion(at: Temperature_C(celsius: t)).zeroShift
      }.count
    }
    #expect(ForcePipeline.retuneBatch == 8)
    #expect(zeroAt(p) == 8)
    for _ in 1..<(Self.cells / 8) { Self.step(&p, celsius: t) }
    #expect(zeroAt(p) == Self.cells)
    // The scale waits for 1/16 degC: still the one at 30 degC.
    #expect(Self.exact(p, 30) == 0)
    #expect((0..<Self.cells).allSatisfy { p.tracks[$0].conversion.scale_Q40 == p.calibration[$0].conversion(at: Temperature_C(celsius: 30)).scale_Q40 })
  }

  @Test func aSlowRampKeepsEveryCellWithinATenthOfAPerMilleOfExact() {
    var p = Self.pipeline()
    Self.step(&p, celsius: 25)
    // +0.5 degC in steps of 1/256 degC, then the frames a pass takes.
    var t = 25.0
    for _ in 0..<128 {
      t += 1.0 / 256
      Self.step(&p, celsius: t)
    }
    for _ in 0..<(Self.cells / ForcePipeline.retuneBatch) { Self.step(&p, celsius: t) }
    for k in 0..<Self.cells {
      let want = p.calibration[k].conversion(at: Temperature_C(celsius: t))
      let have = p.tracks[k].conversion
      #expect(have.zeroShift == want.zeroShift)
      let relative = abs(Double(have.scale_Q40 - want.scale_Q40) / Double(want.scale_Q40))
      // Within tcSpan x 1/16 degC (at most 6e-4 / 16 = 3.75e-5).
      #expect(relative <= 3.75e-5, "cell \(k): \(relative)")
    }
    // And the scale did follow the ramp (0.5 degC x 3e-4 ... 6e-4: 1.5e-4 or more).
    let first = p.calibration[0].conversion(at: Temperature_C(celsius: 25)).scale_Q40
    #expect(abs(Double(p.tracks[0].conversion.scale_Q40 - first) / Double(first)) > 1.4e-4)
  }
}
