/// Counters of what the core saw and did; they only grow.
public struct CoreHealth: Sendable, Equatable {
  public var frames: UInt32 = 0
  /// Frames the front end marked invalid (held, no touches reported).
  public var invalidFrames: UInt32 = 0
  /// Spikes removed: samples that stood out of both neighbours by more
  /// than a touch's force on their cell and the cell's spike limit (the
  /// median of three's outliers), and samples the step limit held off
  /// that the signal then came back from. A press's edge, however steep,
  /// is not one.
  public var spikes: UInt32 = 0
  /// Samples at the ADC's rails (an open or shorted bridge, a saturated
  /// amplifier): held at the cell's baseline, never measured.
  public var saturatedSamples: UInt32 = 0
  /// Cells re-seeded after a sustained negative delta.
  public var reseeds: UInt32 = 0
  /// Loads still for the maximum on-time and absorbed into the baselines.
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
/// rest of a grid keeps following drift — and a load that stays still
/// (a parked object: no finger's tremor, `LoadLiveness`) for the maximum
/// on-time is absorbed (`loadAbsorbed`). Untouched cells keep measuring
/// their noise.
///
/// Every frame does only what each cell must do every frame (filter,
/// force, its delta into its baseline's sums); the rest of a cell's work
/// (its baseline moving by the sums, the candidate rates scored, its noise
/// measured) is its tick, once every `BaselineRules.period` frames, and
/// the cells' ticks are staggered so that each frame does an eighth of
/// them (`ForcePipeline+Frame.swift`).
///
/// A firmware that keeps the pipeline in static storage makes it empty
/// (`init()`) and sets it up in place (`setUp`): nothing large is built on
/// the stack.
public struct ForcePipeline: Sendable {
  // The per-cell state first: the frame path reaches every field of a cell
  // with a short offset from one address.
  /// The per-cell state the conversion reads and writes every frame, kept
  /// apart from what only a cell's tick reads (`CellTrack`): 64 bytes on a
  /// 64-bit host, one cache line a cell.
  struct CellState: Sendable {
    /// This frame's filtered sample's delta from the baseline, Q16 counts.
    var delta: Int64 = 0
    /// What a sample's delta is measured from: the baseline plus the
    /// temperature's zero shift, Q16 counts (`rezero` keeps it whenever
    /// either moves).
    var zero: Int64 = 0
    /// The filtered samples' recent mean (8 frames), counts Q16: what a
    /// parked load is absorbed at, rather than one noisy sample.
    var average: Int64 = 0
    /// The conversion's scale and skip (`CellTrack.conversion`'s, copied
    /// whenever it changes: `retune`).
    var linear = LinearForce()
    /// This frame's filtered sample (counts).
    var filtered: Int32 = 0
    /// The largest step between filtered samples taken at once (counts;
    /// `maxStep` through the cell's gain).
    var stepLimit = UInt32(bitPattern: Int32.max)
    var filter = CellFilter()
    /// Frames a step larger than `stepLimit` has been held off.
    var heldSteps: UInt8 = 0
  }

  /// The per-cell state only a cell's tick (one frame in
  /// `BaselineRules.period`), its holds and its re-seeds reach.
  struct CellTrack: Sendable {
    /// The cell's conversion at the current temperature (the frame path
    /// reads its copy of `linear`, and the rest only beyond the linear
    /// range).
    var conversion = CellConversion()
    var baseline = Baseline()
    /// The noise of the cell's raw samples' steps.
    var steps = StepNoise()
    var residual = ResidualNoise()
    /// A plate's joint re-seed run: this cell's deltas summed, Q16 counts.
    var plateSum: Int64 = 0
    /// The force below which the cell is re-seeded, mN Q10: the board's
    /// level, or its noise times `noiseReseed` if larger (a grid's; a
    /// plate re-seeds all its cells together).
    var reseedLevel: Int32 = Int32.max
    /// The largest |force| within three noises (`quiet`): 3 sigma
    /// (`noise.sigma`, at least 1), saturated.
    var quietLimit: UInt32 = 3

    /// `quietLimit` for a noise of `sigma` (mN Q10).
    @inline(__always)
    static func quietLimit(_ sigma: Int32) -> UInt32 {
      let limit = UInt64(UInt32(bitPattern: max(sigma, 1))) &* 3
      return limit > 0xFFFF_FFFF ? UInt32.max : UInt32(truncatingIfNeeded: limit)
    }
  }

  var cells: CellArray<CellState> = CellArray(repeating: CellState())
  var tracks: CellArray<CellTrack> = CellArray(repeating: CellTrack())
  /// This frame's calibrated force per cell.
  public internal(set) var image: CellArray<Force_mN> = CellArray(repeating: .zero)
  /// Per cell, the frame (`now`) until which its baseline stays frozen:
  /// `holdFrames` from the last frame a contact held it. (A frame count
  /// rather than a countdown: nothing counts every cell down each frame.)
  var heldUntil: CellArray<Int32> = CellArray(repeating: 0)
  /// Each cell's measured noise and what the detector derives from it.
  public internal(set) var noise: NoiseMap
  /// This frame's contacts, strongest first.
  public internal(set) var contacts = ContactList()

  public internal(set) var geometry: PanelGeometry
  public internal(set) var configuration: CoreConfiguration
  public var cellCount: Int { geometry.cellCount }

  public internal(set) var health = CoreHealth()
  public internal(set) var outcome = FrameOutcome.seeding
  /// Whether the panel counts as touched (hysteresis and debounce applied).
  public var touched: Bool { gate.touched }
  /// Set for the one frame in which a parked load became the baseline: every
  /// touch in progress is cancelled.
  public internal(set) var loadAbsorbed = false
  /// The temperature the cells are compensated for.
  public internal(set) var temperature = Temperature_C(rawValue: 25 << 8)

  var calibration: CellArray<CellCalibration> = CellArray(repeating: .unity)
  /// Cross-talk correction (plates), applied to the force image.
  var coupling = CouplingMatrix()
  var finder: ContactFinder
  var gate: TouchGate
  /// Whether the touched load trembles as a finger does or is still as a
  /// parked object: only a still one is absorbed.
  var liveness: LoadLiveness
  var rules: BaselineRules
  /// Frames measured (after seeding, wrapping): the clock of `heldUntil`
  /// and of the cells' ticks.
  var now: Int32 = 0
  var holdFrames: Int32 = 1
  /// A contact's onset undoes the baseline drift of the last 1–2 of these
  /// periods (`rollBack_ms`: longer than a tap's rise below the threshold).
  static let rollBack_ms = 50
  var snapshotFrames: Int32 = 1
  var sinceSnapshot: Int32 = 0
  /// Temperature changes smaller than this (Q8 degC: 1/8 degC) retune a
  /// few cells a frame (`retuneSome`), larger ones every cell at once.
  static let retuneStep_Q8: Int32 = 32
  static let retuneBatch = 8
  /// The next cell `retuneSome` recomputes, and how many are still due.
  var retuneCursor = 0
  var retunePending = 0
  var maxOnFrames = 0
  var seedFrames = 1
  /// Grid shape (`columns == 0`: a plate on supports) and the cells a
  /// contact freezes around its peak.
  var columns = 0
  var rows = 0
  var freezeRadius = 1
  /// Which of the cells within `freezeRadius` a contact's force reaches
  /// (its contact model's shares): the ones it holds.
  var reach = HoldReach()
  /// The noise estimates' shift per tick: their window (`noiseWindow_ms`)
  /// in ticks.
  var noiseShift = 0
  /// The least floor a cell's noise gives it (`cellFloor`, at least 1).
  var cellFloor: Int32 = 1
  var totalNoise = ResidualNoise()
  /// Ticks left of the noise estimates' young window (`ResidualNoise`).
  var youngTicks: Int32 = 0
  /// The cells' noises summed, and their squares (kept as each changes):
  /// the correlation's terms.
  var sigmaSum: Int64 = 0
  var sigmaSquares: Int64 = 0
  /// A plate's cells are re-seeded together: frames its total force has
  /// stayed below minus the re-seed level.
  var plateRun: Int32 = 0
  /// Whether a contact holds a cell in this frame (the total's noise is
  /// measured only in frames where none does).
  var held = false
  var seeded = 0
  var temperatureKnown = false
  /// The median filters have their first samples.
  var filtersPrimed = false
  /// Invalid frames came since the last valid one: the next valid frame
  /// starts each cell's filter again (`resume`).
  var resuming = false

  /// An empty pipeline (no cells), to be set up in place with `setUp`.
  public init() {
    geometry = PanelGeometry(width: .zero, height: .zero)
    configuration = CoreConfiguration()
    noise = NoiseMap(cellFloor: configuration.cellFloor)
    finder = ContactFinder()
    gate = TouchGate(configuration)
    liveness = LoadLiveness(configuration)
    rules = BaselineRules(configuration)
  }

  /// - Parameters:
  ///   - calibration: one entry per cell of `geometry`, in cell order.
  ///   - coupling: the calibration's cross-talk correction (plates), if any.
  public init(
    geometry: PanelGeometry, calibration: CellArray<CellCalibration>,
    configuration: CoreConfiguration, coupling: CouplingMatrix = CouplingMatrix()
  ) {
    self.init()
    var g = geometry
    var table = calibration
    setUp(geometry: &g, calibration: &table, configuration: configuration, coupling: coupling)
  }

  /// Sets the pipeline up for a panel, in place: every cell's state, the
  /// baselines unseeded. (`geometry` and `calibration` are `inout` only so
  /// that they are read where they are; they are not modified.)
  public mutating func setUp(
    geometry: inout PanelGeometry, calibration table: inout CellArray<CellCalibration>,
    configuration c: CoreConfiguration, coupling: CouplingMatrix = CouplingMatrix()
  ) {
    self.geometry = geometry
    configuration = c
    let n = min(geometry.cellCount, Capacity.cells)
    for k in 0..<Capacity.cells {
      calibration[k] = k < n ? table[k] : .unity
      cells[k] = CellState()
      tracks[k] = CellTrack()
      image[k] = .zero
      heldUntil[k] = 0
    }
    self.coupling = coupling.size == n ? coupling : CouplingMatrix()
    finder.setUp(geometry: &geometry, configuration: c)
    gate = TouchGate(c)
    liveness = LoadLiveness(c)
    rules = BaselineRules(c)
    noise.reset(cellFloor: c.cellFloor)
    contacts.removeAll()
    health = CoreHealth()
    outcome = .seeding
    loadAbsorbed = false
    temperature = Temperature_C(rawValue: 25 << 8)
    now = 0
    // At least one frame: a held cell has `hold == holdFrames`, and with 0
    // an untouched cell would count as held for ever.
    holdFrames = Int32(max(1, min(c.frames(c.holdAfterRelease_ms), 1 << 30)))
    snapshotFrames = Int32(max(1, min(c.frames(Self.rollBack_ms), 1 << 20)))
    sinceSnapshot = 0
    retuneCursor = 0
    retunePending = 0
    maxOnFrames = c.maxOn_ms > 0 ? c.frames(c.maxOn_ms) : 0
    seedFrames = max(1, c.seedFrames)
    switch geometry.layout {
    case .supports:
      columns = 0
      rows = 0
    case .grid(let gc, let gr, _):
      columns = gc
      rows = gr
    }
    freezeRadius = min(max(1, c.contactRadius) + 1, HoldReach.size - 1)
    reach = HoldReach(&finder, radius: freezeRadius)
    noiseShift = max(0, BaselineRules.shift(frames: c.frames(c.noiseWindow_ms)) - BaselineRules.periodShift)
    cellFloor = max(c.cellFloor.rawValue, 1)
    totalNoise = ResidualNoise()
    youngTicks = 0
    sigmaSum = 0
    sigmaSquares = 0
    plateRun = 0
    held = false
    seeded = 0
    temperatureKnown = false
    filtersPrimed = false
    resuming = false
    for k in 0..<n {
      if c.maxStep.rawValue > 0 {
        let counts = c.maxStep.newtons * abs(calibration[k].gain)
        cells[k].stepLimit = UInt32(bitPattern: counts >= 16_777_216 ? Int32.max : Int32(max(counts, 1)))
      }
      let touch = c.touchOn.newtons * abs(calibration[k].gain)
      tracks[k].steps.setSpikeFloor(!(touch < 16_777_216) ? 1 << 24 : touch > 0 ? UInt32(touch) : 0, &cells[k].filter)
      calibration[k].setConversion(&tracks[k].conversion, at: calibration[k].referenceTemperature)
      cells[k].linear = tracks[k].conversion.linear
      tracks[k].baseline.level = calibration[k].offset
      rezero(k)
    }
  }

  /// Sets `finder` up as this pipeline's own (its geometry and its
  /// configuration: the calibration's contact model), in place: contacts
  /// found again from a corrected image (PanelTouch's failed-cell
  /// estimate) are found as these are.
  public mutating func setUp(finder: inout ContactFinder) {
    finder.setUp(geometry: &geometry, configuration: configuration)
  }

  /// Whether the baselines have been seeded.
  public var isSeeded: Bool { seeded >= seedFrames }

  /// The current baseline of `cell` in counts (at the current temperature).
  /// (Tools; not for the frame path: reading a borrowed pipeline's cell
  /// may copy its state.)
  public func baseline(of cell: Int) -> Counts_Q16 {
    Counts_Q16(rawValue: tracks[cell].baseline.level.rawValue &+ tracks[cell].conversion.zeroShift.rawValue)
  }

  /// The estimated noise of `cell` (one standard deviation), as a force.
  public func noise(of cell: Int) -> Force_mN {
    let c = tracks[cell]
    let f = c.conversion.force(delta: c.steps.noise)
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
      resuming = filtersPrimed
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
    if resuming { resume(&frame, count: n) }
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
    if touched {
      if maxOnFrames > 0 && observeLoad() > maxOnFrames {
        absorbLoad()
        return
      }
    } else {
      liveness.reset()
    }
    markHeld(touched: touched || pressing)
    track()
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

  /// Averages the first frames into the baselines; then each cell's noise
  /// estimate starts from its white noise.
  mutating func seed() {
    let n = min(geometry.cellCount, Capacity.cells)
    if seeded == 0 {
      for k in 0..<n { tracks[k].baseline.level.rawValue = 0 }
    }
    // The first frame has no step yet; then a running mean of the steps.
    let steps = Int32(seeded)
    let shift = steps > 0 ? 31 &- steps.leadingZeroBitCount : 0
    for k in 0..<n {
      tracks[k].baseline.level.rawValue += Int64(cells[k].filtered) &<< 16
      if steps > 0 { tracks[k].steps.observe(&cells[k].filter, shift: shift) }
    }
    seeded += 1
    outcome = .seeding
    guard isSeeded else { return }
    sigmaSum = 0
    sigmaSquares = 0
    // The seed's white noise counts as a quarter of the noise window; a
    // plate's estimates are young for the rest of the first window (in
    // ticks; `ResidualNoise`).
    let prior = Int32(1) << Int32(max(0, min(30, noiseShift &- 2)))
    let young = columns == 0
    youngTicks = young ? prior &* 3 : 0
    for k in 0..<n {
      tracks[k].baseline.reset(
        to: Counts_Q16(
          rawValue: tracks[k].baseline.level.rawValue / Int64(seedFrames) - tracks[k].conversion.zeroShift.rawValue))
      rezero(k)
      let white = tracks[k].conversion.force(delta: tracks[k].steps.noise).rawValue
      tracks[k].residual.start(sigma: white == Int32.min ? Int32.max : abs(white), prior: prior, young: young)
      updateNoise(of: k)
    }
    totalNoise.start(sigma: Saturating.int32(FixedMath.squareRoot(sigmaSquares)), prior: prior, young: young)
    updateCorrelation()
  }

  /// The touched load's frame for `liveness`: the force of the contacts
  /// above the release thresholds, and its noise. Returns its still
  /// frames so far.
  @inline(__always)
  mutating func observeLoad() -> Int32 {
    var force: Int64 = 0
    var variance: Int64 = 0
    for i in 0..<contacts.count {
      let c = contacts[i]
      guard c.force > configuration.touchOff && c.snr_Q8 > configuration.noiseOff_Q8 else { continue }
      force &+= Int64(c.force.rawValue)
      variance &+= LoadLiveness.variance(of: c, captureScale_Q16: configuration.captureScale_Q16)
    }
    return liveness.observe(force: force, noiseVariance: variance)
  }

  /// A load still for the maximum on-time (`liveness`: a parked object,
  /// not a finger) becomes the new zero (each cell's recent mean, not one
  /// noisy sample).
  mutating func absorbLoad() {
    for k in 0..<min(geometry.cellCount, Capacity.cells) {
      tracks[k].baseline.reset(to: Counts_Q16(rawValue: cells[k].average - tracks[k].conversion.zeroShift.rawValue))
      tracks[k].baseline.freeze()
      rezero(k)
      heldUntil[k] = now
      image[k] = .zero
    }
    contacts.removeAll()
    gate.reset()
    liveness.reset()
    plateRun = 0
    loadAbsorbed = true
    health.absorbedLoads &+= 1
  }
}
