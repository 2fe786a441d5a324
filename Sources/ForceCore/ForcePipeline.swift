/// Counters of what the core saw and did; they only grow.
public struct CoreHealth: Sendable, Equatable {
  public var frames: UInt32 = 0
  /// Frames the front end marked invalid (held, no touches reported).
  public var invalidFrames: UInt32 = 0
  /// Samples the spike filter replaced.
  public var spikes: UInt32 = 0
  /// Samples at the ADC's rails (the cell or its amplifier is saturated).
  public var saturatedSamples: UInt32 = 0
  /// Cells re-seeded after a sustained negative delta.
  public var reseeds: UInt32 = 0
  /// Loads held past the maximum on-time and absorbed into the baselines.
  public var absorbedLoads: UInt32 = 0
  public init() {}
}

/// What one frame did.
public enum FrameOutcome: Sendable, Equatable {
  /// Still averaging the first frames into the baselines: no force yet.
  case seeding
  /// Force image and contacts are this frame's.
  case measured
  /// The front end marked the frame invalid: nothing was updated.
  case invalid
}

/// The per-cell signal path: raw counts in, a calibrated force image and the
/// frame's contacts out. Sized at setup; `process` allocates nothing.
///
/// Per frame and cell: clamp to 24 bits -> median-of-three spike filter ->
/// delta from the baseline (plus the temperature's zero shift) -> force via
/// the cell's calibration. Then contacts, the touch gate, and baseline
/// tracking (frozen while touched and for a hold after release; a load held
/// past the maximum on-time is absorbed and `loadAbsorbed` is set).
public struct ForcePipeline: Sendable {
  public let geometry: PanelGeometry
  public let configuration: CoreConfiguration
  public var cellCount: Int { geometry.cellCount }

  /// This frame's calibrated force per cell.
  public private(set) var image: CellArray<Force_mN> = CellArray(repeating: .zero)
  /// This frame's contacts, strongest first.
  public private(set) var contacts = ContactList()
  public private(set) var health = CoreHealth()
  public private(set) var outcome = FrameOutcome.seeding
  /// Whether the panel counts as touched (hysteresis and debounce applied).
  public var touched: Bool { gate.touched }
  /// Set for the one frame in which a parked load became the baseline: every
  /// touch in progress is cancelled.
  public private(set) var loadAbsorbed = false
  /// The temperature the cells are compensated for.
  public private(set) var temperature: Temperature_C

  var calibration: CellArray<CellCalibration>
  var thermal: CellArray<CellTemperatureState> = CellArray(repeating: CellTemperatureState())
  var filters: CellArray<CellFilter> = CellArray(repeating: CellFilter())
  var baselines: CellArray<Baseline> = CellArray(repeating: Baseline())
  var filtered: CellArray<Int32> = CellArray(repeating: 0)
  var deltas: CellArray<Int64> = CellArray(repeating: 0)
  var finder: ContactFinder
  var gate: TouchGate
  let rules: BaselineRules
  let holdFrames: Int
  let maxOnFrames: Int
  let seedFrames: Int
  var seeded = 0
  var hold = 0
  var temperatureKnown = false

  /// - Parameters:
  ///   - calibration: one entry per cell of `geometry`, in cell order.
  public init(
    geometry: PanelGeometry, calibration: CellArray<CellCalibration>,
    configuration: CoreConfiguration
  ) {
    self.geometry = geometry
    self.configuration = configuration
    self.calibration = calibration
    self.finder = ContactFinder(geometry: geometry, configuration: configuration)
    self.gate = TouchGate(configuration)
    self.rules = BaselineRules(configuration)
    self.holdFrames = configuration.frames(configuration.holdAfterRelease_ms)
    self.maxOnFrames = configuration.maxOn_ms > 0 ? configuration.frames(configuration.maxOn_ms) : 0
    self.seedFrames = max(1, configuration.seedFrames)
    self.temperature = Temperature_C(rawValue: 25 << 8)
    for k in 0..<geometry.cellCount {
      thermal[k] = calibration[k].atTemperature(calibration[k].referenceTemperature)
      baselines[k].level = calibration[k].offset
    }
  }

  /// Whether the baselines have been seeded.
  public var isSeeded: Bool { seeded >= seedFrames }

  /// The current baseline of `cell` in counts (at the current temperature).
  public func baseline(of cell: Int) -> Counts_Q16 {
    Counts_Q16(rawValue: baselines[cell].level.rawValue + thermal[cell].zeroShift.rawValue)
  }

  /// The estimated noise of `cell` (one standard deviation), as a force.
  public func noise(of cell: Int) -> Force_mN {
    let f = calibration[cell].force(delta: filters[cell].noise, at: thermal[cell])
    return f.rawValue < 0 ? Force_mN(rawValue: f.rawValue == Int32.min ? Int32.max : -f.rawValue) : f
  }

  /// Runs one frame through the core. `frame` is not modified: it is
  /// `inout` only so its counts are read in place (a borrowed
  /// `InlineArray` is copied on element access).
  public mutating func process(_ frame: inout RawFrame) {
    loadAbsorbed = false
    health.frames &+= 1
    guard frame.valid else {
      health.invalidFrames &+= 1
      contacts.removeAll()
      outcome = .invalid
      return
    }
    if frame.hasTemperature {
      let t = frame.temperature
      if !temperatureKnown || t != temperature { retune(for: t) }
    }
    // Clamped to the capacity so the compiler can drop bounds checks.
    let n = min(geometry.cellCount, Capacity.cells)
    let spikeFilter = configuration.spikeFilter
    let seeding = !isSeeded
    var spikes: UInt32 = 0
    var saturated: UInt32 = 0
    for k in 0..<n {
      var raw = frame.counts[k]
      if raw >= RawCounts.max || raw <= RawCounts.min {
        raw = RawCounts.clamp(raw)
        saturated &+= 1
      }
      let (value, spike) = filters[k].filter(raw, medianOfThree: spikeFilter)
      spikes &+= spike ? 1 : 0
      filtered[k] = value
      if seeding { continue }
      // 24-bit counts in Q16 minus bounded baselines: no overflow.
      let delta = (Int64(value) << 16) &- baselines[k].level.rawValue &- thermal[k].zeroShift.rawValue
      deltas[k] = delta
      image[k] = calibration[k].force(delta: Counts_Q16(rawValue: delta), at: thermal[k])
    }
    health.spikes &+= spikes
    health.saturatedSamples &+= saturated
    if seeding {
      seed()
      return
    }
    outcome = .measured
    finder.find(&image, into: &contacts)
    let touched = gate.update(strongest: contacts.strongest)
    if touched && maxOnFrames > 0 && gate.onFrames > maxOnFrames {
      absorbLoad()
      return
    }
    // A contact strong enough to become a touch freezes the baselines while
    // it is being confirmed; weaker ones are left to drift tracking.
    let frozen = touched || contacts.strongest >= configuration.touchOn
    if frozen {
      hold = holdFrames
    } else if hold > 0 {
      hold -= 1
    }
    if frozen {
      for k in 0..<n { baselines[k].freeze() }
      return
    }
    let drift = hold == 0
    var reseeds: UInt32 = 0
    for k in 0..<n {
      filters[k].observeNoise()
      let reseeded = baselines[k].track(
        delta: Counts_Q16(rawValue: deltas[k]), force: image[k], drift: drift, rules: rules)
      reseeds &+= reseeded ? 1 : 0
    }
    health.reseeds &+= reseeds
  }

  /// Averages the first frames into the baselines.
  mutating func seed() {
    let n = geometry.cellCount
    if seeded == 0 {
      for k in 0..<n { baselines[k].level.rawValue = 0 }
    }
    for k in 0..<n {
      baselines[k].level.rawValue += Int64(filtered[k]) << 16
      filters[k].observeNoise()
    }
    seeded += 1
    outcome = .seeding
    guard isSeeded else { return }
    for k in 0..<n {
      baselines[k].level.rawValue =
        baselines[k].level.rawValue / Int64(seedFrames) - thermal[k].zeroShift.rawValue
    }
  }

  /// A load held past the maximum on-time becomes the new zero.
  mutating func absorbLoad() {
    for k in 0..<geometry.cellCount {
      baselines[k].level.rawValue = (Int64(filtered[k]) << 16) - thermal[k].zeroShift.rawValue
      baselines[k].freeze()
      image[k] = .zero
    }
    contacts.removeAll()
    gate.reset()
    hold = 0
    loadAbsorbed = true
    health.absorbedLoads &+= 1
  }

  /// Recomputes every cell's zero shift and scale for `t`.
  mutating func retune(for t: Temperature_C) {
    temperature = t
    temperatureKnown = true
    for k in 0..<geometry.cellCount {
      thermal[k] = calibration[k].atTemperature(t)
    }
  }
}
