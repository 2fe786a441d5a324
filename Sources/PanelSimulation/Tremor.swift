#if canImport(Glibc)
  import Glibc
#endif

/// A finger's small involuntary changes while it holds a press still
/// (reference: models-web-factory.md §2.1): broadband force fluctuation
/// with most of its power below 4 Hz (volitional drift around 1 Hz) and a
/// weak 8-12 Hz physiological component, and a centroid that wanders by a
/// fraction of a millimetre. A parked object has none of it.
///
/// Deterministic for its seed: each of force and position is a sum of
/// sinusoids, 0.3-12 Hz, amplitudes falling as 1/f^0.5 with a small bump at
/// 8-12 Hz and phases drawn from the seed, scaled to unit RMS.
public struct Tremor: Sendable, Equatable {
  /// Force fluctuation, RMS, as a fraction of the scripted force.
  public var force: Double
  /// Position wander, RMS per axis, mm.
  public var position_mm: Double
  public var seed: UInt64

  struct Component: Sendable, Equatable {
    var hz: Double
    var amplitude: Double
    var phase: Double
  }
  let components: [[Component]]  // force, x, y

  public init(force: Double, position_mm: Double = 0, seed: UInt64) {
    self.force = force
    self.position_mm = position_mm
    self.seed = seed
    var random = SimRandom(seed: seed ^ 0x7E3E_0A11_F1A6_E400)
    var all: [[Component]] = []
    for _ in 0..<3 {
      var list: [Component] = []
      let count = 14
      for k in 0..<count {
        // Log-spaced 0.3...12 Hz, each jittered within its band.
        let u = (Double(k) + random.uniform()) / Double(count)
        let hz = 0.3 * pow(40, u)
        var a = 1 / hz.squareRoot()
        if hz >= 8 && hz <= 12 { a *= 1.5 }
        list.append(Component(hz: hz, amplitude: a, phase: 2 * Double.pi * random.uniform()))
      }
      let rms = (list.map { $0.amplitude * $0.amplitude / 2 }.reduce(0, +)).squareRoot()
      for i in list.indices { list[i].amplitude /= rms }
      all.append(list)
    }
    components = all
  }

  public static func == (a: Tremor, b: Tremor) -> Bool {
    a.force == b.force && a.position_mm == b.position_mm && a.seed == b.seed
  }

  /// A profile's force and position at `t` seconds into the press with
  /// the tremor on them (the force never below zero).
  @inline(__always)
  func apply(force f: Double, x: Double, y: Double, at t: Double) -> (force: Double, x: Double, y: Double) {
    let force = self.force > 0 ? max(0, f * (1 + self.force * value(0, at: t))) : f
    guard position_mm > 0 else { return (force, x, y) }
    return (force, x + position_mm * value(1, at: t), y + position_mm * value(2, at: t))
  }

  /// The unit-RMS process `index` (0 force, 1 x, 2 y) at `t` seconds.
  @inline(__always)
  func value(_ index: Int, at t: Double) -> Double {
    var v = 0.0
    for c in components[index] { v += c.amplitude * sin(2 * Double.pi * c.hz * t + c.phase) }
    return v
  }
}
