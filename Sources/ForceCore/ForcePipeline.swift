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
/// the cell's calibration. Then contacts (judged against the cells'
/// measured noise, `noise`), the touch gate, and baseline tracking: frozen
/// where a contact stands out of the noise and for a hold after it lifts —
/// every cell of a plate, the cells around the contact on a grid, so the
/// rest of a grid keeps following drift — and a load held past the maximum
/// on-time is absorbed (`loadAbsorbed`). Untouched cells keep measuring
/// their noise.
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
  /// Each cell's measured noise and what the detector derives from it.
  public private(set) var noise: NoiseMap

  /// The per-cell state the frame path touches, kept together so one cell
  /// is one or two cache lines; the 32-bit fields fill the gaps the
  /// nested structs leave (176 bytes).
  struct CellState: Sendable {
    /// This frame's filtered sample's delta from the baseline, Q16 counts.
    var delta: Int64 = 0
    /// The filtered samples' recent mean (8 frames), counts Q16: what a
    /// parked load is absorbed at, rather than one noisy sample.
    var average: Int64 = 0
    /// A plate's joint re-seed run: this cell's deltas summed, Q16 counts.
    var plateSum: Int64 = 0
    var filter = CellFilter()
    /// Frames a step larger than `stepLimit` has been held off.
    var heldSteps: UInt8 = 0
    /// This frame's filtered sample (counts).
    var filtered: Int32 = 0
    var residual = ResidualNoise()
    /// Frames the baseline stays frozen: `holdFrames` while a contact
    /// holds the cell, counting down after it lifts.
    var hold: Int32 = 0
    var conversion = CellConversion()
    /// The largest step between filtered samples taken at once (counts;
    /// `maxStep` through the cell's gain).
    var stepLimit: Int32 = Int32.max
    var baseline = Baseline()
  }

  var cells: CellArray<CellState> = CellArray(repeating: CellState())
  var calibration: CellArray<CellCalibration>
  /// Cross-talk correction (plates), applied to the force image.
  var coupling: CouplingMatrix
  var finder: ContactFinder
  var gate: TouchGate
  let rules: BaselineRules
  let holdFrames: Int32
  /// A contact's onset undoes the baseline drift of the last 1–2 of these
  /// periods (`rollBack_ms`: longer than a tap's rise below the threshold).
  static let rollBack_ms = 50
  let snapshotFrames: Int32
  var sinceSnapshot: Int32 = 0
  /// Temperature changes smaller than this (Q8 degC: 1/8 degC) retune a
  /// few cells a frame (`retuneSome`), larger ones every cell at once.
  static let retuneStep_Q8: Int32 = 32
  static let retuneBatch = 16
  /// The next cell `retuneSome` recomputes, and how many are still due.
  var retuneCursor = 0
  var retunePending = 0
  let maxOnFrames: Int
  let seedFrames: Int
  /// Grid shape (`columns == 0`: a plate on supports) and the cells a
  /// contact freezes around its peak.
  let columns: Int
  let rows: Int
  let freezeRadius: Int
  let noiseShift: Int
  var totalNoise = ResidualNoise()
  /// A plate's cells are re-seeded together: frames its total force has
  /// stayed below minus the re-seed level.
  var plateRun: Int32 = 0
  var seeded = 0
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
    // At least one frame: a held cell has `hold == holdFrames`, and with 0
    // an untouched cell would count as held for ever.
    self.holdFrames = Int32(max(1, min(configuration.frames(configuration.holdAfterRelease_ms), 1 << 30)))
    self.snapshotFrames = Int32(max(1, min(configuration.frames(Self.rollBack_ms), 1 << 20)))
    self.maxOnFrames = configuration.maxOn_ms > 0 ? configuration.frames(configuration.maxOn_ms) : 0
    self.seedFrames = max(1, configuration.seedFrames)
    self.temperature = Temperature_C(rawValue: 25 << 8)
    self.noise = NoiseMap(cellFloor: configuration.cellFloor)
    switch geometry.layout {
    case .supports:
      columns = 0
      rows = 0
    case .grid(let c, let r, _):
      columns = c
      rows = r
    }
    freezeRadius = max(1, configuration.contactRadius) + 1
    noiseShift = BaselineRules.shift(frames: configuration.frames(configuration.noiseWindow_ms))
    for k in 0..<geometry.cellCount {
      if configuration.maxStep.rawValue > 0 {
        let counts = configuration.maxStep.newtons * abs(calibration[k].gain)
        cells[k].stepLimit = counts >= 16_777_216 ? Int32.max : Int32(max(counts, 1))
      }
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
    if retunePending > 0 { retuneSome() }
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
    finder.find(&image, noise: &noise, into: &contacts)
    // Contacts that stand out of the noise enough to be a touch.
    var pressing = false
    var holding = false
    for i in 0..<contacts.count {
      let c = contacts[i]
      if c.force >= configuration.touchOn && c.snr_Q8 >= configuration.noiseOn_Q8 { pressing = true }
      if c.force > configuration.touchOff && c.snr_Q8 > configuration.noiseOff_Q8 { holding = true }
    }
    let touched = gate.update(pressing: pressing, holding: holding)
    if touched && maxOnFrames > 0 && gate.onFrames > maxOnFrames {
      absorbLoad()
      return
    }
    markHeld(touched: touched || pressing)
    track()
  }

  /// Counts every cell's hold down, then marks the cells a contact holds
  /// (`hold = holdFrames`): every cell of a plate while it is touched or a
  /// contact is being confirmed; on a grid the cells around each contact
  /// that is a touch or is becoming one (confirmed against the noise, or
  /// still above the release thresholds where cells were already held).
  mutating func markHeld(touched: Bool) {
    let n = min(geometry.cellCount, Capacity.cells)
    for k in 0..<n where cells[k].hold > 0 { cells[k].hold -= 1 }
    if columns == 0 {
      guard touched else { return }
      for k in 0..<n { hold(k) }
      return
    }
    for i in 0..<contacts.count {
      let c = contacts[i]
      let peak = Int(c.peakCell)
      guard peak >= 0 && peak < n else { continue }
      let strong = c.force >= configuration.touchOn && c.snr_Q8 >= configuration.noiseOn_Q8
      let continuing =
        c.force > configuration.touchOff && c.snr_Q8 > configuration.noiseOff_Q8 && cells[peak].hold > 0
      guard strong || continuing else { continue }
      let col = peak % columns
      let row = peak / columns
      for r in max(0, row - freezeRadius)...min(rows - 1, row + freezeRadius) {
        for cc in max(0, col - freezeRadius)...min(columns - 1, col + freezeRadius) {
          let k = r * columns + cc
          if k < n { hold(k) }
        }
      }
    }
  }

  /// Holds cell `k` (its hold counted down once already this frame); a
  /// cell that was not held in the last frame rolls its drift back.
  @inline(__always)
  mutating func hold(_ k: Int) {
    if cells[k].hold < holdFrames - 1 { cells[k].baseline.rollBack() }
    cells[k].hold = holdFrames
  }

  /// Baseline tracking and noise measurement of the cells not held: drift
  /// where nothing was held for `holdAfterRelease` (only re-seeding within
  /// it), each cell's noise measured where it drifts.
  mutating func track() {
    let n = min(geometry.cellCount, Capacity.cells)
    let plate = columns == 0
    let reseedScale = Int64(configuration.noiseReseed_Q8)
    var total: Int64 = 0
    for k in 0..<n { total &+= Int64(image[k].rawValue) }
    // A plate far below zero drifts nowhere while it may be re-seeded.
    let sinking = plate && total < -plateReseedLevel
    var reseeds: UInt32 = 0
    var observed = 0
    sinceSnapshot &+= 1
    let snapshot = sinceSnapshot >= snapshotFrames
    if snapshot { sinceSnapshot = 0 }
    for k in 0..<n {
      let hold = cells[k].hold
      if snapshot { cells[k].baseline.snapshot() }
      if hold == holdFrames {
        cells[k].baseline.freeze()
        continue
      }
      cells[k].filter.observeNoise()
      let sigma = Int64(max(noise.sigma[k], 1))
      // During the hold the baseline still drifts, and the noise is still
      // measured, while the cell reads within three noises (its own, or
      // the wander the board's slow rate leaves it): a released press's
      // cells still carry its fall and its creep's recovery, but the cells
      // around it only wander, and a run of presses would otherwise freeze
      // them for as long as it lasts (their wander building up under every
      // contact, their noise never measured: thresholds left at the white
      // noise seeded at start).
      let settled = hold == 0
      let quiet = abs(Int64(image[k].rawValue)) <= 3 * sigma
      let wandering = quiet || cells[k].baseline.withinWander(cells[k].delta, rules: rules)
      let drift = (settled || wandering) && !sinking
      if drift {
        cells[k].residual.observe(image[k].rawValue, shift: noiseShift)
        updateNoise(of: k)
        observed += 1
      }
      // A plate's cells are re-seeded together (below); a grid's one by one.
      let level =
        plate ? Int32.max : max(rules.reseedLevel, Saturating.int32((Int64(noise.sigma[k]) &* reseedScale) >> 8))
      // Fast downward drift only once settled, and where the recent mean
      // (8 frames) is clearly below the baseline: chosen by each noisy
      // sample's sign, the asymmetry would hold the baseline half a noise
      // below the cell's mean, and a contact summing many cells would read
      // that much high for each. (During the hold, the same rate both ways.)
      var falling = false
      if drift && settled {
        let recent =
          cells[k].average &- cells[k].baseline.level.rawValue &- cells[k].conversion.zeroShift.rawValue
        falling = Int64(cells[k].conversion.force(delta: Counts_Q16(rawValue: recent)).rawValue) < -sigma
      }
      // The unfiltered sample's delta: the filtered one's, moved by what
      // the median took off this frame's raw count.
      let raw = cells[k].delta &+ ((Int64(cells[k].filter.old) &- Int64(cells[k].filtered)) << 16)
      let sample = Baseline.Sample(
        delta: cells[k].delta, raw: raw, force: image[k], falling: falling, quiet: quiet, drift: drift)
      let reseeded = cells[k].baseline.track(sample, rules: rules, reseedLevel: level)
      reseeds &+= reseeded ? 1 : 0
    }
    if observed == n {
      totalNoise.observe(Saturating.int32(total), shift: noiseShift)
      updateCorrelation()
    }
    if plate && cells[0].hold != holdFrames { reseeds &+= reseedPlate(sinking: sinking) }
    health.reseeds &+= reseeds
  }

  /// The total force below which a plate is re-seeded: the board's level,
  /// or the total's noise times `noiseReseed` if larger, mN Q10.
  var plateReseedLevel: Int64 {
    max(Int64(rules.reseedLevel), (Int64(noise.total) &* Int64(configuration.noiseReseed_Q8)) >> 8)
  }

  /// A plate's total force far below zero for a run of frames (a parked
  /// load lifted, a panel started with a load on it): every cell takes its
  /// mean delta over the run into its baseline at once. (One by one, the
  /// cells a lifted load unloads would be re-seeded and the one it pressed
  /// the other way would not: a phantom press on the far corner.)
  mutating func reseedPlate(sinking: Bool) -> UInt32 {
    let n = min(geometry.cellCount, Capacity.cells)
    guard sinking else {
      if plateRun > 0 {
        plateRun = 0
        for k in 0..<n { cells[k].plateSum = 0 }
      }
      return 0
    }
    plateRun += 1
    for k in 0..<n { cells[k].plateSum &+= cells[k].delta }
    guard plateRun >= rules.reseedFrames else { return 0 }
    for k in 0..<n {
      cells[k].baseline.move(by: cells[k].plateSum / Int64(plateRun))
      cells[k].plateSum = 0
    }
    plateRun = 0
    return UInt32(truncatingIfNeeded: n)
  }

  /// Cell `k`'s noise, and its floor, from its residual estimate.
  @inline(__always)
  mutating func updateNoise(of k: Int) {
    let sigma = cells[k].residual.sigma
    noise.sigma[k] = sigma
    let floor = max(configuration.cellFloor.rawValue, 1)
    noise.floor[k] = max(floor, Saturating.int32((Int64(sigma) &* Int64(configuration.noiseFloor_Q8)) >> 8))
  }

  /// The total's noise, and the cells' correlation from it:
  /// rho = (S^2 - sum s_i^2) / ((sum s_i)^2 - sum s_i^2), within 0 ... 1.
  mutating func updateCorrelation() {
    let n = min(geometry.cellCount, Capacity.cells)
    var sum: Int64 = 0
    var squares: Int64 = 0
    for k in 0..<n {
      let s = Int64(noise.sigma[k])
      sum &+= s
      squares &+= s &* s
    }
    let total = Int64(totalNoise.sigma)
    noise.total = Saturating.int32(total)
    let common = Saturating.subtract(Saturating.multiply(sum, sum), squares)
    let shared = Saturating.subtract(Saturating.multiply(total, total), squares)
    guard common > 0, shared > 0 else {
      noise.correlation_Q16 = 0
      return
    }
    noise.correlation_Q16 = shared >= common ? 65536 : Saturating.shiftDivide(shared, 16, common)
  }

  /// The touch thresholds in effect for a contact of a grid's 3 x 3 cells
  /// of average noise, or a plate's total (for tools: `info`, the monitor,
  /// the health report): the board's, or the noise's multiples if larger.
  public var effectiveThresholds: (on: Force_mN, off: Force_mN) {
    var sigma: Int64
    if columns == 0 {
      sigma = Int64(noise.total)
    } else {
      let n = min(geometry.cellCount, Capacity.cells)
      var sum: Int64 = 0
      for k in 0..<n { sum &+= Int64(noise.sigma[k]) }
      let mean = n > 0 ? sum / Int64(n) : 0
      let cells = Int64(min(9, n))
      sigma = Int64(noise.sumNoise(sum: mean * cells, sumOfSquares: mean * mean * cells))
    }
    let on = max(Int64(configuration.touchOn.rawValue), (sigma &* Int64(configuration.noiseOn_Q8)) >> 8)
    let off = max(Int64(configuration.touchOff.rawValue), (sigma &* Int64(configuration.noiseOff_Q8)) >> 8)
    return (Force_mN(rawValue: Saturating.int32(on)), Force_mN(rawValue: Saturating.int32(off)))
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
      var (value, spike) = cells[k].filter.filter(raw, medianOfThree: spikeFilter)
      if seeded > 0 {
        // A step no press can make: held off for up to two frames.
        let step = Int64(value) &- Int64(cells[k].filtered)
        if (step > Int64(cells[k].stepLimit) || step < -Int64(cells[k].stepLimit)) && cells[k].heldSteps < 2 {
          cells[k].heldSteps &+= 1
          value = cells[k].filtered
          spike = true
        } else {
          cells[k].heldSteps = 0
        }
      }
      spikes &+= spike ? 1 : 0
      cells[k].filtered = value
      let sample = Int64(value) << 16
      cells[k].average = seeded == 0 ? sample : cells[k].average &+ ((sample &- cells[k].average) >> 3)
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

  /// Averages the first frames into the baselines; then each cell's noise
  /// estimate starts from its white noise.
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
    var squares: Int64 = 0
    for k in 0..<n {
      cells[k].baseline.reset(
        to: Counts_Q16(
          rawValue: cells[k].baseline.level.rawValue / Int64(seedFrames) - cells[k].conversion.zeroShift.rawValue))
      let white = cells[k].conversion.force(delta: cells[k].filter.noise).rawValue
      cells[k].residual.start(sigma: white == Int32.min ? Int32.max : abs(white))
      updateNoise(of: k)
      squares &+= Int64(noise.sigma[k]) &* Int64(noise.sigma[k])
    }
    totalNoise.start(sigma: Saturating.int32(FixedMath.squareRoot(squares)))
    updateCorrelation()
  }

  /// A load held past the maximum on-time becomes the new zero (each
  /// cell's recent mean, not one noisy sample).
  mutating func absorbLoad() {
    for k in 0..<min(geometry.cellCount, Capacity.cells) {
      cells[k].baseline.reset(to: Counts_Q16(rawValue: cells[k].average - cells[k].conversion.zeroShift.rawValue))
      cells[k].baseline.freeze()
      cells[k].hold = 0
      image[k] = .zero
    }
    contacts.removeAll()
    gate.reset()
    plateRun = 0
    loadAbsorbed = true
    health.absorbedLoads &+= 1
  }

  /// Takes `t` as the temperature to compensate for. The first reading,
  /// or a step of `retuneStep_Q8` or more, recomputes every cell's
  /// conversion at once; a smaller step (a sensor's last bit, a slow
  /// ramp: most frames) leaves it to `retuneSome`, a few cells a frame.
  mutating func retune(for t: Temperature_C) {
    let step = Int64(t.rawValue) - Int64(temperature.rawValue)
    let small = temperatureKnown && step < Int64(Self.retuneStep_Q8) && step > -Int64(Self.retuneStep_Q8)
    temperature = t
    temperatureKnown = true
    let n = min(geometry.cellCount, Capacity.cells)
    guard small else {
      for k in 0..<n { retune(k) }
      retunePending = 0
      return
    }
    retunePending = n
  }

  /// Recomputes the next `retuneBatch` cells' conversions, round the
  /// panel, until every cell has been recomputed since the temperature
  /// last changed: each cell lags the temperature by at most
  /// cells / `retuneBatch` frames (16 at 256 cells: under 1/500 degC
  /// in a ramp of 10 degC in 5 minutes at 320 frames/s), and a frame costs 16
  /// cells' conversions instead of all of them (the division by the span
  /// factor is the most expensive arithmetic in the core).
  mutating func retuneSome() {
    let n = min(geometry.cellCount, Capacity.cells)
    var k = retuneCursor < n ? retuneCursor : 0
    for _ in 0..<min(Self.retuneBatch, retunePending) {
      retune(k)
      k = k + 1 < n ? k + 1 : 0
    }
    retuneCursor = k
    retunePending = max(0, retunePending - Self.retuneBatch)
  }

  /// Moves cell `k`'s conversion to `temperature`.
  @inline(__always)
  mutating func retune(_ k: Int) {
    calibration[k].retune(&cells[k].conversion, to: temperature)
  }
}
