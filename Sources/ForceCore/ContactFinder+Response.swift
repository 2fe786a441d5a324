/// Contacts from the learnt response (`ResponseTable`): each peak's
/// position and force fitted to the cells around it by least squares, a
/// few Gauss-Newton steps from the interpolated position.
///
/// The cells within two of the peak that are nearer to it than to any
/// other peak (`z_k`) are explained as one press `G K(x_k - x, y_k - y)`;
/// for a given position the best `G` is `sum(K z) / sum(K K)` (the press's
/// force enters linearly), and each step moves the position by the 2 x 2
/// normal equations of the kernel's slopes against the residuals. A cell
/// that does not exist (beyond a grid's edge) is simply not in the sum, so
/// a press in the outer band is not pulled inward as by an interpolation
/// that assumes cells on both sides. The force is `G` times the kernel
/// summed over every cell around the peak, times the table's scale there.
///
/// Integer arithmetic only: the cells' forces relative to the peak's (Q15),
/// the kernel and its slopes per eighth pitch (Q15), sums in 64 bits, the
/// 2 x 2 system brought within range by shifts.
extension ContactFinder {
  /// Evaluations of the window: the start, then a Gauss-Newton step each.
  static let responseSteps = 6
  /// Rounds of fitting neighbouring presses each on the cells less the
  /// others' fits (block coordinate descent toward their joint fit).
  static let jointRounds = 2
  /// Evaluations of each joint round's fits (their starts are close).
  static let jointSteps = 3

  /// K and its slopes (per knot step, toward +u and +v) at offset (`u`,
  /// `v`) knot steps (Q16) of the cell from the press; 0 beyond the table.
  @inline(__always)
  mutating func responseKernel(_ u: Int64, _ v: Int64) -> (h: Int64, gu: Int64, gv: Int64) {
    let n = ResponseTable.reach
    let i0 = Int(truncatingIfNeeded: u >> 16)
    let j0 = Int(truncatingIfNeeded: v >> 16)
    guard i0 >= -n && i0 < n && j0 >= -n && j0 < n else { return (0, 0, 0) }
    let fu = u & 0xFFFF
    let fv = v & 0xFFFF
    let k00 = Int64(response.kernel[ResponseTable.index(i0, j0)])
    let k10 = Int64(response.kernel[ResponseTable.index(i0 + 1, j0)])
    let k01 = Int64(response.kernel[ResponseTable.index(i0, j0 + 1)])
    let k11 = Int64(response.kernel[ResponseTable.index(i0 + 1, j0 + 1)])
    let du0 = k10 - k00
    let du1 = k11 - k01
    let a = k00 + ((du0 * fu) >> 16)
    let b = k01 + ((du1 * fu) >> 16)
    let h = a + (((b - a) * fv) >> 16)
    let gu = du0 + (((du1 - du0) * fv) >> 16)
    let dv0 = k01 - k00
    let dv1 = k11 - k10
    let gv = dv0 + (((dv1 - dv0) * fu) >> 16)
    return (h, gu, gv)
  }

  /// The force scale (Q16) at (`x`, `y`) um, bilinear between the table's
  /// knots, held at the panel's edges.
  @inline(__always)
  mutating func responseScale(_ x: Int64, _ y: Int64) -> Int64 {
    let columns = response.scaleColumns
    let rows = response.scaleRows
    guard columns >= 2 && rows >= 2 else { return 65536 }
    let u = min(max((x * scaleReciprocalX) >> 24, 0), Int64(columns - 1) << 16)
    let v = min(max((y * scaleReciprocalY) >> 24, 0), Int64(rows - 1) << 16)
    let i = min(Int(truncatingIfNeeded: u >> 16), columns - 2)
    let j = min(Int(truncatingIfNeeded: v >> 16), rows - 2)
    let fu = u - (Int64(i) << 16)
    let fv = v - (Int64(j) << 16)
    let s00 = Int64(response.scale[j * columns + i])
    let s10 = Int64(response.scale[j * columns + i + 1])
    let s01 = Int64(response.scale[(j + 1) * columns + i])
    let s11 = Int64(response.scale[(j + 1) * columns + i + 1])
    let a = s00 + (((s10 - s00) * fu) >> 16)
    let b = s01 + (((s11 - s01) * fu) >> 16)
    return a + (((b - a) * fv) >> 16)
  }

  /// Whether cell (`col`, `row`) is nearer to peak `p` than to every other
  /// peak (a tie goes to the stronger, the earlier in `peaks`).
  @inline(__always)
  mutating func owns(_ p: Int, col: Int, row: Int) -> Bool {
    let np = min(peakCount, 16)
    guard np > 1 else { return true }
    let dc = col - Int(peakColumn[p])
    let dr = row - Int(peakRow[p])
    let mine = dc * dc + dr * dr
    for q in 0..<np where q != p {
      let ec = col - Int(peakColumn[q])
      let er = row - Int(peakRow[q])
      let other = ec * ec + er * er
      if other < mine || (other == mine && q < p) { return false }
    }
    return true
  }

  /// The window's sums for a press at (`x`, `y`) um: the kernel and its
  /// slopes against the cells' forces relative to the peak's (Q15).
  struct ResponseSums {
    var hh: Int64 = 0
    var hz: Int64 = 0
    var zz: Int64 = 0
    var uu: Int64 = 0
    var uv: Int64 = 0
    var vv: Int64 = 0
    var uz: Int64 = 0
    var uh: Int64 = 0
    var vz: Int64 = 0
    var vh: Int64 = 0
    /// K summed over every cell of the window (owned or not).
    var h: Int64 = 0
    /// The best G (Q15) and what it leaves unexplained (Q30).
    var gain: Int64 = 0
    var residual: Int64 = Int64.max
  }

  /// The window of peak `p` (columns `c0...c1`, rows `r0...r1`) for a press
  /// at (`x`, `y`) um, each cell's force times `zReciprocal` (2^46 over the
  /// peak's).
  @inline(__always)
  mutating func responseSums(
    _ image: inout CellArray<Force_mN>, peak p: Int, x: Int64, y: Int64, zReciprocal: Int64,
    columns c0: Int, _ c1: Int, rows r0: Int, _ r1: Int, joint: Bool
  ) -> ResponseSums {
    var s = ResponseSums()
    for r in r0...r1 {
      for c in c0...c1 {
        let j = r * columns + c
        let u = ((Int64(cellX[j].rawValue) - x) &* knotReciprocal) >> 24
        let v = ((Int64(cellY[j].rawValue) - y) &* knotReciprocal) >> 24
        let (h, gu, gv) = responseKernel(u, v)
        s.h &+= h
        var force = Int64(image[j].rawValue)
        if joint {
          // Every cell of the window, less what the other presses fitted
          // put on it.
          force = unexplained(&image, j, except: p)
        } else if !owns(p, col: c, row: r) {
          continue
        }
        let z = min(max((force &* zReciprocal) >> 31, -(1 << 17)), 1 << 17)
        s.hh &+= h &* h
        s.hz &+= h &* z
        s.zz &+= z &* z
        s.uu &+= gu &* gu
        s.uv &+= gu &* gv
        s.vv &+= gv &* gv
        s.uz &+= gu &* z
        s.uh &+= gu &* h
        s.vz &+= gv &* z
        s.vh &+= gv &* h
      }
    }
    if s.hh > 0 && s.hz > 0 {
      s.gain = Saturating.shiftDivide(s.hz, 15, s.hh)
      s.residual = max(s.zz &- Saturating.multiplyShift(s.gain, s.hz, 15), 0)
    }
    return s
  }

  /// One press fitted: position (um), amplitude (mN Q10 per Q15 of the
  /// kernel), force (mN Q10), and the window's cells' energy and what the
  /// fit leaves of it (Q30 of the peak's force squared).
  struct ResponseFit {
    var x: Int64
    var y: Int64
    var amplitude: Int64
    var force: Int64
    var residual: Int64
    var energy: Int64
  }

  /// The position and force (mN Q10) of peak `p`'s press, fitted from
  /// `start`; nil when the cells do not fit a press (no positive response).
  ///
  /// On a peak at the grid's border the fit also considers starts farther
  /// out (0.3 and 0.45 pitch beyond the cell's centre on the border axes):
  /// there the residual can have a second, shallower minimum between the
  /// press and the cell, where the interpolated start lies; the start that
  /// explains the cells best is taken.
  mutating func fitResponse(
    _ image: inout CellArray<Force_mN>, peak p: Int, x startX: Int64, y startY: Int64, joint: Bool
  ) -> ResponseFit? {
    let k = Int(peaks[p])
    let col = k % columns
    let row = k / columns
    let zPeak = Int64(image[k].rawValue)
    guard zPeak > 0 else { return nil }
    // z / zPeak in Q15: z * 2^46 / zPeak >> 31.
    let zReciprocal = (Int64(1) << 46) / zPeak
    let c0 = max(0, col - 2)
    let c1 = min(columns - 1, col + 2)
    let r0 = max(0, row - 2)
    let r1 = min(rows - 1, row + 2)
    // The position stays within a pitch of the peak cell's centre, on the panel.
    let kx = Int64(cellX[k].rawValue)
    let ky = Int64(cellY[k].rawValue)
    let xLow = max(kx - pitch, 0)
    let xHigh = min(kx + pitch, width)
    let yLow = max(ky - pitch, 0)
    let yHigh = min(ky + pitch, height)
    var x = startX
    var y = startY
    var sums = responseSums(&image, peak: p, x: x, y: y, zReciprocal: zReciprocal, columns: c0, c1, rows: r0, r1, joint: joint)
    let outX: Int64 = col == 0 ? -1 : (col == columns - 1 ? 1 : 0)
    let outY: Int64 = row == 0 ? -1 : (row == rows - 1 ? 1 : 0)
    if !joint && (outX != 0 || outY != 0) {
      for f in stride(from: Int64(77), through: 115, by: 38) {  // 0.3 and 0.45 pitch (of 256)
        let sx = outX == 0 ? x : min(max(kx + outX * ((pitch * f) >> 8), xLow), xHigh)
        let sy = outY == 0 ? y : min(max(ky + outY * ((pitch * f) >> 8), yLow), yHigh)
        let other = responseSums(&image, peak: p, x: sx, y: sy, zReciprocal: zReciprocal, columns: c0, c1, rows: r0, r1, joint: joint)
        if other.residual < sums.residual {
          sums = other
          x = sx
          y = sy
        }
      }
    }
    for _ in 1..<(joint ? ContactFinder.jointSteps : ContactFinder.responseSteps) {
      guard sums.gain > 0 else { break }
      // The slopes' residual sums b = sum(g (z - G h)), Q30.
      let bu = sums.uz &- Saturating.multiplyShift(sums.gain, sums.uh, 15)
      let bv = sums.vz &- Saturating.multiplyShift(sums.gain, sums.vh, 15)
      // The force is free too: the slopes' normal equations less what a
      // change of G explains (A - c c^T / sum(h h), c = sum(g h)): near an
      // edge every cell's slope has one sign, and moving the press looks
      // much like pressing harder.
      let ru = Saturating.shiftDivide(sums.uh, 15, sums.hh)
      let rv = Saturating.shiftDivide(sums.vh, 15, sums.hh)
      let suu = max(sums.uu &- Saturating.multiplyShift(ru, sums.uh, 15), 0)
      let suv = sums.uv &- Saturating.multiplyShift(ru, sums.vh, 15)
      let svv = max(sums.vv &- Saturating.multiplyShift(rv, sums.vh, 15), 0)
      // Lightly damped (1/64 on the diagonal), within 2^30.
      let top = max(max(suu, svv), 1)
      let s = max(0, 64 - top.leadingZeroBitCount - 30)
      let a11 = (suu >> s) + (suu >> (s + 6)) + 1
      let a22 = (svv >> s) + (svv >> (s + 6)) + 1
      let a12 = suv >> s
      let det = a11 &* a22 &- a12 &* a12
      guard det > 0 else { break }
      let bTop = max(bu.magnitude, bv.magnitude)
      let sb = max(0, 64 - bTop.leadingZeroBitCount - 30)
      let b1 = bu >> sb
      let b2 = bv >> sb
      // A^-1 b / (G / 2^15) in Q16 knot steps: (adj b) 2^(16 + sb - s) / det,
      // then over the gain.
      let q = 16 + sb - s
      guard q >= 0 && q <= 62 else { break }
      let nu = a22 &* b1 &- a12 &* b2
      let nv = a11 &* b2 &- a12 &* b1
      let limit = Int64(4) << 16  // half a pitch a step
      let du = min(max(-Saturating.shiftDivide(Saturating.shiftDivide(nu, q, det), 15, sums.gain), -limit), limit)
      let dv = min(max(-Saturating.shiftDivide(Saturating.shiftDivide(nv, q, det), 15, sums.gain), -limit), limit)
      // Knot steps (Q16) to um: pitch / 8 / 2^16.
      x = min(max(x + ((du &* pitch) >> 19), xLow), xHigh)
      y = min(max(y + ((dv &* pitch) >> 19), yLow), yHigh)
      sums = responseSums(&image, peak: p, x: x, y: y, zReciprocal: zReciprocal, columns: c0, c1, rows: r0, r1, joint: joint)
    }
    guard sums.gain > 0, sums.h > 0 else { return nil }
    // F = G zPeak (the cells' scale) x sum K x the scale.
    let amplitude = Saturating.multiplyShift(sums.gain, zPeak, 15)
    let force = Saturating.multiplyShift(Saturating.multiplyShift(amplitude, sums.h, 15), responseScale(x, y), 16)
    return ResponseFit(x: x, y: y, amplitude: amplitude, force: force, residual: sums.residual, energy: sums.zz)
  }

  /// Fits every peak (`fitX`, `fitY`, `fitAmplitude`, `fitForce`; amplitude
  /// 0: not fitted): each alone on the cells nearer to it than to any other
  /// peak, then, where another peak is within four cells, once more on
  /// every cell of its window less what the others' fits put there, two
  /// rounds over (two fingers whose spreads overlap are fitted together,
  /// not each pulled toward the other); then a press its one fit does not
  /// explain is tried as two (`splitPeaks`).
  @inline(__always)
  mutating func keep(_ f: ResponseFit, as p: Int) {
    fitX[p] = f.x
    fitY[p] = f.y
    fitAmplitude[p] = f.amplitude
    fitForce[p] = f.force
    fitResidual[p] = f.residual
    fitEnergy[p] = f.energy
  }

  mutating func fitPeaks(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap) {
    let np = min(peakCount, 16)
    for p in 0..<np {
      fitAmplitude[p] = 0
      fitForce[p] = 0
      fitSpread[p] = 0
    }
    var near = false
    for p in 0..<np {
      let start = interpolate(&image, &noise, peak: Int(peaks[p]))
      if let f = fitResponse(&image, peak: p, x: Int64(start.x.rawValue), y: Int64(start.y.rawValue), joint: false) {
        keep(f, as: p)
      }
      for q in 0..<p {
        let dc = Int(peakColumn[p]) - Int(peakColumn[q])
        let dr = Int(peakRow[p]) - Int(peakRow[q])
        if dc <= 4 && dc >= -4 && dr <= 4 && dr >= -4 { near = true }
      }
    }
    if near {
      for _ in 0..<ContactFinder.jointRounds {
        for p in 0..<np where fitAmplitude[p] > 0 {
          if let f = fitResponse(&image, peak: p, x: fitX[p], y: fitY[p], joint: true) {
            keep(f, as: p)
          }
        }
      }
    }
    splitPeaks(&image, &noise)
  }
}
