import Testing

@testable import ForceCore

/// The fixed-point calibration against the same model in `Double`, over the
/// whole signed 24-bit input range.
@Suite struct CalibrationArithmeticTests {
  /// The model of `CellCalibration`, in `Double`, from its stored parameters.
  static func reference(
    _ cal: CellCalibration, raw: Int32, baseline: Counts_Q16, temperature: Temperature_C
  ) -> Double {
    let dT = Double(Int64(temperature.rawValue) - Int64(cal.referenceTemperature.rawValue)) / 256
    let scale = Double(cal.scale_Q40) / 0x1p40
    let tcSpan = Double(cal.tcSpan_Q30) / 0x1p30
    let tcZero = Double(cal.tcZero_Q32) / 0x1p32
    let linearity = Double(cal.linearity_Q60) / 0x1p60  // per mN
    let zero = Double(baseline.rawValue) / 0x1p16 + tcZero * dT
    let d = Double(raw) - zero
    let f1 = d * scale / (1 + tcSpan * dT)
    return (f1 + linearity * f1 * f1) * 1024  // Q10 LSBs
  }

  static let calibrations: [CellCalibration] = [
    CellCalibration(offset: 0, gain: 40_000),
    CellCalibration(offset: 12_345, gain: 43_210.7, linearity: -0.0021, tcZero: 37.5, tcSpan: 2.1e-4),
    CellCalibration(offset: -800_000, gain: -35_000, linearity: 0.003, tcZero: -120, tcSpan: -3e-4),
    CellCalibration(offset: 0, gain: 1.5),  // 667 mN per count: saturates
    CellCalibration(offset: 0, gain: 9.0e6, linearity: 0.05),  // tiny forces
    CellCalibration(offset: 5, gain: 250, linearity: -0.4, tcZero: 3, tcSpan: 0.002),
  ]

  static let temperatures = [25.0, -10.0, 61.25].map { Temperature_C(celsius: $0) }

  static var inputs: [Int32] {
    var raws: [Int32] = [RawCounts.min, RawCounts.min + 1, -1, 0, 1, RawCounts.max - 1, RawCounts.max]
    var r = Int64(RawCounts.min)
    while r <= Int64(RawCounts.max) {
      raws.append(Int32(r))
      r += 4099
    }
    return raws
  }

  @Test(arguments: 0..<calibrations.count)
  func withinOneLSBOfDoubleOverTheWholeRange(_ index: Int) {
    let cal = Self.calibrations[index]
    let baselines = [Counts_Q16(wholeCounts: RawCounts.min), Counts_Q16(counts: 0.5), Counts_Q16(wholeCounts: RawCounts.max)]
    var checked = 0
    var saturated = 0
    var worst = 0.0
    for t in Self.temperatures {
      let state = cal.conversion(at: t)
      for b in baselines {
        for raw in Self.inputs {
          let delta = Counts_Q16(rawValue: (Int64(raw) << 16) - b.rawValue - state.zeroShift.rawValue)
          let fixed = state.force(delta: delta).rawValue
          let ref = Self.reference(cal, raw: raw, baseline: b, temperature: t)
          if ref >= Double(Int32.max) {
            #expect(fixed == Int32.max, "raw \(raw) baseline \(b.counts) T \(t.celsius): \(fixed) should saturate high")
            saturated += 1
          } else if ref <= Double(Int32.min) {
            #expect(fixed == Int32.min, "raw \(raw) baseline \(b.counts) T \(t.celsius): \(fixed) should saturate low")
            saturated += 1
          } else {
            let error = abs(Double(fixed) - ref)
            worst = max(worst, error)
            #expect(error <= 1, "raw \(raw) baseline \(b.counts) T \(t.celsius): \(fixed) vs \(ref)")
          }
          checked += 1
        }
      }
    }
    #expect(checked > 30_000)
    if index == 3 { #expect(saturated > 1000, "a 667 mN/count cell must hit the rails") }
  }

  @Test func identityCalibrationIsOneMillinewtonPerCount() {
    let cal = CellCalibration.unity
    let f = cal.force(delta: Counts_Q16(counts: 1234), at: cal.referenceTemperature)
    #expect(f == Force_mN(millinewtons: 1234))
  }

  @Test func temperatureShiftsTheZeroAndTheSpan() {
    let cal = CellCalibration(offset: 0, gain: 1000, tcZero: 10, tcSpan: 0.01)
    let hot = cal.conversion(at: Temperature_C(celsius: 35))
    #expect(hot.zeroShift == Counts_Q16(counts: 100))
    // 10 degC: sensitivity up 10 %, so the same delta is 1/1.1 of the force.
    let f = hot.force(delta: Counts_Q16(counts: 1100))
    #expect(abs(f.rawValue - Force_mN(millinewtons: 1000).rawValue) <= 1)
  }
}

@Suite struct SaturatingArithmeticTests {
  @Test func multiplyShiftRoundsAndSaturates() {
    #expect(Saturating.multiplyShift(3, 1, 1) == 2)  // ties round up
    #expect(Saturating.multiplyShift(-3, 1, 1) == -1)
    #expect(Saturating.multiplyShift(-5, 1, 1) == -2)
    #expect(Saturating.multiplyShift(-1 << 40, 1 << 40, 16) == Int64.min)
    #expect(Saturating.multiplyShift(-1 << 40, 1 << 40, 20) == -1 << 60)
    #expect(Saturating.multiplyShift(Int64.min, 1, 64) == 0)  // -0.5 rounds up
    #expect(Saturating.multiplyShift(Int64.min, Int64.min, 66) == 1 << 60)
    #expect(Saturating.roundingShift(-3, 1) == -1)
    #expect(Saturating.roundingShift(Int64.max, 1) == 1 << 62)
    #expect(Saturating.multiplyShift(Int64.max, Int64.max, 1) == Int64.max)
    #expect(Saturating.multiplyShift(Int64.max, Int64.min, 1) == Int64.min)
    #expect(Saturating.multiplyShift(1 << 40, 1 << 40, 70) == 1 << 10)
    #expect(Saturating.multiplyShift(123_456_789, 987_654_321, 64) == 0)
  }

  @Test func shiftDivideIsExactOnWideDividends() {
    #expect(Saturating.shiftDivide(1 << 40, 40, 1 << 40) == 1 << 40)
    #expect(Saturating.shiftDivide(-7, 1, 2) == -7)
    #expect(Saturating.shiftDivide(Int64.max, 62, 1) == Int64.max)
  }

  @Test func forceAddsSaturated() {
    let big = Force_mN(rawValue: Int32.max - 5)
    #expect((big + Force_mN(rawValue: 100)).rawValue == Int32.max)
    #expect((Force_mN(rawValue: Int32.min + 1) - Force_mN(rawValue: 100)).rawValue == Int32.min)
  }

  @Test func rawCountsClampTo24Bits() {
    #expect(RawCounts.clamp(1 << 30) == (1 << 23) - 1)
    #expect(RawCounts.clamp(-(1 << 30)) == -(1 << 23))
    #expect(RawCounts.clamp(42) == 42)
  }

  @Test func log2IsExactToTheLastBit() {
    for v: Int64 in [1, 2, 3, 10, 1000, 65_535, 1 << 40, 123_456_789_012] {
      let expected = (log2(Double(v)) * 65536)
      #expect(abs(Double(FixedMath.log2_Q16(v)) - expected) <= 1, "log2(\(v))")
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
