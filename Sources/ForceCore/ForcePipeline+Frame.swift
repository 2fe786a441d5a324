// The per-cell passes of a frame: conversion to force, the holds contacts
// put on cells, and baseline tracking — what every cell does every frame,
// then the ticks of an eighth of the cells.

extension ForcePipeline {
  /// Filters every cell's sample and, once seeded, converts its delta from
  /// the baseline to force. The frames before seeding prime the filters
  /// and the averages (`prime`); after them, one loop per setting of the
  /// median filter, so that nothing but the per-cell arithmetic is tested
  /// in it.
  mutating func convert(_ frame: inout RawFrame, count n: Int, seeding: Bool) {
    if seeding {
      prime(&frame, count: n)
    } else if configuration.spikeFilter {
      measure(&frame, count: n, medianOfThree: true)
    } else {
      measure(&frame, count: n, medianOfThree: false)
    }
  }

  /// A frame while seeding: filtered samples only (the first one also
  /// starts the median's history and the recent means).
  mutating func prime(_ frame: inout RawFrame, count n: Int) {
    let medianOfThree = configuration.spikeFilter
    let first = seeded == 0
    var spikes: UInt32 = 0
    var saturated: UInt32 = 0
    for k in 0..<min(n, Capacity.cells) {
      var raw = frame.counts[k]
      if raw >= RawCounts.max || raw <= RawCounts.min {
        saturated &+= 1
        raw = RawCounts.clamp(raw)
      }
      if !filtersPrimed { cells[k].filter.prime(raw) }
      var (value, spike) = cells[k].filter.filterPrimed(raw, medianOfThree: medianOfThree)
      spikes &+= spike ? 1 : 0
      if !first { step(k, &value, &spikes) }
      cells[k].filtered = value
      let sample = Int64(value) &<< 16
      cells[k].average = first ? sample : cells[k].average &+ ((sample &- cells[k].average) &>> 3)
    }
    filtersPrimed = true
    health.spikes &+= spikes
    health.saturatedSamples &+= saturated
  }

  /// A measured frame: each cell's filtered sample, its recent mean, its
  /// delta from the baseline and its force: all a cell does every frame.
  /// 32-bit wherever counts are (their differences, the step and spike
  /// limits).
  @inline(__always)
  mutating func measure(_ frame: inout RawFrame, count n: Int, medianOfThree: Bool) {
    var spikes: UInt32 = 0
    var saturated: UInt32 = 0
    for k in 0..<min(n, Capacity.cells) {
      var raw = frame.counts[k]
      if raw >= RawCounts.max || raw <= RawCounts.min {
        // A sample at the ADC's rail is not a measurement (an open or
        // shorted bridge, a saturated amplifier): the cell is held at its
        // baseline, so it adds no force and no false touch.
        saturated &+= 1
        raw = railed(k)
      }
      var (value, spike) = cells[k].filter.filterPrimed(raw, medianOfThree: medianOfThree)
      spikes &+= spike ? 1 : 0
      step(k, &value, &spikes)
      cells[k].filtered = value
      let sample = Int64(value) &<< 16
      cells[k].average &+= (sample &- cells[k].average) &>> 3
      // 24-bit counts in Q16 minus bounded baselines: no overflow.
      let delta = sample &- cells[k].zero
      cells[k].delta = delta
      let (f1, skipped) = cells[k].linear.force(delta: delta)
      image[k] = skipped ?? linearized(k, f1)
    }
    health.spikes &+= spikes
    health.saturatedSamples &+= saturated
  }

  /// Cell `k`'s force for the linear force `f1` beyond the range its
  /// quadratic term is skipped in (the cells under a press): its terms
  /// read only here (`rounded` is out of line).
  @inline(__always)
  mutating func linearized(_ k: Int, _ f1: Int64) -> Force_mN {
    CellConversion.rounded(f1, tracks[k].conversion.linearSkip_Q20, tracks[k].conversion.linearity_Q60)
  }

  /// The first valid frame after invalid ones (a chip re-initialised, a
  /// bus that timed out): the median's history, the last filtered sample
  /// and the recent mean are of the signal before the gap — a press the
  /// finger has since lifted — and the median of two of them with this
  /// frame's sample would report that press again (the soak's false
  /// touches, docs/reliability.md). Each cell starts them again at this
  /// frame's sample, as at start-up; baselines, holds and noise are kept.
  @inline(never)
  mutating func resume(_ frame: inout RawFrame, count n: Int) {
    resuming = false
    for k in 0..<min(n, Capacity.cells) {
      var raw = frame.counts[k]
      if raw >= RawCounts.max || raw <= RawCounts.min { raw = isSeeded ? railed(k) : RawCounts.clamp(raw) }
      cells[k].filter.prime(raw)
      cells[k].filtered = raw
      cells[k].heldSteps = 0
      cells[k].average = Int64(raw) &<< 16
    }
  }

  /// A step no press can make (from the cell's last filtered sample):
  /// held off for up to two frames. The frames it held count as spikes
  /// once the signal is back within the limit (a step that stays is a
  /// change of level, not a spike).
  @inline(__always)
  mutating func step(_ k: Int, _ value: inout Int32, _ spikes: inout UInt32) {
    let beyond = CellFilter.distance(value, cells[k].filtered) > cells[k].stepLimit
    if beyond || cells[k].heldSteps != 0 { heldStep(k, &value, beyond: beyond, &spikes) }
  }

  /// `step` when the step is beyond the limit or one is being held.
  @inline(never)
  mutating func heldStep(_ k: Int, _ value: inout Int32, beyond: Bool, _ spikes: inout UInt32) {
    let held = UInt32(cells[k].heldSteps)
    if beyond && held < 2 {
      cells[k].heldSteps &+= 1
      value = cells[k].filtered
      return
    }
    cells[k].heldSteps = 0
    if !beyond { spikes &+= held }
  }

  /// What a cell at its rail reads instead: its baseline, in counts.
  @inline(never)
  mutating func railed(_ k: Int) -> Int32 {
    Int32(truncatingIfNeeded: Saturating.roundingShift(cells[k].zero, 16))
  }

  /// Starts a frame of holds (`now` moves on: every cell's hold is a frame
  /// shorter), then marks the cells a contact holds: every cell of a plate
  /// while it is touched or a contact is being confirmed; on a grid the
  /// cells around each contact that is a touch or is becoming one
  /// (confirmed against the noise, or still above the release thresholds
  /// where cells were already held).
  mutating func markHeld(touched: Bool) {
    now &+= 1
    let n = min(geometry.cellCount, Capacity.cells)
    if columns == 0 {
      guard touched else { return }
      hold(0..<n)
      return
    }
    for i in 0..<contacts.count {
      let c = contacts[i]
      let peak = Int(c.peakCell)
      guard peak >= 0 && peak < n else { continue }
      let strong = c.force >= configuration.touchOn && c.snr_Q8 >= configuration.noiseOn_Q8
      let continuing =
        c.force > configuration.touchOff && c.snr_Q8 > configuration.noiseOff_Q8 && heldUntil[peak] &- now > 0
      guard strong || continuing else { continue }
      let col = peak % columns
      let row = peak / columns
      // The cells the contact's model gives at least one noise of what the
      // peak cell reads (the shares are relative to a cell under the press).
      let force = Int64(max(image[peak].rawValue, 0))
      let sigma = Int64(max(noise.sigma[peak], 1))
      // (A grid has at most 256 cells: its indices are far inside `Int`.)
      let modelled = reach.known
      for r in max(0, row &- freezeRadius)...min(rows &- 1, row &+ freezeRadius) {
        var span = freezeRadius
        if modelled {
          span = reach.columns(rows: abs(r &- row), force: force, sigma: sigma, radius: freezeRadius)
          if r == row { span = max(span, 0) } else if span < 0 { continue }
        }
        let first = max(0, col &- span)
        let last = min(columns &- 1, col &+ span)
        let start = r &* columns
        hold(min(start &+ first, n)..<min(start &+ last &+ 1, n))
      }
    }
  }

  /// Holds `cells` for `holdFrames` from this frame; a cell that was not
  /// held in the last frame rolls its drift back and starts no re-seed
  /// run.
  @inline(__always)
  mutating func hold(_ cells: Range<Int>) {
    guard !cells.isEmpty else { return }
    held = true
    let until = now &+ holdFrames
    let lastFrame = holdFrames &- 1
    // Within the arrays by construction: said once, so the loop checks no
    // index.
    var k = max(cells.lowerBound, 0)
    let end = min(cells.upperBound, Capacity.cells)
    while k < end {
      if heldUntil[k] &- now < lastFrame {
        self.tracks[k].baseline.rollBack()
        self.tracks[k].baseline.freeze()
        rezero(k)
      }
      heldUntil[k] = until
      k &+= 1
    }
  }

  /// Baseline tracking, after this frame's holds: the snapshots, the
  /// ticks of the cells whose turn it is (`tick`), once every
  /// `BaselineRules.period` frames the panel's own noise (when no cell is
  /// held), and a plate's joint re-seed.
  mutating func track() {
    let n = min(geometry.cellCount, Capacity.cells)
    let plate = columns == 0
    let phase = Int(now & Int32(BaselineRules.period - 1))
    var total: Int64 = 0
    var sinking = false
    if plate || phase == 0 {
      for k in 0..<n { total &+= Int64(image[k].rawValue) }
      // A plate far below zero drifts nowhere while it may be re-seeded.
      sinking = plate && total < 0 &- plateReseedLevel
    }
    sinceSnapshot &+= 1
    if sinceSnapshot >= snapshotFrames {
      sinceSnapshot = 0
      for k in 0..<n { tracks[k].baseline.snapshot() }
    }
    var reseeds: UInt32 = 0
    for k in stride(from: phase, to: n, by: BaselineRules.period) {
      if tick(k, sinking: sinking) { reseeds &+= 1 }
    }
    if phase == 0 && !held && !sinking {
      totalNoise.observe(Saturating.int32(total), shift: noiseShift)
      updateCorrelation()
    }
    if phase == 0 && youngTicks > 0 {
      youngTicks &-= 1
      if youngTicks == 0 { mature() }
    }
    held = false
    if plate && heldUntil[0] &- now != holdFrames { reseeds &+= reseedPlate(sinking: sinking) }
    health.reseeds &+= reseeds
  }

  /// Whether cell `k` (not held this frame: `hold` frames of its hold
  /// left) reads within three noises (`quiet`, by its `force`), and
  /// whether its baseline drifts. During the hold the baseline still
  /// drifts, and the noise is still measured, while the cell reads within
  /// three noises (its own, or the wander the board's slow rate leaves
  /// it): a released press's cells still carry its fall and its creep's
  /// recovery, but the cells around it only wander, and a run of presses
  /// would otherwise freeze them for as long as it lasts (their wander
  /// building up under every contact, their noise never measured:
  /// thresholds left at the white noise seeded at start).
  @inline(__always)
  mutating func drifts(_ k: Int, hold: Int32, force: Force_mN, delta: Int64, sinking: Bool)
    -> (quiet: Bool, drift: Bool)
  {
    let quiet = force.rawValue.magnitude <= tracks[k].quietLimit
    let drift = (hold <= 0 || quiet || tracks[k].baseline.withinWander(delta, rules: rules)) && !sinking
    return (quiet, drift)
  }

  /// Cell `k`'s tick (every `BaselineRules.period` frames, in turn) unless
  /// a contact holds it: its noise measured (the step of its raw samples
  /// for the white noise, this frame's force while it drifts for the noise
  /// the detector sees), and its baseline moved toward its recent mean
  /// (`Baseline.tick`), the candidate rates scored on this frame's sample
  /// when it is quiet. Returns true when the cell was re-seeded.
  mutating func tick(_ k: Int, sinking: Bool) -> Bool {
    let hold = heldUntil[k] &- now
    if hold < 0 { heldUntil[k] = now }  // the clock wraps; a settled cell stays settled
    guard hold != holdFrames else {
      tracks[k].baseline.freeze()
      return false
    }
    let sigma = max(noise.sigma[k], 1)
    let force = image[k]
    let delta = cells[k].delta
    // The recent mean (8 frames) and its force: what the baseline follows.
    let mean = cells[k].average &- cells[k].zero
    let meanForce = tracks[k].conversion.force(delta: Counts_Q16(rawValue: mean))
    let followed = drifts(k, hold: hold, force: meanForce, delta: mean, sinking: sinking)
    let sample = drifts(k, hold: hold, force: force, delta: delta, sinking: sinking)
    tracks[k].steps.observe(&cells[k].filter)
    if sample.drift {
      tracks[k].residual.observe(force.rawValue, shift: noiseShift)
      updateNoise(of: k)
    }
    // Fast downward drift only once settled, and where the recent mean is
    // clearly below the baseline: chosen by each noisy sample's sign, the
    // asymmetry would hold the baseline half a noise below the cell's
    // mean, and a contact summing many cells would read that much high for
    // each. (During the hold, the same rate both ways.)
    let falling = followed.drift && hold <= 0 && meanForce.rawValue < 0 &- sigma
    // The unfiltered sample's delta, what the candidates are scored on:
    // the filtered one's, moved by what the median took off this frame's
    // raw count; not when the median took off more than a spike's worth
    // (the first frame of a press: the median still has the cell at rest).
    var raw: Int64? = nil
    let taken = CellFilter.distance(cells[k].filter.old, cells[k].filtered)
    if sample.quiet && followed.quiet && followed.drift && taken <= tracks[k].steps.spikeLimit {
      raw = delta &+ ((Int64(cells[k].filter.old) &- Int64(cells[k].filtered)) &<< 16)
    }
    // A plate's cells are re-seeded together (`reseedPlate`); a grid's one by one.
    let reseeded = tracks[k].baseline.tick(
      mean: mean, meanForce: meanForce, quiet: followed.quiet, drift: followed.drift, raw: raw, falling: falling,
      rules: &rules, reseedLevel: columns == 0 ? Int32.max : tracks[k].reseedLevel)
    rezero(k)
    if reseeded { restartAverage(k) }
    return reseeded
  }

  /// Cell `k`'s `zero` after its baseline or its zero shift moved.
  @inline(__always)
  mutating func rezero(_ k: Int) {
    cells[k].zero = tracks[k].baseline.level.rawValue &+ tracks[k].conversion.zeroShift.rawValue
  }

  /// Cell `k`'s recent mean starts again from its last sample: the
  /// baseline moved at once to where the cell reads now, and what the mean
  /// remembers from before is not drift.
  @inline(__always)
  mutating func restartAverage(_ k: Int) {
    cells[k].average = Int64(cells[k].filtered) &<< 16
  }

  /// The total force below which a plate is re-seeded: the board's level,
  /// or the total's noise times `noiseReseed` if larger, mN Q10.
  var plateReseedLevel: Int64 {
    max(Int64(rules.reseedLevel), (Int64(noise.total) &* Int64(configuration.noiseReseed_Q8)) &>> 8)
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
        for k in 0..<n { tracks[k].plateSum = 0 }
      }
      return 0
    }
    plateRun += 1
    for k in 0..<n { tracks[k].plateSum &+= cells[k].delta }
    guard plateRun >= rules.reseedFrames else { return 0 }
    for k in 0..<n {
      tracks[k].baseline.move(by: tracks[k].plateSum / Int64(plateRun))
      rezero(k)
      tracks[k].plateSum = 0
      restartAverage(k)
    }
    plateRun = 0
    return UInt32(truncatingIfNeeded: n)
  }

  /// The noise estimates' young window is over: the thresholds come from
  /// their distance estimates (`ResidualNoise`).
  @inline(never)
  mutating func mature() {
    for k in 0..<min(geometry.cellCount, Capacity.cells) {
      tracks[k].residual.mature()
      updateNoise(of: k)
    }
    totalNoise.mature()
    updateCorrelation()
  }

  /// Cell `k`'s noise, its floor and its re-seed level, from its residual
  /// estimate; the sums of the correlation follow.
  @inline(__always)
  mutating func updateNoise(of k: Int) {
    let sigma = tracks[k].residual.sigma
    let old = Int64(noise.sigma[k])
    let new = Int64(sigma)
    sigmaSum &+= new &- old
    sigmaSquares &+= new &* new &- old &* old
    noise.sigma[k] = sigma
    tracks[k].quietLimit = CellTrack.quietLimit(sigma)
    noise.floor[k] = max(cellFloor, Saturating.int32((new &* Int64(configuration.noiseFloor_Q8)) &>> 8))
    tracks[k].reseedLevel = max(
      rules.reseedLevel, Saturating.int32((new &* Int64(configuration.noiseReseed_Q8)) &>> 8))
  }

  /// The total's noise, and the cells' correlation from it:
  /// rho = (S^2 - sum s_i^2) / ((sum s_i)^2 - sum s_i^2), within 0 ... 1.
  mutating func updateCorrelation() {
    let total = Int64(totalNoise.sigma)
    noise.total = Saturating.int32(total)
    let common = Saturating.subtract(Saturating.multiply(sigmaSum, sigmaSum), sigmaSquares)
    let shared = Saturating.subtract(Saturating.multiply(total, total), sigmaSquares)
    guard common > 0, shared > 0 else {
      noise.correlation_Q16 = 0
      return
    }
    noise.correlation_Q16 = shared >= common ? 65536 : FixedMath.fraction_Q16(shared, common)
  }
}
