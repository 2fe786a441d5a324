import Foundation
import Testing

@testable import ForceCore

/// Each cell picks the baseline rate its own noise calls for (Baseline's
/// candidates), a contact's onset undoes the drift of its rising edge, and
/// `hold_s = 0` holds nothing for ever.
@Suite struct AdaptiveDriftTests {
  /// Gaussian samples from a fixed xorshift64 sequence (Box-Muller).
  struct Noise {
    var state: UInt64
    mutating func uniform() -> Double {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return (Double(state >> 11) + 0.5) / 9_007_199_254_740_992
    }
    mutating func gaussian() -> Double {
      (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
    }
  }

  /// Runs a plate for `seconds` with white noise of `white` mN per cell and
  /// a first-order wander of `wander` mN (time constant `tau` s) on each;
  /// returns the RMS of each baseline's error over the second half, mN.
  static func run(
    seconds: Double, white: Double, wander: Double, tau: Double, fixedRate: Bool
  ) -> (rms: Double, chosen: [UInt8]) {
    var rig = PlateRig { c in if fixedRate { c.driftMin_ms = c.driftUp_ms } }
    var noise = Noise(state: 0x9E37_79B9_7F4A_7C15)
    var w = [0.0, 0.0, 0.0, 0.0]
    let a = exp(-1 / (320 * tau))
    let drive = wander * (1 - a * a).squareRoot()
    let frames = Int(seconds * 320)
    var squares = 0.0
    var count = 0
    for f in 0..<frames {
      var extra: [Int32] = [0, 0, 0, 0]
      for k in 0..<4 {
        w[k] = a * w[k] + drive * noise.gaussian()
        extra[k] = Int32((w[k] + white * noise.gaussian()).rounded())
      }
      rig.step(extra: extra)
      guard f >= frames / 2 else { continue }
      for k in 0..<4 {
        let error = Double(rig.pipeline.baseline(of: k).rawValue) / 65536 - Double(rig.zero[k]) - w[k]
        squares += error * error
        count += 1
      }
    }
    let chosen = (0..<4).map { rig.pipeline.tracks[$0].baseline.chosen }
    return ((squares / Double(count)).squareRoot(), chosen)
  }

  /// White noise only: a faster baseline would only add noise. The cells
  /// stay at the slow rates (the board's, or one within a factor of four
  /// of it, which white noise hardly tells apart from it: their scores
  /// differ by a few 1/10 000), and their baselines stay within a third
  /// of a millinewton on 10 mN of noise (the board's rate: 0.28).
  @Test func aQuietCellKeepsASlowRate() {
    let adaptive = Self.run(seconds: 90, white: 10, wander: 0, tau: 1, fixedRate: false)
    let fixed = Self.run(seconds: 90, white: 10, wander: 0, tau: 1, fixedRate: true)
    #expect(adaptive.chosen.allSatisfy { $0 <= 1 }, "\(adaptive.chosen)")
    #expect(adaptive.rms <= 1.5 * fixed.rms && adaptive.rms <= 0.05 * 10, "baseline error \(adaptive.rms) mN adaptive, \(fixed.rms) mN fixed")
  }

  /// 10 mN of white noise and 5 mN of wander over 8 s (the noisy corner of
  /// the envelope): the cells take a faster rate and their baselines
  /// follow the wander at least a third closer than the board's rate does.
  @Test func aWanderingCellTakesAFasterRate() {
    let adaptive = Self.run(seconds: 60, white: 10, wander: 5, tau: 8, fixedRate: false)
    let fixed = Self.run(seconds: 60, white: 10, wander: 5, tau: 8, fixedRate: true)
    #expect(adaptive.chosen.allSatisfy { $0 > 0 }, "\(adaptive.chosen)")
    #expect(fixed.chosen == [0, 0, 0, 0])
    #expect(adaptive.rms < 0.67 * fixed.rms, "baseline error \(adaptive.rms) mN adaptive, \(fixed.rms) mN fixed")
  }

  /// A press whose force creeps up below the touch threshold for 40 ms on a
  /// fast-following baseline: the drift of that edge is rolled back at the
  /// onset, so the plateau reads the press's force, not 1 % less.
  @Test func anOnsetRollsBackTheDriftOfItsRisingEdge() {
    var rig = PlateRig { $0.driftUp_ms = 200 }
    rig.settle(400)
    let x = 80.0
    let y = 50.0
    // 0 -> 75 mN (just under the 80 mN threshold) over 40 ms, then 1 N.
    for i in 0..<13 { rig.step(loads: PlateRig.loads(newtons: 0.075 * Double(i) / 12, x: x, y: y)) }
    for _ in 0..<40 { rig.step(loads: PlateRig.loads(newtons: 1, x: x, y: y)) }
    let force = rig.pipeline.contacts.count == 1 ? rig.pipeline.contacts[0].force.rawValue : 0
    #expect(abs(Double(force) / 1024 - 1000) <= 2, "the plateau reads \(Double(force) / 1024) mN")
  }

  /// With no hold after release the baselines drift again at once (a hold
  /// of zero frames once froze them for good).
  @Test func noHoldAfterReleaseStillDrifts() {
    var rig = PlateRig { $0.holdAfterRelease_ms = 0 }
    rig.settle(100)
    for _ in 0..<40 { rig.step(loads: PlateRig.loads(newtons: 1, x: 80, y: 50)) }
    rig.settle(20)
    let before = rig.pipeline.baseline(of: 0)
    // 20 mN more on cell 0, below the touch threshold, for a second.
    for _ in 0..<320 { rig.step(extra: [20, 0, 0, 0]) }
    let moved = Double(rig.pipeline.baseline(of: 0).rawValue - before.rawValue) / 65536
    #expect(moved > 4, "the baseline moved \(moved) counts")
  }
}
