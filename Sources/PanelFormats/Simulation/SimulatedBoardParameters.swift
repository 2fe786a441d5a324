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
    func read(_ key: String, _ value: inout Double, _ bound: ValueBound) throws(FileError) {
      value = try t.optionalDouble(key, in: bound) ?? value
    }
    try read("host_overhead_us", &hostOverhead_us, ValueBound(0...1_000_000, "us"))
    try read("oscillator_tolerance", &oscillatorTolerance, ValueBound(0...1))
    try read("chip_offset_counts", &chipOffset_counts, ValueBound(0...ValueBound.counts.upper, "counts"))
    try read("analog_settle_ms", &analogSettle_ms, ValueBound(0...10_000, "ms"))
    try read("calibration_ms", &calibration_ms, ValueBound(0...10_000, "ms"))
    if oscillatorTolerance >= 0.2 { throw t.error("oscillator_tolerance", "must be below 0.2") }
    absent = try t.intArray("absent") ?? []
  }
}
