#if canImport(Glibc)
  import Glibc
#endif
import PanelFormats

/// The wander of every cell, in counts: the processes' states, sized at
/// setup and advanced in place (nothing allocated per frame). Drawn from
/// its own random stream, so a board without wander draws the same noise
/// as before wander existed.
struct WanderState {
  let processes: [WanderProcess]
  let cellCount: Int
  /// Each process's standard deviation, counts.
  let sigma_counts: [Double]
  /// Per process, then per cell: the cells' own parts (unit variance).
  var own: [Double]
  /// Per process: the common part (unit variance).
  var shared: [Double]
  var random: SimRandom

  init(processes: [WanderProcess], cellCount: Int, counts_per_n: Double, seed: UInt64) {
    self.processes = processes
    self.cellCount = cellCount
    sigma_counts = processes.map { $0.sigma_mn / 1000 * counts_per_n }
    random = SimRandom(seed: seed ^ 0x0A11_DE12_57A7_E5ED)
    // Started in the steady state, as a panel that has been on for a while.
    own = []
    own.reserveCapacity(processes.count * cellCount)
    for _ in 0..<(processes.count * cellCount) { own.append(random.gaussian()) }
    shared = []
    for _ in processes { shared.append(random.gaussian()) }
  }

  var isEmpty: Bool { processes.isEmpty }

  /// Moves every process on by `dt` seconds.
  mutating func advance(dt: Double) {
    guard dt > 0 else { return }
    for p in 0..<processes.count {
      let a = exp(-dt / processes[p].tau_s)
      let kick = (1 - a * a).squareRoot()
      shared[p] = a * shared[p] + kick * random.gaussian()
      let base = p * cellCount
      for i in 0..<cellCount { own[base + i] = a * own[base + i] + kick * random.gaussian() }
    }
  }

  /// Cell `i`'s wander now, counts.
  @inline(__always)
  func counts(cell i: Int) -> Double {
    var sum = 0.0
    for p in 0..<processes.count {
      let c = processes[p].common
      sum += sigma_counts[p] * (c.squareRoot() * shared[p] + (1 - c).squareRoot() * own[p * cellCount + i])
    }
    return sum
  }
}
