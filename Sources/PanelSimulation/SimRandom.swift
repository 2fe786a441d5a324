#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Deterministic random numbers for the simulated panel (xoshiro256**,
/// seeded through SplitMix64): the same seed gives the same panel and the
/// same noise, so a simulated run can be reproduced exactly.
public struct SimRandom: Sendable {
  var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
  var spareGaussian: Double?

  public init(seed: UInt64) {
    var x = seed
    func splitmix(_ x: inout UInt64) -> UInt64 {
      x &+= 0x9E37_79B9_7F4A_7C15
      var z = x
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    s0 = splitmix(&x)
    s1 = splitmix(&x)
    s2 = splitmix(&x)
    s3 = splitmix(&x)
  }

  public mutating func next() -> UInt64 {
    let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << 45) | (s3 >> 19)
    return result
  }

  /// Uniform in [0, 1).
  public mutating func uniform() -> Double {
    Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
  }

  /// Uniform in [-1, 1).
  public mutating func symmetric() -> Double { uniform() * 2 - 1 }

  /// Standard normal (Box-Muller).
  public mutating func gaussian() -> Double {
    if let g = spareGaussian {
      spareGaussian = nil
      return g
    }
    var u = uniform()
    while u <= 1e-300 { u = uniform() }
    let v = uniform()
    let r = (-2 * log(u)).squareRoot()
    spareGaussian = r * sin(2 * Double.pi * v)
    return r * cos(2 * Double.pi * v)
  }
}
