import ForceCore

/// Whether touches carry a usable force (UITraitCollection's
/// forceTouchCapability): available (calibrated and healthy), unavailable
/// (no valid calibration, a faulty cell, a front end not delivering) or
/// switched off (the board or the host turned 3D Touch off). Anything but
/// available puts new touches on the touch-and-hold fallback.
public struct ForceCapability: Sendable, Equatable {
  public enum State: UInt8, Sendable {
    case available, unavailable, off

    public var name: StaticString {
      switch self {
      case .available: return "available"
      case .unavailable: return "unavailable"
      case .off: return "off"
      }
    }
  }

  public enum Reason: UInt8, Sendable {
    case none
    /// The run has no valid calibration (nominal gains).
    case noCalibration
    /// A cell sits at its ADC rail (open or shorted bridge, saturated).
    case cellFault
    /// The front end keeps delivering invalid frames.
    case frontEndFault
    /// force_touch is false.
    case switchedOff

    public var name: StaticString {
      switch self {
      case .none: return "none"
      case .noCalibration: return "no_calibration"
      case .cellFault: return "cell_fault"
      case .frontEndFault: return "front_end_fault"
      case .switchedOff: return "switched_off"
      }
    }
  }

  public var state: State
  public var reason: Reason
  /// The faulty cell for `.cellFault`, else -1.
  public var cell: Int16

  public init(state: State, reason: Reason, cell: Int16 = -1) {
    self.state = state
    self.reason = reason
    self.cell = cell
  }

  public static let available = ForceCapability(state: .available, reason: .none)
  public static let off = ForceCapability(state: .off, reason: .switchedOff)

  public var isAvailable: Bool { state == .available }
}

/// Watches the raw frames for what makes force untrustworthy: a cell held
/// at its ADC rail (an open or shorted bridge reads full scale) for a
/// quarter of a second, or a run of invalid frames as long. A fault clears
/// after half a second of good frames. (The core itself never measures a
/// sample at the rail: it holds the cell at its baseline, so a failed cell
/// cannot make a false touch and the other cells keep working.)
/// Allocation-free.
public struct ForceHealthMonitor: Sendable {
  /// Frames at a rail (or invalid) before a fault is declared.
  public private(set) var faultFrames: Int
  /// Good frames before a fault clears.
  public private(set) var recoverFrames: Int
  var railRun: CellArray<UInt16> = CellArray(repeating: 0)
  var invalidRun = 0
  var goodRun = 0
  /// The current verdict.
  public private(set) var fault = ForceCapability.available
  /// Samples at a rail seen; they only grow.
  public private(set) var railSamples: UInt64 = 0
  /// Cells at a rail in the last valid frame.
  public private(set) var railedCells = 0

  public init(rate_hz: Int) {
    faultFrames = max(2, rate_hz / 4)
    recoverFrames = max(2, rate_hz / 2)
  }

  /// `init(rate_hz:)` in place (a firmware's static storage).
  public mutating func setUp(rate_hz: Int) {
    faultFrames = max(2, rate_hz / 4)
    recoverFrames = max(2, rate_hz / 2)
    for k in 0..<Capacity.cells { railRun[k] = 0 }
    invalidRun = 0
    goodRun = 0
    fault = .available
    railSamples = 0
    railedCells = 0
  }

  /// Whether cell `k` was at a rail in the last valid frame.
  public mutating func isRailed(_ k: Int) -> Bool {
    k >= 0 && k < Capacity.cells && railRun[k] > 0
  }

  /// Looks at one frame (`inout` only so its counts are read in place).
  public mutating func observe(_ frame: inout RawFrame) {
    var worst = ForceCapability.available
    if !frame.valid {
      invalidRun += 1
      if invalidRun >= faultFrames { worst = ForceCapability(state: .unavailable, reason: .frontEndFault) }
    } else {
      invalidRun = 0
      railedCells = 0
      let n = min(frame.cellCount, Capacity.cells)
      let limit = UInt16(min(faultFrames, Int(UInt16.max)))
      for k in 0..<n {
        let raw = frame.counts[k]
        if raw >= RawCounts.max || raw <= RawCounts.min {
          railSamples &+= 1
          railedCells += 1
          let run = railRun[k]
          if run < limit { railRun[k] = run + 1 }
          if run + 1 >= limit && worst.isAvailable {
            worst = ForceCapability(state: .unavailable, reason: .cellFault, cell: Int16(k))
          }
        } else {
          railRun[k] = 0
        }
      }
    }
    if !worst.isAvailable {
      fault = worst
      goodRun = 0
    } else if !fault.isAvailable && invalidRun == 0 {
      goodRun += 1
      if goodRun >= recoverFrames { fault = .available }
    }
  }
}
