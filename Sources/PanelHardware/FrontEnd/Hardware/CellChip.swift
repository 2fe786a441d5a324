/// A chip family read one chip per cell (NAU7802, ADS122C04): what
/// `CellFrontEnd` needs to bring one up, see whether it has a result, read
/// it, and tell a reset chip from a stuck one. Every method is a few
/// transfers and never waits; waits are the front end's business.
public protocol CellChip: Sendable {
  /// Bring-up steps of the family (before the generic discard step).
  associatedtype Step: Equatable & Sendable
  /// Where bring-up starts.
  var firstStep: Step { get }
  /// Conversion period, µs.
  var period_us: Int64 { get }
  /// Runs bring-up `step` for the chip at `place`.
  mutating func advance<Bus: I2CBus, Clock: MonotonicClock>(
    _ step: Step, at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> BringUpOutcome<Step>
  /// Polls the chip's own ready bit.
  func hasResult<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> Bool
  /// Reads the latest result.
  mutating func read<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> CellSample
  /// After a conversion did not come in time: does the chip have one after
  /// all, or has it lost its configuration?
  func diagnose<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> CellDiagnosis
  /// The chip's registers, read now and decoded, for `panelctl info`.
  func describe<Bus: I2CBus, Clock: MonotonicClock>(
    at place: DriverConfiguration.Place, io: inout ChipBus<Bus, Clock>
  ) throws(I2CError) -> [String]
}

/// What a bring-up step leads to.
public enum BringUpOutcome<Step: Equatable & Sendable>: Equatable, Sendable {
  /// Run `step` after `after_us`.
  case next(Step, after_us: Int64)
  /// Configured: drop this many conversions, then the chip is ready.
  case discard(Int)
  case failed(ChipFault)
}

/// One result read from a chip.
public enum CellSample: Equatable, Sendable {
  /// `missed` conversions were overwritten unread before it (when the chip
  /// counts them).
  case value(Int32, missed: UInt64)
  /// The result failed its integrity check (CRC).
  case corrupt
}

/// Why a chip that answers gave no conversion.
public enum CellDiagnosis: Equatable, Sendable {
  /// It has one: its ready bit is set (the data-ready line gave no edge).
  case ready
  /// It lost its configuration (a reset or brown-out): `seen` says how.
  case reset(seen: String)
  /// Configured, but not converting.
  case stuck
}

/// Bring-up of a cell chip: the family's steps, then dropping conversions.
public enum CellStep<Step: Equatable & Sendable>: Equatable, Sendable {
  case chip(Step)
  /// Dropping `Int` more conversions; the next must come by `deadline_us`.
  case discarding(Int, deadline_us: Int64)
}

extension ChipCondition: CustomStringConvertible {
  public var description: String {
    switch self {
    case .ready: "ready"
    case .bringingUp(let step, _): "being brought up (\(step))"
    case .failed(let fault, _): "failing: \(fault)"
    }
  }
}
