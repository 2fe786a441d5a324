/// Counters of what the core saw and did; they only grow.
public struct CoreHealth: Sendable, Equatable {
  public var frames: UInt32 = 0
  /// Frames the front end marked invalid (held, no touches reported).
  public var invalidFrames: UInt32 = 0
  /// Samples the spike filter replaced.
  public var spikes: UInt32 = 0
  /// Samples at the ADC's rails (an open or shorted bridge, a saturated
  /// amplifier): held at the cell's baseline, never measured.
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

  /// The per-cell state the frame path touches, kept together so one cell
  /// is one or two cache lines.
  struct CellState: Sendable {
    var filter = CellFilter()
    var baseline = Baseline()
    var conversion = CellConversion()
    /// This frame's filtered sample and its delta from the baseline.
    var filtered: Int32 = 0
    var delta: Int64 = 0
  }

  var cells: CellArray<CellState> = CellArray(repeating: CellState())
  var calibration: CellArray<CellCalibration>
  /// Cross-talk correction (plates), applied to the force image.
  var coupling: CouplingMatrix
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
  ///   - coupling: the calibration's cross-talk correction (plates), if any.
  public init(
    geometry: PanelGeometry, calibration: CellArray<CellCalibration>,
    configuration: CoreConfiguration, coupling: CouplingMatrix = CouplingMatrix()
  ) {
    self.geometry = geometry
    self.configuration = configuration
    self.calibration = calibration
    self.coupling = coupling.size == geometry.cellCount ? coupling : CouplingMatrix()
    self.finder = ContactFinder(geometry: geometry, configuration: configuration)
    self.gate = TouchGate(configuration)
    self.rules = BaselineRules(configuration)
    self.holdFrames = configuration.frames(configuration.holdAfterRelease_ms)
    self.maxOnFrames = configuration.maxOn_ms > 0 ? configuration.frames(configuration.maxOn_ms) : 0
    self.seedFrames = max(1, configuration.seedFrames)
    self.temperature = Temperature_C(rawValue: 25 << 8)
    for k in 0..<geometry.cellCount {
      cells[k].conversion = calibration[k].conversion(at: calibration[k].referenceTemperature)
      cells[k].baseline.level = calibration[k].offset
    }
  }

  /// Whether the baselines have been seeded.
  public var isSeeded: Bool { seeded >= seedFrames }

  /// The current baseline of `cell` in counts (at the current temperature).
  public func baseline(of cell: Int) -> Counts_Q16 {
    let c = cells[cell]
    return Counts_Q16(rawValue: c.baseline.level.rawValue + c.conversion.zeroShift.rawValue)
  }

  /// The estimated noise of `cell` (one standard deviation), as a force.
  public func noise(of cell: Int) -> Force_mN {
    let c = cells[cell]
    let f = c.conversion.force(delta: c.filter.noise)
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
    let seeding = !isSeeded
    convert(&frame, count: n, seeding: seeding)
    if seeding {
      seed()
      return
    }
    outcome = .measured
    coupling.apply(&image)
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
      for k in 0..<n { cells[k].baseline.freeze() }
      return
    }
    let drift = hold == 0
    var reseeds: UInt32 = 0
    for k in 0..<n {
      cells[k].filter.observeNoise()
      let reseeded = cells[k].baseline.track(
        delta: Counts_Q16(rawValue: cells[k].delta), force: image[k], drift: drift, rules: rules)
      reseeds &+= reseeded ? 1 : 0
    }
    health.reseeds &+= reseeds
  }

  /// Filters every cell's sample and, once seeded, converts its delta from
  /// the baseline to force. Its own function so the per-cell arithmetic is
  /// inlined into a small loop.
  mutating func convert(_ frame: inout RawFrame, count n: Int, seeding: Bool) {
    let spikeFilter = configuration.spikeFilter
    var spikes: UInt32 = 0
    var saturated: UInt32 = 0
    for k in 0..<min(n, Capacity.cells) {
      var raw = frame.counts[k]
      if raw >= RawCounts.max || raw <= RawCounts.min {
        // A sample at the ADC's rail is not a measurement (an open or
        // shorted bridge, a saturated amplifier): once seeded, the cell is
        // held at its baseline, so it adds no force and no false touch.
        saturated &+= 1
        raw =
          seeding
          ? RawCounts.clamp(raw)
          : Int32(
            truncatingIfNeeded: Saturating.roundingShift(
              cells[k].baseline.level.rawValue &+ cells[k].conversion.zeroShift.rawValue, 16))
      }
      let (value, spike) = cells[k].filter.filter(raw, medianOfThree: spikeFilter)
      spikes &+= spike ? 1 : 0
      cells[k].filtered = value
      if seeding { continue }
      // 24-bit counts in Q16 minus bounded baselines: no overflow.
      let delta =
        (Int64(value) << 16) &- cells[k].baseline.level.rawValue
        &- cells[k].conversion.zeroShift.rawValue
      cells[k].delta = delta
      image[k] = cells[k].conversion.force(delta: Counts_Q16(rawValue: delta))
    }
    health.spikes &+= spikes
    health.saturatedSamples &+= saturated
  }

  /// Averages the first frames into the baselines.
  mutating func seed() {
    let n = min(geometry.cellCount, Capacity.cells)
    if seeded == 0 {
      for k in 0..<n { cells[k].baseline.level.rawValue = 0 }
    }
    for k in 0..<n {
      cells[k].baseline.level.rawValue += Int64(cells[k].filtered) << 16
      cells[k].filter.observeNoise()
    }
    seeded += 1
    outcome = .seeding
    guard isSeeded else { return }
    for k in 0..<n {
      cells[k].baseline.level.rawValue =
        cells[k].baseline.level.rawValue / Int64(seedFrames) - cells[k].conversion.zeroShift.rawValue
    }
  }

  /// A load held past the maximum on-time becomes the new zero.
  mutating func absorbLoad() {
    for k in 0..<min(geometry.cellCount, Capacity.cells) {
      cells[k].baseline.level.rawValue =
        (Int64(cells[k].filtered) << 16) - cells[k].conversion.zeroShift.rawValue
      cells[k].baseline.freeze()
      image[k] = .zero
    }
    contacts.removeAll()
    gate.reset()
    hold = 0
    loadAbsorbed = true
    health.absorbedLoads &+= 1
  }

  /// Recomputes every cell's conversion for `t`.
  mutating func retune(for t: Temperature_C) {
    temperature = t
    temperatureKnown = true
    for k in 0..<min(geometry.cellCount, Capacity.cells) {
      cells[k].conversion = calibration[k].conversion(at: t)
    }
  }
}
