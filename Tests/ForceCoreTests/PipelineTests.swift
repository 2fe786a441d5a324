import Testing
#if canImport(Glibc)
  import Glibc
#endif

@testable import ForceCore

/// A 160 x 100 mm plate on four corner cells with the identity calibration
/// (1 count = 1 mN), driven by synthetic frames.
struct PlateRig {
  var pipeline: ForcePipeline
  var frame = RawFrame(cellCount: 4)
  var zero: [Int32] = [1000, -2000, 500, 0]
  static let corners: [(Double, Double)] = [(0, 0), (160, 0), (0, 100), (160, 100)]

  init(configure: (inout CoreConfiguration) -> Void = { _ in }) {
    var g = PanelGeometry(width: Length_um(millimetres: 160), height: Length_um(millimetres: 100))
    for c in PlateRig.corners { g.addCell(x: Length_um(millimetres: c.0), y: Length_um(millimetres: c.1)) }
    var c = CoreConfiguration()
    c.frameRate_hz = 320
    configure(&c)
    pipeline = ForcePipeline(
      geometry: g, calibration: CellArray(repeating: .unity), configuration: c)
  }

  /// Loads on the four cells of a press of `newtons` at (`x`, `y`) mm
  /// (a rigid plate on equal springs).
  static func loads(newtons: Double, x: Double, y: Double) -> [Double] {
    let u = x / 160 - 0.5
    let v = y / 100 - 0.5
    return corners.map { c in
      let cu = c.0 / 160 - 0.5
      let cv = c.1 / 100 - 0.5
      return newtons / 4 * (1 + 4 * u * cu + 4 * v * cv)
    }
  }

  /// One frame with `loads` newtons on the cells plus `extra` counts.
  mutating func step(loads: [Double] = [0, 0, 0, 0], extra: [Int32] = [0, 0, 0, 0]) {
    for k in 0..<4 {
      frame.counts[k] = zero[k] + Int32((loads[k] * 1000).rounded()) + extra[k]
    }
    frame.time.rawValue += 3125
    pipeline.process(&frame)
  }

  mutating func settle(_ frames: Int = 40) {
    for _ in 0..<frames { step() }
  }
}

@Suite struct PipelineTests {
  @Test func seedsBaselinesFromTheFirstFrames() {
    var rig = PlateRig()
    rig.step()
    #expect(rig.pipeline.outcome == .seeding)
    rig.settle()
    #expect(rig.pipeline.outcome == .measured)
    for k in 0..<4 {
      #expect(rig.pipeline.baseline(of: k) == Counts_Q16(wholeCounts: rig.zero[k]))
      #expect(rig.pipeline.image[k] == .zero)
    }
    #expect(rig.pipeline.contacts.isEmpty)
  }

  @Test func centreOfPressureIsExactOnARigidPlate() {
    var rig = PlateRig()
    rig.settle()
    for (x, y) in [(80.0, 50.0), (20.0, 10.0), (150.0, 95.0), (40.0, 70.0)] {
      for _ in 0..<4 { rig.step(loads: PlateRig.loads(newtons: 1, x: x, y: y)) }
      let c = rig.pipeline.contacts[0]
      #expect(rig.pipeline.contacts.count == 1)
      // The rig rounds loads to whole counts (mN): up to 0.1 mm.
      #expect(abs(c.x.millimetres - x) < 0.1, "x at (\(x), \(y))")
      #expect(abs(c.y.millimetres - y) < 0.1, "y at (\(x), \(y))")
      #expect(abs(c.force.newtons - 1) < 0.001)
    }
  }

  @Test func touchNeedsDebounceAndReleasesWithHysteresis() {
    var rig = PlateRig()
    rig.settle()
    let press = PlateRig.loads(newtons: 0.1, x: 80, y: 50)
    rig.step(loads: press)
    rig.step(loads: press)  // median of three: the second frame shows it
    #expect(!rig.pipeline.touched)
    rig.step(loads: press)
    rig.step(loads: press)
    #expect(rig.pipeline.touched)
    // 0.06 N is between the release (0.05) and press (0.08) levels: held.
    let light = PlateRig.loads(newtons: 0.06, x: 80, y: 50)
    for _ in 0..<10 { rig.step(loads: light) }
    #expect(rig.pipeline.touched)
    for _ in 0..<5 { rig.step() }
    #expect(!rig.pipeline.touched)
  }

  @Test func aSingleFrameSpikeNeverMakesAContact() {
    var rig = PlateRig()
    rig.settle()
    for k in 0..<4 {
      rig.step(extra: [0, 0, 0, 0].enumerated().map { $0.offset == k ? 3_000_000 : 0 })
      #expect(rig.pipeline.contacts.isEmpty)
      rig.step()
      #expect(rig.pipeline.contacts.isEmpty)
      rig.settle(3)
    }
    #expect(rig.pipeline.health.spikes == 4)
    #expect(!rig.pipeline.touched)
  }

  @Test func baselineFollowsSlowDriftButNotAPress() {
    var rig = PlateRig()
    rig.settle()
    // 2 mN/s per cell for 20 s: 160 mN in all, twice the touch threshold.
    var sawContact = false
    for i in 0..<6400 {
      let drift = Int32(Double(i) * 2.0 / 320)
      rig.step(extra: [drift, drift, drift, drift])
      if !rig.pipeline.contacts.isEmpty { sawContact = true }
    }
    #expect(!sawContact)
    #expect(!rig.pipeline.touched)
    // A press is frozen out of the baseline: its force stays (plus the
    // baseline's lag behind the ramp: at the board's rate 2 mN/s x 3.2 s
    // per cell, less where a cell has taken a faster rate).
    let press = PlateRig.loads(newtons: 1, x: 80, y: 50)
    for _ in 0..<3 { rig.step(loads: press, extra: [40, 40, 40, 40]) }
    let before = rig.pipeline.baseline(of: 0)
    for _ in 0..<960 { rig.step(loads: press, extra: [40, 40, 40, 40]) }
    #expect(rig.pipeline.touched)
    #expect(rig.pipeline.baseline(of: 0) == before)
    let force = rig.pipeline.contacts[0].force.newtons
    #expect(force >= 0.999 && force <= 1.036, "\(force) N")
  }

  @Test func holdsTheBaselineAfterARelease() {
    var rig = PlateRig { $0.holdAfterRelease_ms = 1000 }
    rig.settle()
    for _ in 0..<100 { rig.step(loads: PlateRig.loads(newtons: 1, x: 80, y: 50)) }
    let frozen = rig.pipeline.baseline(of: 1)
    // Released onto a shifted zero: nothing drifts during the hold ...
    for _ in 0..<300 { rig.step(extra: [5, 5, 5, 5]) }
    #expect(rig.pipeline.baseline(of: 1) == frozen)
    // ... then the baseline follows.
    for _ in 0..<200 { rig.step(extra: [5, 5, 5, 5]) }
    #expect(rig.pipeline.baseline(of: 1).rawValue > frozen.rawValue)
  }

  @Test func reseedsAfterASustainedNegativeDelta() {
    var rig = PlateRig()
    // Seeded while a 2 N load rests on the plate ...
    let load = PlateRig.loads(newtons: 2, x: 80, y: 50)
    for _ in 0..<40 { rig.step(loads: load) }
    #expect(rig.pipeline.contacts.isEmpty)
    // ... which is then lifted: the cells go negative and are re-seeded.
    for _ in 0..<12 { rig.step() }
    #expect(rig.pipeline.health.reseeds == 4)
    rig.step()
    for k in 0..<4 { #expect(abs(rig.pipeline.image[k].newtons) < 0.001) }
    // A press is measured from the new zero.
    for _ in 0..<5 { rig.step(loads: PlateRig.loads(newtons: 1, x: 80, y: 50)) }
    #expect(abs(rig.pipeline.contacts[0].force.newtons - 1) < 0.001)
  }

  @Test func aParkedLoadIsAbsorbedAfterTheMaximumOnTime() {
    var rig = PlateRig { $0.maxOn_ms = 2000 }
    rig.settle()
    let parked = PlateRig.loads(newtons: 3, x: 50, y: 40)
    var absorbedAt = -1
    for i in 0..<1000 {
      rig.step(loads: parked)
      if rig.pipeline.loadAbsorbed {
        absorbedAt = i
        break
      }
    }
    // Still for 2 s at 320 frames/s: after the touch was confirmed and
    // its landing (a step) has left the liveness band (within 1.5 s).
    #expect(absorbedAt >= 640 && absorbedAt <= 640 + 480, "absorbed at frame \(absorbedAt)")
    #expect(rig.pipeline.contacts.isEmpty)
    #expect(rig.pipeline.health.absorbedLoads == 1)
    for _ in 0..<10 { rig.step(loads: parked) }
    #expect(!rig.pipeline.touched)
    // A tap on top of the parked load is found, with its own force.
    var tap = parked
    for (k, l) in PlateRig.loads(newtons: 0.5, x: 120, y: 60).enumerated() { tap[k] += l }
    for _ in 0..<6 { rig.step(loads: tap) }
    #expect(rig.pipeline.touched)
    #expect(abs(rig.pipeline.contacts[0].force.newtons - 0.5) < 0.002)
    #expect(abs(rig.pipeline.contacts[0].x.millimetres - 120) < 0.5)
  }

  /// A finger held on the plate trembles (a few percent of its force, most
  /// of it 0.5-4 Hz, a little at 8-12 Hz): held eight times the maximum
  /// on-time it stays a touch; the same load held still is absorbed.
  @Test func aTremblingLoadIsNeverAbsorbedAStillOneIs() {
    var rig = PlateRig { $0.maxOn_ms = 2000 }
    rig.settle()
    let hz = [0.7, 1.3, 2.9, 9.5]
    let share = [0.6, 0.5, 0.35, 0.2]
    for i in 0..<(16 * 320) {
      let t = Double(i) / 320
      var tremor = 0.0
      for j in 0..<4 { tremor += share[j] * sin(2 * Double.pi * hz[j] * t + Double(j)) }
      // 1.5 N, 4 % RMS (the four sinusoids' RMS is 0.94).
      let f = 1.5 * (1 + 0.04 * tremor / 0.94)
      rig.step(loads: PlateRig.loads(newtons: min(1, t / 0.25) * f, x: 70, y: 40))
      #expect(!rig.pipeline.loadAbsorbed, "absorbed at \(t) s")
      if rig.pipeline.loadAbsorbed { break }
    }
    #expect(rig.pipeline.touched)
    #expect(rig.pipeline.health.absorbedLoads == 0)
    // Still from here on: absorbed within the on-time and a second and a half.
    var absorbedAt = -1
    for i in 0..<(4 * 320) {
      rig.step(loads: PlateRig.loads(newtons: 1.5, x: 70, y: 40))
      if rig.pipeline.loadAbsorbed {
        absorbedAt = i
        break
      }
    }
    #expect(absorbedAt >= 640 && absorbedAt <= 640 + 480, "absorbed at frame \(absorbedAt)")
  }

  @Test func invalidFramesChangeNothing() {
    var rig = PlateRig()
    rig.settle()
    let before = rig.pipeline.baseline(of: 2)
    rig.frame.valid = false
    for _ in 0..<5 { rig.step(loads: PlateRig.loads(newtons: 5, x: 10, y: 10)) }
    #expect(rig.pipeline.outcome == .invalid)
    #expect(rig.pipeline.contacts.isEmpty)
    #expect(rig.pipeline.baseline(of: 2) == before)
    #expect(rig.pipeline.health.invalidFrames == 5)
  }

  /// A chip out for a while in the middle of a press (frames invalid),
  /// back after the finger lifted: the first frames after the gap measure
  /// what the cells read now. (The median of three kept the two samples
  /// of the press from before the gap and reported it again for a frame:
  /// the soak's false touches after a brownout or a stuck bus.)
  @Test func theFirstFramesAfterAGapMeasureTheCellsAsTheyAreNow() {
    var rig = PlateRig()
    rig.settle()
    let press = PlateRig.loads(newtons: 4, x: 60, y: 40)
    for _ in 0..<10 { rig.step(loads: press) }
    #expect(rig.pipeline.touched)
    rig.frame.valid = false
    for _ in 0..<200 { rig.step(loads: press) }
    rig.frame.valid = true
    for i in 0..<3 {
      rig.step()
      for k in 0..<4 { #expect(abs(rig.pipeline.image[k].newtons) < 0.001, "frame \(i) after the gap, cell \(k)") }
      #expect(rig.pipeline.contacts.isEmpty, "frame \(i) after the gap")
    }
    // A press held through the gap is measured at once.
    for _ in 0..<10 { rig.step(loads: press) }
    rig.frame.valid = false
    for _ in 0..<3 { rig.step(loads: press) }
    rig.frame.valid = true
    rig.step(loads: press)
    #expect(rig.pipeline.contacts.count == 1)
    #expect(abs(rig.pipeline.contacts[0].force.newtons - 4) < 0.01)
  }

  @Test func estimatesNoise() {
    var rig = PlateRig()
    var state: UInt64 = 12345
    func gaussian() -> Double {
      // Irwin-Hall approximation of a unit normal from 12 uniforms.
      var s = 0.0
      for _ in 0..<12 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        s += Double(state >> 11) / 9_007_199_254_740_992.0
      }
      return s - 6
    }
    for _ in 0..<4000 {
      let n = (0..<4).map { _ in Int32((gaussian() * 20).rounded()) }
      rig.step(extra: n)
    }
    for k in 0..<4 {
      let sigma = rig.pipeline.noise(of: k).newtons * 1000
      #expect(sigma > 17 && sigma < 23, "cell \(k): \(sigma) mN")
    }
  }
}
