/// One low-frequency wander process of a simulated panel
/// (`[[frontend.wander]]`): a first-order (Ornstein-Uhlenbeck) random
/// process per cell with time constant `tau_s` and standard deviation
/// `sigma_mn`, a share `common` of whose variance all cells have in common
/// (the board's supply, the frame's temperature). Several processes with
/// time constants from seconds to minutes add up to 1/f-like drift.
public struct WanderProcess: Sendable, Equatable {
  public var tau_s: Double
  public var sigma_mn: Double
  /// Fraction (0...1) of the variance shared by every cell.
  public var common: Double

  public init(tau_s: Double, sigma_mn: Double, common: Double = 0) {
    self.tau_s = tau_s
    self.sigma_mn = sigma_mn
    self.common = common
  }

  static let keys = ["tau_s", "sigma_mn", "common"]

  init(table t: TOMLTable) throws(FileError) {
    try t.rejectUnknownKeys(WanderProcess.keys)
    tau_s = try t.double("tau_s", in: .timeConstant_s)
    sigma_mn = try t.double("sigma_mn", in: .simulatedForce_mn)
    common = try t.optionalDouble("common", in: ValueBound(0...1)) ?? 0
  }
}
