/// Two fingers in one maximum: a fitted press whose cells the learnt
/// response does not explain is fitted again as two presses, jointly, and
/// reported as two when the data separate them; otherwise it stays one
/// contact, `merged` with its spread.
///
/// A press explained by one contact leaves little of its window's energy
/// unexplained (the model's error: well under 1 % on the population's
/// panels); two fingers 1.5 pitches apart fitted as one leave 5-30 %. When
/// a fit leaves more than 1/64 of it, and more than the cells' noise could
/// (100 of the peak cell's noise variances), the second press is seeded at
/// the cell it explains least and the first a quarter of that way from the
/// fit on the other side (the one fit lies at the presses' centre of
/// force: on the stronger where they differ, midway where they are alike),
/// each fitted on the cells around its nearest cell less the other's fit
/// (`jointSteps` evaluations, `splitRounds` rounds). They are two contacts
/// when each leaves at most a quarter of the one fit's model error (what a
/// fit leaves beyond the noise map's variances of its window's cells: on a
/// noisy panel the noise alone leaves more than a quarter of the one
/// fit's residual), they are `splitDistance` apart and the weaker carries a
/// quarter of the stronger at least; each then stands out of the
/// maximum's noise (`snr`) by its share of their force, so a weak second
/// press is debounced as any light touch. Resolution grows only slowly
/// with the signal (docs/algorithms.md), so the decision has hysteresis:
/// where the last frame split a press or had two maxima within two
/// pitches, half the residual and noise margin, half the improvement and
/// `keepDistance` keep them two; fingers that come closer merge once.
extension ContactFinder {
  /// Rounds of the two-press fit.
  static let splitRounds = 6
  /// Distance (Q8 pitches) two presses need to be reported apart: 1.25
  /// pitches, and 1.05 where the last frame split.
  static let splitDistance: Int64 = 320
  static let keepDistance: Int64 = 269

  /// Tries every fitted peak of this frame for a second press in it (only
  /// those whose fit leaves a residual above the threshold: the cost is
  /// paid by frames with two fingers in one maximum).
  mutating func splitPeaks(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap) {
    let original = min(peakCount, 16)
    var seen = 0
    // Two maxima within two pitches count as a split for the next frame
    // (fingers coming together stay two where one maximum would not split).
    let near2 = 4 * pitch * pitch
    for p in 0..<original where fitAmplitude[p] > 0 {
      for q in (p + 1)..<max(original, p + 1) where fitAmplitude[q] > 0 && seen < 4 {
        let dx = fitX[q] - fitX[p]
        let dy = fitY[q] - fitY[p]
        if dx * dx + dy * dy <= near2 { noteSplit(p, q, &seen) }
      }
    }
    for p in 0..<original where fitAmplitude[p] > 0 {
      // residual / energy >= 1/128 (both under 2^40), then 1/64 unless
      // remembered.
      guard fitResidual[p] << 7 >= fitEnergy[p] else { continue }
      let remembered = splitRemembered(fitX[p], fitY[p])
      guard remembered || fitResidual[p] << 6 >= fitEnergy[p] else { continue }
      // Above what the cells' noise leaves: the window's 25 cells leave
      // about 25 of the peak cell's noise variances; 100 (50 where
      // remembered) is over ten standard deviations of that sum more
      // (Q30 of the peak squared).
      let k = Int(peaks[p])
      let zPeak = Int64(max(image[k].rawValue, 1))
      let sigma = min(Saturating.shiftDivide(Int64(noise.sigma[k]), 15, zPeak), 1 << 15)
      guard fitResidual[p] > (remembered ? 50 : 100) &* sigma &* sigma else { continue }
      guard peakCount < 16 else { break }
      let q = peakCount
      if let spread = split(&image, &noise, p, into: q, remembered: remembered) {
        if spread == 0 {
          if seen < 4 { noteSplit(p, q, &seen) }
        } else {
          fitSpread[p] = spread
        }
      }
    }
    for m in 0..<seen {
      splitMemoryX[m] = splitSeenX[m]
      splitMemoryY[m] = splitSeenY[m]
    }
    splitMemoryCount = seen
  }

  /// Remembers, for the next frame, that presses `p` and `q` stood
  /// together (a split, or two maxima within two pitches), at their middle.
  @inline(__always)
  mutating func noteSplit(_ p: Int, _ q: Int, _ seen: inout Int) {
    splitSeenX[seen] = Int32(truncatingIfNeeded: (fitX[p] + fitX[q]) / 2)
    splitSeenY[seen] = Int32(truncatingIfNeeded: (fitY[p] + fitY[q]) / 2)
    seen += 1
  }

  /// Whether the last frame split a press within a pitch of (`x`, `y`).
  @inline(__always)
  mutating func splitRemembered(_ x: Int64, _ y: Int64) -> Bool {
    for m in 0..<min(splitMemoryCount, 4) {
      let dx = x - Int64(splitMemoryX[m])
      let dy = y - Int64(splitMemoryY[m])
      if dx * dx + dy * dy <= pitch * pitch { return true }
    }
    return false
  }

  /// What the cells' noise alone leaves of a fit on the window around peak
  /// cell `k` (its 5 x 5 cells, fewer at the grid's border): the sum of
  /// their noise variances less `cut` of the peak's (a fit's own free
  /// parameters), relative to the peak cell's force (Q30, as the fits'
  /// residuals): a fit whose model is right leaves about this much.
  @inline(__always)
  mutating func noiseResidual(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, around k: Int, cut: Int64) -> Int64 {
    let zPeak = Int64(max(image[k].rawValue, 1))
    let col = k % columns
    let row = k / columns
    var sum: Int64 = 0
    for r in max(0, row - 2)...min(rows - 1, row + 2) {
      for c in max(0, col - 2)...min(columns - 1, col + 2) {
        let s = min(Saturating.shiftDivide(Int64(noise.sigma[r * columns + c]), 15, zPeak), 1 << 15)
        sum &+= s &* s
      }
    }
    let s = min(Saturating.shiftDivide(Int64(noise.sigma[k]), 15, zPeak), 1 << 15)
    return max(sum &- cut &* s &* s, 0)
  }

  /// What fit `p` leaves beyond the noise of its window's cells (three
  /// of the peak's variances being its own free parameters): its model's
  /// error (Q30, as `fitResidual`).
  @inline(__always)
  mutating func modelError(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, _ p: Int) -> Int64 {
    max(fitResidual[p] - noiseResidual(&image, &noise, around: Int(peaks[p]), cut: 3), 0)
  }

  /// The cell of the grid nearest to (`x`, `y`) um.
  @inline(__always)
  mutating func nearestCell(_ x: Int64, _ y: Int64) -> (column: Int, row: Int) {
    let c = min(max(Int(truncatingIfNeeded: FixedMath.divide(max(x, 0), max(pitch, 1))), 0), columns - 1)
    let r = min(max(Int(truncatingIfNeeded: FixedMath.divide(max(y, 0), max(pitch, 1))), 0), rows - 1)
    return (c, r)
  }

  /// What the fitted presses other than `p` (-1: every one) leave on cell
  /// `j`: its force less every fit whose peak is within four cells of it
  /// (mN Q10).
  @inline(__always)
  mutating func unexplained(_ image: inout CellArray<Force_mN>, _ j: Int, except p: Int = -1) -> Int64 {
    var force = Int64(image[j].rawValue)
    let c = j % columns
    let r = j / columns
    for q in 0..<min(peakCount, 16) where q != p && fitAmplitude[q] > 0 {
      let dc = c - Int(peakColumn[q])
      let dr = r - Int(peakRow[q])
      if dc > 4 || dc < -4 || dr > 4 || dr < -4 { continue }
      let u = ((Int64(cellX[j].rawValue) - fitX[q]) &* knotReciprocal) >> 24
      let v = ((Int64(cellY[j].rawValue) - fitY[q]) &* knotReciprocal) >> 24
      force &-= Saturating.multiplyShift(fitAmplitude[q], responseKernel(u, v).h, 15)
    }
    return force
  }

  /// Fits peak `p`'s cells as two presses, the second as peak `q` (=
  /// `peakCount`). Returns 0 when they are two contacts (`q` added), the
  /// spread (um, at least 1) when they are one merged contact, nil when
  /// the cells are one press; `p` is as it was unless split.
  mutating func split(
    _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, _ p: Int, into q: Int, remembered: Bool
  ) -> Int32? {
    let k = Int(peaks[p])
    let col = k % columns
    let row = k / columns
    // The cell the fit explains least, around the peak.
    var worst = -1
    var most: Int64 = 0
    for r in max(0, row - 2)...min(rows - 1, row + 2) {
      for c in max(0, col - 2)...min(columns - 1, col + 2) {
        let j = r * columns + c
        let left = unexplained(&image, j)
        if left > most {
          most = left
          worst = j
        }
      }
    }
    guard worst >= 0 else { return nil }
    let x1 = fitX[p]
    let y1 = fitY[p]
    // The second press at that cell, the first a quarter of the way from
    // the fit away from it: the one fit lies at the presses' centre of
    // force, on the stronger one where they differ (a finger lifting
    // next to another), midway where they are alike.
    let dx = (Int64(cellX[worst].rawValue) - x1) / 4
    let dy = (Int64(cellY[worst].rawValue) - y1) / 4
    let a = nearestCell(x1 - dx, y1 - dy)
    let b = nearestCell(x1 + 4 * dx, y1 + 4 * dy)
    guard a.column != b.column || a.row != b.row else { return nil }
    // Keep p as it is, to restore.
    let saved = (peaks[p], peakColumn[p], peakRow[p], fitX[p], fitY[p], fitAmplitude[p], fitForce[p], fitResidual[p], fitEnergy[p])
    // What the one fit leaves beyond the cells' noise (its model error),
    // against its window's energy (Q16).
    let residual1 = Saturating.shiftDivide(modelError(&image, &noise, p), 16, max(fitEnergy[p], 1))
    peaks[p] = Int16(a.row * columns + a.column)
    peakColumn[p] = Int16(a.column)
    peakRow[p] = Int16(a.row)
    peaks[q] = Int16(b.row * columns + b.column)
    peakColumn[q] = Int16(b.column)
    peakRow[q] = Int16(b.row)
    fitX[p] = x1 - dx
    fitY[p] = y1 - dy
    fitX[q] = x1 + 4 * dx
    fitY[q] = y1 + 4 * dy
    fitAmplitude[p] = saved.5 / 2
    fitAmplitude[q] = saved.5 / 2
    peakCount += 1
    var fitted = true
    for _ in 0..<ContactFinder.splitRounds {
      guard let fb = fitResponse(&image, peak: q, x: fitX[q], y: fitY[q], joint: true) else {
        fitted = false
        break
      }
      keep(fb, as: q)
      guard let fa = fitResponse(&image, peak: p, x: fitX[p], y: fitY[p], joint: true) else {
        fitted = false
        break
      }
      keep(fa, as: p)
    }
    var spread: Int32?
    if fitted {
      let ex = fitX[q] - fitX[p]
      let ey = fitY[q] - fitY[p]
      let apart2 = ex * ex + ey * ey
      let stronger = max(fitForce[p], fitForce[q])
      let weaker = min(fitForce[p], fitForce[q])
      // Each leaves at most a quarter of the one fit's model error (half
      // where remembered), both beyond what their cells' noise leaves.
      let shift = remembered ? 17 : 18
      let leftP = modelError(&image, &noise, p)
      let leftQ = modelError(&image, &noise, q)
      let explained =
        Saturating.shiftDivide(leftP, shift, max(fitEnergy[p], 1)) <= residual1
        && Saturating.shiftDivide(leftQ, shift, max(fitEnergy[q], 1)) <= residual1
      if explained && 4 * weaker >= stronger && weaker >= Int64(release) {
        let d = ((remembered ? ContactFinder.keepDistance : ContactFinder.splitDistance) * pitch) >> 8
        if apart2 >= d * d {
          // Two contacts sharing the maximum's cells: each stands out of
          // their noise by its share of their force.
          let share = Saturating.shiftDivide(fitForce[q], 16, max(fitForce[p] + fitForce[q], 1))
          let whole = near[p]
          near[q] = Saturating.multiplyShift(whole, share, 16)
          near[p] = whole - near[q]
          sums[q] = sums[p]
          cells[q] = cells[p]
          nearNoise[q] = nearNoise[p]
          nearNoise2[q] = nearNoise2[p]
          fitSpread[q] = 0
          return 0
        }
        spread = Int32(truncatingIfNeeded: max(FixedMath.squareRoot(apart2) / 2, 1))
      }
    }
    let total = fitForce[p] + fitForce[q]
    peakCount -= 1
    (peaks[p], peakColumn[p], peakRow[p], fitX[p], fitY[p], fitAmplitude[p], fitForce[p], fitResidual[p], fitEnergy[p]) = saved
    // One merged contact: where the one fit put it, with the two presses'
    // force (the one fit's kernel does not describe their cells).
    if spread != nil { fitForce[p] = total }
    return spread
  }
}
