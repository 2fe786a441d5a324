/// The `[frontend.sim]` table of a simulated twin (a driver board with
/// `bus = "sim"`): the panel's physics (the same keys as a `kind = "sim"`
/// board) and the simulated bus and chips.
public struct SimulatedBoardParameters: Sendable, Equatable {
  /// Scenario, cells, noise: as for `kind = "sim"`.
  public var physics = SimulationParameters()
  /// Host cost of one transfer, µs (an ioctl from user space).
  public var hostOverhead_us = 200.0
  /// Largest relative error of a chip's conversion clock (uniform +-,
  /// drawn per chip from the seed).
  public var oscillatorTolerance = 0.005
  /// Largest input offset of a chip, counts at gain 128 (uniform +-).
  public var chipOffset_counts = 20_000.0
  /// NAU7802: time for the LDO and analog front end to settle, ms.
  public var analogSettle_ms = 250.0
  /// NAU7802: duration of an internal calibration, ms.
  public var calibration_ms = 344.0
  /// Chips (0-based, in chip order) that are not fitted: they never answer.
  public var absent: [Int] = []

  public init() {}

  static let keys = [
    "host_overhead_us", "oscillator_tolerance", "chip_offset_counts", "analog_settle_ms", "calibration_ms",
    "absent",
  ]

  public init(table t: TOMLTable) throws(FileError) {
    physics = try SimulationParameters(table: t, extraKeys: SimulatedBoardParameters.keys)
    func nonNegative(_ key: String, _ value: inout Double) throws(FileError) {
      guard let v = try t.optionalDouble(key) else { return }
      if !v.isFinite || v < 0 { throw t.error(key, "must be 0 or more") }
      value = v
    }
    try nonNegative("host_overhead_us", &hostOverhead_us)
    try nonNegative("oscillator_tolerance", &oscillatorTolerance)
    try nonNegative("chip_offset_counts", &chipOffset_counts)
    try nonNegative("analog_settle_ms", &analogSettle_ms)
    try nonNegative("calibration_ms", &calibration_ms)
    if oscillatorTolerance >= 0.2 { throw t.error("oscillator_tolerance", "must be below 0.2") }
    absent = try t.intArray("absent") ?? []
  }
}
