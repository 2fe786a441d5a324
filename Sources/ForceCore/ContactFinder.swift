/// Finds the contacts in a force image.
///
/// - Supports (a rigid plate on load cells): one contact whose force is the
///   sum of the cells and whose position is the centre of pressure,
///   `x = sum(F_i x_i) / sum(F_i)` (moment balance; exact for any load
///   sharing between the supports).
/// - Grid: every local maximum of the image above its cell's floor (the
///   board's, or the cell's noise times `noiseFloor`) is a candidate peak;
///   two peaks two cells apart whose saddle is at least `mergeSaddle` of
///   the smaller are merged; every cell within `contactRadius` cells of its
///   nearest peak gives its force to that peak (below-floor cells too: a
///   press's tails carry a few percent of its force), scaled by
///   `captureScale` (the share of a press those cells carry, learnt by the
///   calibration); cells farther from every peak carry only noise and are
///   left out. The position is interpolated around the peak.
///
/// Each contact also says how far it stands out of the noise (`snr`: the
/// force of its peak's 3 x 3 cells, or of a plate's cells, over the noise of
/// their sum) and how uncertain its position is (`positionNoise`: the
/// spread that the cells' noise gives the centre of pressure, which grows
/// as 1 / force).
public struct ContactFinder: Sendable {
  // The geometry, unpacked: reading a large struct's fields in the frame
  // path can copy the whole struct.
  var cellX: CellArray<Length_um> = CellArray(repeating: .zero)
  var cellY: CellArray<Length_um> = CellArray(repeating: .zero)
  var cellCount = 0
  var width: Int64 = 0
  var height: Int64 = 0
  /// Grid shape; `columns == 0` for a plate on supports.
  var columns = 0
  var rows = 0
  var pitch: Int64 = 0
  var release: Int32 = 0
  var mergeSaddle_Q8: Int32 = 0
  var mergeDipNoise_Q8: Int64 = 0
  var spreading: InlineArray<13, Int32> = InlineArray(repeating: 0)
  var spreadingKnown = false
  var bias: InlineArray<17, Int32> = InterpolationBias.identity
  var radius = 1
  var captureScale_Q16: Int64 = 65536
  var captureSlope_Q16: Int64 = 0
  var cellFloor = Force_mN.zero
  var interpolation = PeakInterpolation.gaussian
  var maxContacts = 0
  /// The learnt response (`ContactFinder+Response`), and reciprocals for
  /// reading it: knot steps per um (Q40 / pitch), the scale's knots per
  /// um along x and y (Q40).
  var response = ResponseTable()
  var responseKnown = false
  var knotReciprocal: Int64 = 0
  var scaleReciprocalX: Int64 = 0
  var scaleReciprocalY: Int64 = 0
  // Scratch for one frame, sized at compile time.
  var peaks: InlineArray<16, Int16> = InlineArray(repeating: 0)
  var peakCount = 0
  var sums: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var cells: InlineArray<16, Int16> = InlineArray(repeating: 0)
  var peakColumn: InlineArray<16, Int16> = InlineArray(repeating: 0)
  var peakRow: InlineArray<16, Int16> = InlineArray(repeating: 0)
  var rowTerm: InlineArray<16, Int32> = InlineArray(repeating: 0)
  /// Per peak: the force of its 3 x 3 cells, and their noises summed and
  /// squared-and-summed (for `snr`).
  var near: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var nearNoise: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var nearNoise2: InlineArray<16, Int64> = InlineArray(repeating: 0)
  /// Per peak, with a learnt response: the fitted position (um), amplitude
  /// (mN Q10 per Q15 of the kernel; 0: not fitted) and force.
  var fitX: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var fitY: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var fitAmplitude: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var fitForce: InlineArray<16, Int64> = InlineArray(repeating: 0)
  /// Per peak: its fit's window energy and what the fit leaves of it (Q30
  /// of the peak's force squared), and the spread (um) of a contact that
  /// holds two presses the data cannot separate (0: one press).
  var fitResidual: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var fitEnergy: InlineArray<16, Int64> = InlineArray(repeating: 1)
  var fitSpread: InlineArray<16, Int32> = InlineArray(repeating: 0)
  /// Where the last frame split a maximum into two contacts or had two
  /// maxima close together (their midpoints, um), and this frame's: the
  /// split's hysteresis (`ContactFinder+Pairs`).
  var splitMemoryX: InlineArray<4, Int32> = InlineArray(repeating: 0)
  var splitMemoryY: InlineArray<4, Int32> = InlineArray(repeating: 0)
  var splitMemoryCount = 0
  var splitSeenX: InlineArray<4, Int32> = InlineArray(repeating: 0)
  var splitSeenY: InlineArray<4, Int32> = InlineArray(repeating: 0)

  /// A finder for no panel (no cells), to be set up in place with `setUp`.
  public init() {}

  public init(geometry: PanelGeometry, configuration c: CoreConfiguration) {
    var g = geometry
    setUp(geometry: &g, configuration: c)
  }

  /// Sets the finder up for a panel, in place (`geometry` is `inout` only
  /// so that it is read where it is).
  public mutating func setUp(geometry: inout PanelGeometry, configuration c: CoreConfiguration) {
    // Positions within +-2^23 um (8.4 m) keep the centre-of-pressure sums
    // exact; no panel comes near it.
    let limit: Int32 = 1 << 23
    for k in 0..<Capacity.cells {
      cellX[k] = Length_um(rawValue: max(-limit, min(limit, geometry.cellX[k].rawValue)))
      cellY[k] = Length_um(rawValue: max(-limit, min(limit, geometry.cellY[k].rawValue)))
    }
    cellCount = geometry.cellCount
    width = Int64(geometry.width.rawValue)
    height = Int64(geometry.height.rawValue)
    switch geometry.layout {
    case .supports:
      columns = 0
      rows = 0
      pitch = 0
    case .grid(let c, let r, let p):
      columns = c
      rows = r
      pitch = Int64(p.rawValue)
    }
    self.release = c.touchOff.rawValue
    self.mergeSaddle_Q8 = c.mergeSaddle_Q8
    self.mergeDipNoise_Q8 = Int64(max(c.mergeDipNoise_Q8, 0))
    self.spreading = c.spreading_Q16
    self.spreadingKnown = c.spreading_Q16[0] > 0
    self.bias = c.interpolationBias
    self.radius = max(1, c.contactRadius)
    self.cellFloor = c.cellFloor
    self.captureScale_Q16 = Int64(max(c.captureScale_Q16, 1))
    self.captureSlope_Q16 = Int64(c.captureSlope_Q16)
    self.interpolation = c.interpolation
    self.maxContacts = max(0, min(c.maxContacts, Capacity.contacts))
    peakCount = 0
    self.response = c.response
    self.responseKnown = !c.response.isEmpty && pitch > 0 && width > 0 && height > 0
    self.knotReciprocal = pitch > 0 ? (Int64(ResponseTable.knotsPerPitch) << 40) / pitch : 0
    self.scaleReciprocalX = width > 0 ? (Int64(max(c.response.scaleColumns - 1, 0)) << 40) / width : 0
    self.scaleReciprocalY = height > 0 ? (Int64(max(c.response.scaleRows - 1, 0)) << 40) / height : 0
  }

  /// Replaces `contacts` with the contacts of `image` (which is not
  /// modified: `inout` only so the large array is accessed in place; a
  /// borrowed `InlineArray` is copied on element access), judged against
  /// `noise` (likewise read in place).
  public mutating func find(
    _ image: inout CellArray<Force_mN>, noise: inout NoiseMap, into contacts: inout ContactList
  ) {
    contacts.removeAll()
    guard maxContacts > 0 else { return }
    if columns == 0 {
      findCentreOfPressure(&image, &noise, into: &contacts)
    } else {
      findPeaks(&image, &noise, into: &contacts)
    }
  }

  /// The contacts of `image` on a panel whose noise is not measured (every
  /// cell's floor at `cellFloor`, contacts far above the noise): tools and
  /// tests.
  public mutating func find(_ image: inout CellArray<Force_mN>, into contacts: inout ContactList) {
    var quiet = NoiseMap(cellFloor: cellFloor)
    find(&image, noise: &quiet, into: &contacts)
  }

  /// `x`, `y` clamped onto the panel. (Methods that read `self` are
  /// `mutating` here: a non-mutating call may copy the whole finder,
  /// cell tables included.)
  @inline(__always)
  mutating func clamp(_ x: Int64, _ y: Int64) -> (x: Length_um, y: Length_um) {
    let cx = x < 0 ? 0 : (x > width ? width : x)
    let cy = y < 0 ? 0 : (y > height ? height : y)
    return (Length_um(rawValue: Int32(truncatingIfNeeded: cx)), Length_um(rawValue: Int32(truncatingIfNeeded: cy)))
  }

  // MARK: Supports

  mutating func findCentreOfPressure(
    _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, into contacts: inout ContactList
  ) {
    var total: Int64 = 0
    var mx: Int64 = 0
    var my: Int64 = 0
    var peak = 0
    var peakForce = Int32.min
    // |force| < 2^31 and |position| < 2^23 um (clamped at setup): 256
    // products sum to under 2^62, so the sums cannot overflow.
    for k in 0..<min(cellCount, Capacity.cells) {
      let f = image[k].rawValue
      total &+= Int64(f)
      mx &+= Int64(f) &* Int64(cellX[k].rawValue)
      my &+= Int64(f) &* Int64(cellY[k].rawValue)
      if f > peakForce {
        peakForce = f
        peak = k
      }
    }
    guard total >= Int64(release), total > 0 else { return }
    // One division: the total's reciprocal in Q62, then two products.
    let reciprocal = (Int64(1) << 62) / total
    let p = clamp(
      Saturating.multiplyShift(mx, reciprocal, 62), Saturating.multiplyShift(my, reciprocal, 62))
    var contact = Contact(
      x: p.x, y: p.y, force: Force_mN(rawValue: Saturating.int32(total)),
      peakCell: Int16(peak), cellCount: Int16(cellCount))
    // Every cell: the total's own measured noise.
    contact.noise = Force_mN(rawValue: max(noise.total, 1))
    contact.snr_Q8 = ContactFinder.ratio_Q8(total, Int64(max(noise.total, 1)))
    contact.positionNoise = positionNoise(&noise, x: p.x, y: p.y, force: total, around: -1)
    contacts.insert(contact)
  }

  /// Signal over noise, Q8, saturated.
  @inline(__always)
  static func ratio_Q8(_ signal: Int64, _ noise: Int64) -> Int32 {
    guard signal > 0 else { return 0 }
    return Saturating.int32(FixedMath.divide(Saturating.multiply(signal, 256), max(noise, 1)))
  }

  /// The spread of the centre of pressure at (`x`, `y`) carrying `force`
  /// (mN Q10) from the noise of the cells it is computed from (a plate's
  /// cells, `around` = -1; on a grid the 3 x 3 cells around the peak):
  /// sqrt(sum(s_i^2 d_i^2)) / force, each cell's noise s_i weighted by its
  /// distance d_i from the position.
  mutating func positionNoise(
    _ noise: inout NoiseMap, x: Length_um, y: Length_um, force: Int64, around peak: Int
  ) -> Length_um {
    var sum: Int64 = 0
    let x0 = Int64(x.rawValue)
    let y0 = Int64(y.rawValue)
    if peak < 0 {
      for k in 0..<min(cellCount, Capacity.cells) {
        sum = Saturating.add(sum, ContactFinder.term(noise.sigma[k], Int64(cellX[k].rawValue) - x0, Int64(cellY[k].rawValue) - y0))
      }
    } else {
      let col = peak % columns
      let row = peak / columns
      // (A grid's indices are far inside `Int`: no overflow to check.)
      for r in max(0, row &- 1)...min(rows &- 1, row &+ 1) {
        for c in max(0, col &- 1)...min(columns &- 1, col &+ 1) {
          let k = r &* columns &+ c
          sum = Saturating.add(sum, ContactFinder.term(noise.sigma[k], Int64(cellX[k].rawValue) - x0, Int64(cellY[k].rawValue) - y0))
        }
      }
    }
    // sqrt(mN^2 um^2) = mN um (Q0); over mN (force Q10 >> 10).
    let spread = FixedMath.squareRoot(sum)
    let f = max(force >> 10, 1)
    return Length_um(rawValue: Saturating.int32(FixedMath.divide(spread, f)))
  }

  /// s^2 d^2 in mN^2 um^2 (s in mN Q10, d in um).
  @inline(__always)
  static func term(_ s: Int32, _ dx: Int64, _ dy: Int64) -> Int64 {
    let s2 = Int64(s) &* Int64(s)  // mN^2 Q20
    let d2 = Saturating.add(dx &* dx, dy &* dy)
    // Both under 2^31 (a noise under 45 mN, a distance under 46 mm): the
    // product fits 62 bits, one 32 x 32-bit multiplication.
    if let a = Saturating.narrow(s2), let b = Saturating.narrow(d2) {
      return Saturating.roundingShift(Int64(a) &* Int64(b), 20)
    }
    return Saturating.multiplyShift(s2, d2, 20)
  }

  // MARK: Grid

  /// The contacts of a grid, in four steps: the local maxima, merged where
  /// a high saddle joins them, the cells fed to their nearest peak, and a
  /// contact for each peak above the release threshold. (Inlined as they
  /// were one function: `feedPeaks` and `emitContact` are `@_transparent`,
  /// which -Osize honours where it leaves an `@inline(__always)` this size
  /// out of line; the Cortex-M4's instructions a frame are docs/firmware.md's.)
  mutating func findPeaks(
    _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, into contacts: inout ContactList
  ) {
    peakCount = 0
    findMaxima(&image, &noise)
    mergePeaks(&image, &noise)
    guard peakCount > 0 else {
      splitMemoryCount = 0
      return
    }
    feedPeaks(&image, &noise)
    if responseKnown { fitPeaks(&image, &noise) }
    for p in 0..<peakCount { emitContact(p, &image, &noise, into: &contacts) }
  }

  /// Step 1: the local maxima (ties go to the lower index), strongest 16
  /// kept: the cells at or above their floor, in cell order
  /// (`firstAtFloor` skips the others, most of them, in a loop of its own).
  @inline(__always)
  mutating func findMaxima(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap) {
    let gridCells = min(rows &* columns, Capacity.cells)
    var next = 0
    while true {
      let k = ContactFinder.firstAtFloor(from: next, to: gridCells, &image, &noise.floor)
      guard k < gridCells else { break }
      next = k &+ 1
      let row = k / columns
      let col = k &- row &* columns
      let isMaximum =
        row > 0 && row &+ 1 < rows && col > 0 && col &+ 1 < columns
        ? isInteriorMaximum(k, row: row, col: col, &image) : isBorderMaximum(k, row: row, col: col, &image)
      if isMaximum { insertPeak(Int16(k), &image) }
    }
  }

  /// Whether interior cell `k` is a maximum: its eight neighbours
  /// unrolled; a neighbour before `k` in cell order wins a tie, one after
  /// it does not. Over its edge neighbours but not its diagonal ones, it is
  /// one when it `standsApart`.
  @inline(__always)
  mutating func isInteriorMaximum(_ k: Int, row: Int, col: Int, _ image: inout CellArray<Force_mN>) -> Bool {
    let f = image[k].rawValue
    let c = columns
    if image[k &- 1].rawValue >= f || image[k &+ 1].rawValue > f
      || image[k &- c].rawValue >= f || image[k &+ c].rawValue > f
    {
      return false
    }
    if image[k &- c &- 1].rawValue >= f || image[k &- c &+ 1].rawValue >= f
      || image[k &+ c &- 1].rawValue > f || image[k &+ c &+ 1].rawValue > f
    {
      return standsApart(k, row: row, col: col, &image)
    }
    return true
  }

  /// `isInteriorMaximum` for a cell on the grid's border: the neighbours
  /// there are.
  @inline(__always)
  mutating func isBorderMaximum(_ k: Int, row: Int, col: Int, _ image: inout CellArray<Force_mN>) -> Bool {
    let f = image[k].rawValue
    var diagonal = false
    for dy in -1...1 {
      let r = row + dy
      if r < 0 || r >= rows { continue }
      for dx in -1...1 {
        let c = col + dx
        if (dx == 0 && dy == 0) || c < 0 || c >= columns { continue }
        let j = r * columns + c
        let g = image[j].rawValue
        guard g > f || (g == f && j < k) else { continue }
        if dx == 0 || dy == 0 { return false }
        diagonal = true
      }
    }
    return diagonal ? standsApart(k, row: row, col: col, &image) : true
  }

  /// Step 3: every cell feeds its nearest peak (the stronger one on a
  /// tie), when it lies within `radius` cells of it. Only the cells in the
  /// box around the peaks' windows can.
  @_transparent
  mutating func feedPeaks(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap) {
    let np = min(peakCount, 16)
    let box = startPeaks(np)
    // (Grids are at most 256 cells a side and 256 cells: every index and
    // term below is far inside 32 bits, every sum inside 64.)
    for row in box.firstRow...box.lastRow {
      setRowTerms(row: row, np)
      for col in box.firstColumn...box.lastColumn {
        let k = row &* columns &+ col
        feed(cell: k, to: nearestPeak(col: col, np), row: row, col: col, &image, &noise)
      }
    }
  }

  /// Clears the first `np` peaks' sums, notes their rows and columns, and
  /// returns the box of cells within `radius` of one of them.
  @inline(__always)
  mutating func startPeaks(_ np: Int) -> (firstRow: Int, lastRow: Int, firstColumn: Int, lastColumn: Int) {
    var firstRow = rows
    var lastRow = -1
    var firstColumn = columns
    var lastColumn = -1
    for p in 0..<np {
      sums[p] = 0
      cells[p] = 0
      near[p] = 0
      nearNoise[p] = 0
      nearNoise2[p] = 0
      let pc = Int(peaks[p]) % columns
      let pr = Int(peaks[p]) / columns
      peakColumn[p] = Int16(pc)
      peakRow[p] = Int16(pr)
      firstRow = min(firstRow, pr - radius)
      lastRow = max(lastRow, pr + radius)
      firstColumn = min(firstColumn, pc - radius)
      lastColumn = max(lastColumn, pc + radius)
    }
    return (max(firstRow, 0), min(lastRow, rows - 1), max(firstColumn, 0), min(lastColumn, columns - 1))
  }

  /// The squared distance to peak p less the cell's own |c|^2 + |r|^2 is
  /// linear in the cell: -2 c cp - 2 r rp + cp^2 + rp^2. Its part that
  /// does not change along `row`, for each peak.
  @inline(__always)
  mutating func setRowTerms(row: Int, _ np: Int) {
    for p in 0..<np {
      let pc = Int32(peakColumn[p])
      let pr = Int32(peakRow[p])
      rowTerm[p] = pc &* pc &+ pr &* pr &- 2 &* Int32(truncatingIfNeeded: row) &* pr
    }
  }

  /// The nearest of the first `np` peaks to column `col` of the row
  /// `setRowTerms` set (the stronger, earlier one on a tie).
  @inline(__always)
  mutating func nearestPeak(col: Int, _ np: Int) -> Int {
    guard np > 1 else { return 0 }
    let twiceColumn = 2 &* Int32(truncatingIfNeeded: col)
    var best = 0
    var bestTerm = rowTerm[0] &- twiceColumn &* Int32(peakColumn[0])
    for p in 1..<np {
      let term = rowTerm[p] &- twiceColumn &* Int32(peakColumn[p])
      if term < bestTerm {
        bestTerm = term
        best = p
      }
    }
    return best
  }

  /// Cell `k`, at (`row`, `col`), gives its force to peak `p` when within
  /// `radius` cells of it; its 3 x 3 cells' force and noise also go to
  /// `near`.
  @inline(__always)
  mutating func feed(
    cell k: Int, to p: Int, row: Int, col: Int, _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap
  ) {
    let dc = abs(col &- Int(peakColumn[p]))
    let dr = abs(row &- Int(peakRow[p]))
    let reach = max(dc, dr)
    if reach > radius { return }
    let f = image[k].rawValue
    sums[p] &+= Int64(f)
    if f >= noise.floor[k] { cells[p] &+= 1 }
    if reach <= 1 {
      let s = Int64(noise.sigma[k])
      near[p] &+= Int64(f)
      nearNoise[p] &+= s
      nearNoise2[p] &+= s &* s
    }
  }

  /// Step 4: peak `p`'s contact into `contacts` (strongest first), when
  /// its force reaches the release threshold: fitted to the learnt
  /// response where that fitted it, else interpolated around the peak with
  /// its cells' captured sum.
  @_transparent
  mutating func emitContact(
    _ p: Int, _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, into contacts: inout ContactList
  ) {
    let k = Int(peaks[p])
    var position: (x: Length_um, y: Length_um)
    var force: Int64
    var spread: Int32 = 0
    if responseKnown && fitAmplitude[p] > 0 {
      position = clamp(fitX[p], fitY[p])
      force = fitForce[p]
      spread = fitSpread[p]
    } else {
      position = interpolate(&image, &noise, peak: k)
      force = Saturating.multiplyShift(sums[p], captureScale(position.x, position.y, peak: k), 16)
    }
    if force < Int64(release) { return }
    var contact = Contact(
      x: position.x, y: position.y, force: Force_mN(rawValue: Saturating.int32(force)),
      peakCell: Int16(k), cellCount: cells[p])
    let sigma = Int64(
      max(
        NoiseMap.sumNoise(
          sum: nearNoise[p], sumOfSquares: nearNoise2[p], correlation_Q16: noise.correlation_Q16), 1))
    contact.noise = Force_mN(rawValue: Saturating.int32(sigma))
    contact.snr_Q8 = ContactFinder.ratio_Q8(near[p], sigma)
    contact.positionNoise = positionNoise(&noise, x: position.x, y: position.y, force: max(near[p], 1), around: k)
    contact.merged = spread > 0
    contact.spread = Length_um(rawValue: spread)
    contacts.insert(contact, limit: maxContacts)
  }

  /// The capture scale (Q16) for a contact at (`x`, `y`) around peak cell
  /// `k`: `captureScale + captureSlope * d^2`, d the distance from the
  /// cell's centre in pitches (at most about 0.7).
  @inline(__always)
  mutating func captureScale(_ x: Length_um, _ y: Length_um, peak k: Int) -> Int64 {
    guard captureSlope_Q16 != 0, pitch > 0 else { return captureScale_Q16 }
    let dx = min(Int64(x.rawValue) - Int64(cellX[k].rawValue), pitch)
    let dy = min(Int64(y.rawValue) - Int64(cellY[k].rawValue), pitch)
    // d^2 in Q16 pitches^2: (dx^2 + dy^2) * 2^16 / pitch^2, each factor
    // within 2^24 um so nothing overflows.
    let p2 = max(pitch &* pitch, 1)
    let d2 = Saturating.add(dx &* dx, dy &* dy)
    let d2_Q16 = min(FixedMath.divide(d2 << 8, max(p2 >> 8, 1)), 2 << 16)
    return max(Saturating.add(captureScale_Q16, Saturating.multiplyShift(captureSlope_Q16, d2_Q16, 16)), 1)
  }

  /// The first cell from `start` on, before `end`, whose force is at or
  /// above its floor; `end` if none is.
  @inline(never)
  static func firstAtFloor(
    from start: Int, to end: Int, _ image: inout CellArray<Force_mN>, _ floor: inout CellArray<Int32>
  ) -> Int {
    let last = min(end, Capacity.cells)
    var k = max(start, 0)
    while k < last && image[k].rawValue < floor[k] { k &+= 1 }
    return k < last ? k : end
  }

  /// Whether cell `k`, a maximum over its edge neighbours but not over
  /// its diagonal ones, is a finger of its own: every larger diagonal
  /// neighbour has, on `k`'s far side from it, edge neighbours of `k` that
  /// together carry at least half of `k`'s force (a second press spreading
  /// away from the first). One press at a cell's corner leaves `k`'s far
  /// side a third of it or less (on the widest spreading); two fingers
  /// whose cells meet at a corner leave the weaker no other maximum.
  /// Whether the two are one contact is then `saddleJoins`'s (the cells at
  /// their shared corner must dip).
  mutating func standsApart(_ k: Int, row: Int, col: Int, _ image: inout CellArray<Force_mN>) -> Bool {
    let f = Int64(image[k].rawValue)
    for dy in stride(from: -1, through: 1, by: 2) {
      let r = row + dy
      let far_r = row - dy
      if r < 0 || r >= rows { continue }
      for dx in stride(from: -1, through: 1, by: 2) {
        let c = col + dx
        let far_c = col - dx
        if c < 0 || c >= columns { continue }
        let j = r * columns + c
        let g = image[j].rawValue
        guard g > image[k].rawValue || (g == image[k].rawValue && j < k) else { continue }
        guard far_r >= 0 && far_r < rows && far_c >= 0 && far_c < columns else { return false }
        let away = Int64(image[row * columns + far_c].rawValue) + Int64(image[far_r * columns + col].rawValue)
        if 2 * away < f { return false }
      }
    }
    return true
  }

  /// Inserts a peak keeping `peaks` sorted by force, strongest first.
  mutating func insertPeak(_ k: Int16, _ image: inout CellArray<Force_mN>) {
    let f = image[Int(k)].rawValue
    var i = peakCount
    if i == 16 {
      if image[Int(peaks[15])].rawValue >= f { return }
      i = 15
    } else {
      peakCount += 1
    }
    while i > 0 {
      if image[Int(peaks[i - 1])].rawValue >= f { break }
      peaks[i] = peaks[i - 1]
      i -= 1
    }
    peaks[i] = k
  }

  /// Step 2: peaks joined by a high saddle (`saddleJoins`) are one; the
  /// weaker goes. (Out of line: inlined, it leaves the cells' loop in
  /// `feedPeaks` fewer registers.)
  @inline(never)
  mutating func mergePeaks(_ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap) {
    var i = 0
    while i < peakCount {
      var j = i + 1
      while j < peakCount {
        if saddleJoins(Int(peaks[i]), Int(peaks[j]), &image, &noise) {
          // peaks[j] is the weaker one (sorted): drop it.
          for m in j..<(peakCount - 1) { peaks[m] = peaks[m + 1] }
          peakCount -= 1
        } else {
          j += 1
        }
      }
      i += 1
    }
  }

  /// Whether two peaks (at most two cells apart on each axis) are one
  /// contact: the dip seen between them, plus what one press at the
  /// stronger peak's position would have left between the middle cell and
  /// the weaker peak's (`spreading`), is within the dip's noise
  /// (`mergeDipNoise` deviations) and the gain tolerance (1 - `mergeSaddle`
  /// of the weaker).
  mutating func saddleJoins(
    _ a: Int, _ b: Int, _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap
  ) -> Bool {
    let ac = a % columns
    let ar = a / columns
    let bc = b % columns
    let br = b / columns
    let dc = bc - ac
    let dr = br - ar
    if dc > 2 || dc < -2 || dr > 2 || dr < -2 { return false }
    let weakerCell = image[a].rawValue <= image[b].rawValue ? a : b
    let strongerCell = weakerCell == a ? b : a
    let weaker = Int64(image[weakerCell].rawValue)
    // The highest path through the middle (one or two middle cells), each
    // as low as its lowest cell: the middle cell, or where a step between
    // diagonal neighbours crosses their shared corner, the higher of the
    // two cells there. Diagonal neighbours (`standsApart`) meet only at
    // that corner.
    let diagonal = (dc == 1 || dc == -1) && (dr == 1 || dr == -1)
    var saddleCell = -1
    if diagonal {
      saddleCell = corner(a, b, &image)
    } else {
      let m0 = (ar + dr / 2) * columns + ac + dc / 2
      let m1 = (ar + (dr - dr / 2)) * columns + ac + (dc - dc / 2)
      if m0 != a && m0 != b { saddleCell = lowest(a, m0, b, &image) }
      if m1 != m0 && m1 != a && m1 != b {
        let other = lowest(a, m1, b, &image)
        if saddleCell < 0 || image[other].rawValue > image[saddleCell].rawValue { saddleCell = other }
      }
    }
    if saddleCell < 0 { return true }  // edge neighbours: one contact
    let saddle = Int64(image[saddleCell].rawValue)
    var deviation = Saturating.multiply(weaker - saddle, 256)
    if spreadingKnown || responseKnown {
      // One press where the stronger peak's contact is: its cells' shares.
      let p = interpolate(&image, &noise, peak: strongerCell)
      let gA = share(at: strongerCell, p)
      let expected = Saturating.multiply(Int64(image[strongerCell].rawValue), share(at: saddleCell, p) - share(at: weakerCell, p))
      deviation = Saturating.add(deviation, FixedMath.divide(max(expected, 0) * 256, max(gA, 1)))
    }
    let s1 = Int64(noise.sigma[weakerCell])
    let s2 = Int64(noise.sigma[saddleCell])
    let dipNoise = FixedMath.squareRoot(Saturating.add(s1 &* s1, s2 &* s2))
    // Diagonal neighbours are one press at a cell's corner unless the dip
    // is a quarter of the weaker: there the four cells differ only by
    // their gains' and the model's few percent, while two fingers meeting
    // at a corner leave it three quarters deep or more.
    let tolerance = diagonal ? Int64(64) : 256 - Int64(mergeSaddle_Q8)
    let allowance = Saturating.add(
      Saturating.multiply(dipNoise, mergeDipNoise_Q8), Saturating.multiply(tolerance, weaker))
    return deviation <= allowance
  }

  /// Where a step between cells `x` and `y` crosses: for diagonal
  /// neighbours the higher of the two cells at their shared corner, for
  /// edge neighbours nothing (-1).
  @inline(__always)
  mutating func corner(_ x: Int, _ y: Int, _ image: inout CellArray<Force_mN>) -> Int {
    let xc = x % columns
    let xr = x / columns
    let yc = y % columns
    let yr = y / columns
    guard xc != yc && xr != yr else { return -1 }
    let across = xr * columns + yc
    let down = yr * columns + xc
    return image[across].rawValue >= image[down].rawValue ? across : down
  }

  /// The lowest cell on the path `a` -> `m` -> `b`.
  @inline(__always)
  mutating func lowest(_ a: Int, _ m: Int, _ b: Int, _ image: inout CellArray<Force_mN>) -> Int {
    var low = m
    let first = corner(a, m, &image)
    if first >= 0 && image[first].rawValue < image[low].rawValue { low = first }
    let second = corner(m, b, &image)
    if second >= 0 && image[second].rawValue < image[low].rawValue { low = second }
    return low
  }

  /// The share (Q16 of a cell under it) that cell `k` takes of a press at
  /// `p`, from `spreading`, linear between its knots (quarter pitches).
  @inline(__always)
  mutating func share(at k: Int, _ p: (x: Length_um, y: Length_um)) -> Int64 {
    let dx = Int64(cellX[k].rawValue) - Int64(p.x.rawValue)
    let dy = Int64(cellY[k].rawValue) - Int64(p.y.rawValue)
    if responseKnown {
      // The learnt response's kernel (Q15 of its largest knot), not radial.
      return responseKernel((dx &* knotReciprocal) >> 24, (dy &* knotReciprocal) >> 24).h << 1
    }
    let d = FixedMath.squareRoot(Saturating.add(dx &* dx, dy &* dy))
    // Quarter pitches, Q16.
    return spreadingShare(FixedMath.divide(Saturating.multiply(d, 4 << 16), max(pitch, 1)), beyond: 0)
  }

  /// `spreading` at `t` quarter pitches (Q16), linear between its knots;
  /// `beyond` past its last (3 pitches).
  @inline(__always)
  func spreadingShare(_ t: Int64, beyond: Int64) -> Int64 {
    let i = Int(min(t >> 16, 12))
    guard i < 12 else { return beyond }
    let f = t & 0xFFFF
    let g0 = Int64(spreading[i])
    let g1 = Int64(spreading[i + 1])
    return g0 + (((g1 - g0) * f) >> 16)
  }

  // MARK: Interpolation

  mutating func interpolate(
    _ image: inout CellArray<Force_mN>, _ noise: inout NoiseMap, peak k: Int
  ) -> (x: Length_um, y: Length_um) {
    let col = k % columns
    let row = k / columns
    let p = pitch
    var x = (Int64(2 * col + 1) * p) / 2
    var y = (Int64(2 * row + 1) * p) / 2
    if interpolation == .centroid {
      var sw: Int64 = 0
      var sx: Int64 = 0
      var sy: Int64 = 0
      for dy in -1...1 {
        let r = row + dy
        if r < 0 || r >= rows { continue }
        for dx in -1...1 {
          let c = col + dx
          if c < 0 || c >= columns { continue }
          let w = Int64(image[r * columns + c].rawValue) - Int64(noise.floor[r * columns + c])
          if w <= 0 { continue }
          sw += w
          sx += w * Int64(dx)
          sy += w * Int64(dy)
        }
      }
      if sw > 0 {
        x += FixedMath.divide(sx * p, sw)
        y += FixedMath.divide(sy * p, sw)
      }
    } else {
      let v0 = Int64(image[k].rawValue)
      let left = col > 0 ? Int64(image[k - 1].rawValue) : nil
      let right = col + 1 < columns ? Int64(image[k + 1].rawValue) : nil
      let up = row > 0 ? Int64(image[k - columns].rawValue) : nil
      let down = row + 1 < rows ? Int64(image[k + columns].rawValue) : nil
      // The peak's own logarithm serves both axes.
      let l0 = interpolation == .gaussian && v0 > 0 ? FixedMath.log2_Q16(v0) : 0
      var dx = ContactFinder.offset(v0, l0, left, right, interpolation)
      var dy = ContactFinder.offset(v0, l0, up, down, interpolation)
      // Between two neighbours: the estimator's bias undone (an edge's
      // two-cell centroid is not what the table describes).
      if left != nil && right != nil { dx = InterpolationBias.correct(dx, &bias) }
      if up != nil && down != nil { dy = InterpolationBias.correct(dy, &bias) }
      x += (dx * p) >> 16
      y += (dy * p) >> 16
    }
    return clamp(x, y)
  }

  /// Sub-cell offset of the peak toward `plus`, in cells, Q16, within +-0.5.
  static func offset(
    _ v0: Int64, _ log0: Int64, _ minus: Int64?, _ plus: Int64?, _ interpolation: PeakInterpolation
  ) -> Int64 {
    let half: Int64 = 1 << 15
    guard let m = minus, let q = plus else {
      // An edge: a two-cell centroid toward the one neighbour there is.
      let n = max(minus ?? plus ?? 0, 0)
      let sign: Int64 = minus == nil ? 1 : -1
      guard v0 + n > 0 else { return 0 }
      return sign * FixedMath.divide(n << 16, v0 + n)
    }
    var a = m
    var b = v0
    var c = q
    if interpolation == .gaussian {
      guard a > 0, c > 0, b > 0 else { return parabolicOffset(max(a, 0), b, max(c, 0)) }
      a = FixedMath.log2_Q16(a)
      b = log0
      c = FixedMath.log2_Q16(c)
    }
    let d = parabolicOffset(a, b, c)
    return d > half ? half : (d < -half ? -half : d)
  }

  static func parabolicOffset(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64 {
    let curvature = 2 * b - a - c
    guard curvature > 0 else { return 0 }
    return FixedMath.divide((c - a) << 16, 2 * curvature)
  }
}

/// Integer mathematics the core needs beyond the standard library.
public enum FixedMath {
  /// floor(a * 2^16 / b) for 0 <= a < b: a fraction in Q16, by 16 steps
  /// of restoring division (shifts and subtractions: no 64-bit division,
  /// which a Cortex-M has no instruction for).
  @inline(__always)
  public static func fraction_Q16(_ a: Int64, _ b: Int64) -> Int64 {
    var r = UInt64(bitPattern: a)  // < b < 2^63: 2r does not overflow
    let d = UInt64(bitPattern: b)
    var q: Int64 = 0
    for _ in 0..<16 {
      r &<<= 1
      q &<<= 1
      if r >= d {
        r &-= d
        q |= 1
      }
    }
    return q
  }

  /// floor(sqrt(value)) of a non-negative value (0 for a negative one):
  /// on a 64-bit host from the FPU's correctly rounded root (a few
  /// instructions); on a 32-bit target below 2^48 (a contact's noises)
  /// from the single-precision root (`estimatedSquareRoot`), above it bit
  /// by bit (`bitwiseSquareRoot`). The same value every way.
  @inline(__always)
  public static func squareRoot(_ value: Int64) -> Int64 {
    guard value > 0 else { return 0 }
    #if _pointerBitWidth(_64)
      return floatingSquareRoot(value)
    #else
      return value < 1 << 48 ? estimatedSquareRoot(value) : bitwiseSquareRoot(value)
    #endif
  }

  /// `squareRoot` of a value in 1 ..< 2^48 from `Float`'s square root of
  /// its two 24-bit halves (within about two of the root, under 2^24),
  /// moved to the r with r^2 <= value < (r + 1)^2: single-precision and
  /// 32 x 32 -> 64-bit operations only, which a Cortex-M4F has. (`Int`
  /// conversions: the concrete ones, which allocate nowhere.)
  @inline(__always)
  static func estimatedSquareRoot(_ value: Int64) -> Int64 {
    let n = UInt64(bitPattern: value)
    let high = Float(Int(truncatingIfNeeded: n &>> 24))
    let low = Float(Int(truncatingIfNeeded: n & 0xFF_FFFF))
    var root = UInt64(UInt(Int((high * 16_777_216 + low).squareRoot())))
    while root &* root > n { root &-= 1 }
    while (root &+ 1) &* (root &+ 1) <= n { root &+= 1 }
    return Int64(bitPattern: root)
  }

  /// `squareRoot` of a positive value from `Double`'s square root, made
  /// exact: above 2^53 the conversion rounds, so the root may be one off
  /// either way; it is moved to the r with r^2 <= value < (r + 1)^2 (r is
  /// at most 3 037 000 500: both squares fit `UInt64`).
  @inline(__always)
  static func floatingSquareRoot(_ value: Int64) -> Int64 {
    let n = UInt64(bitPattern: value)
    var root = UInt64(Double(value).squareRoot())
    while root &* root > n { root &-= 1 }
    while (root &+ 1) &* (root &+ 1) <= n { root &+= 1 }
    return Int64(bitPattern: root)
  }

  /// `squareRoot` of a positive value bit by bit from its highest bit: one
  /// step of shifts and adds per two bits, no division (a Cortex-M has
  /// no 64-bit one, nor a double-precision FPU); in 32-bit operations
  /// below 2^32.
  @inline(__always)
  static func bitwiseSquareRoot(_ value: Int64) -> Int64 {
    if value <= 0xFFFF_FFFF { return Int64(squareRoot32(UInt32(truncatingIfNeeded: value))) }
    var n = UInt64(bitPattern: value)
    var root: UInt64 = 0
    // The highest power of four not above n.
    var bit = UInt64(1) &<< UInt64((63 &- n.leadingZeroBitCount) & ~1)
    while bit != 0 {
      if n >= root &+ bit {
        n &-= root &+ bit
        root = (root &>> 1) &+ bit
      } else {
        root = root &>> 1
      }
      bit = bit &>> 2
    }
    return Int64(bitPattern: root)
  }

  /// floor(sqrt(n)) of a positive 32-bit value, as `squareRoot`.
  @inline(__always)
  static func squareRoot32(_ value: UInt32) -> UInt32 {
    var n = value
    var root: UInt32 = 0
    var bit = UInt32(1) &<< UInt32((31 &- n.leadingZeroBitCount) & ~1)
    while bit != 0 {
      if n >= root &+ bit {
        n &-= root &+ bit
        root = (root &>> 1) &+ bit
      } else {
        root = root &>> 1
      }
      bit = bit &>> 2
    }
    return root
  }

  /// log2(value) in Q16 for a positive integer, within 1 LSB: the exponent
  /// from the leading zeros, the mantissa's log2(1 + x) from a 257-entry
  /// table with linear interpolation (error below 0.2 LSB).
  @inline(__always)
  public static func log2_Q16(_ value: Int64) -> Int64 {
    guard value > 0 else { return Int64.min / 2 }
    let msb = 63 - value.leadingZeroBitCount
    // x = mantissa - 1 in [0, 1), Q30: the top 8 bits index the table,
    // the 22 below interpolate.
    let x: Int64 =
      (msb >= 30 ? value &>> Int64(msb - 30) : value &<< Int64(30 - msb)) &- (1 << 30)
    let index = Int(x &>> 22)
    let fraction = x & ((1 << 22) - 1)
    let a = Int64(log2Table[index])
    let b = Int64(log2Table[index + 1])
    return (Int64(msb) << 16) &+ a &+ (((b &- a) &* fraction &+ (1 << 21)) &>> 22)
  }

  /// round(log2(1 + i/256) * 65536) for i in 0...256.
  static let log2Table: InlineArray<257, Int32> = [
    0, 369, 736, 1102, 1466, 1829, 2190, 2551,
    2909, 3267, 3623, 3978, 4331, 4683, 5034, 5384,
    5732, 6079, 6425, 6769, 7112, 7454, 7795, 8134,
    8473, 8810, 9146, 9480, 9814, 10146, 10477, 10807,
    11136, 11464, 11791, 12116, 12440, 12764, 13086, 13407,
    13727, 14046, 14363, 14680, 14996, 15310, 15624, 15937,
    16248, 16559, 16868, 17177, 17484, 17791, 18096, 18401,
    18704, 19007, 19308, 19609, 19909, 20207, 20505, 20802,
    21098, 21393, 21687, 21980, 22272, 22564, 22854, 23144,
    23433, 23720, 24007, 24293, 24579, 24863, 25146, 25429,
    25711, 25992, 26272, 26551, 26830, 27108, 27384, 27660,
    27936, 28210, 28484, 28757, 29029, 29300, 29571, 29840,
    30109, 30378, 30645, 30912, 31178, 31443, 31707, 31971,
    32234, 32496, 32758, 33019, 33279, 33538, 33797, 34055,
    34312, 34569, 34825, 35080, 35334, 35588, 35841, 36094,
    36346, 36597, 36847, 37097, 37346, 37595, 37842, 38090,
    38336, 38582, 38827, 39072, 39316, 39559, 39802, 40044,
    40286, 40527, 40767, 41006, 41246, 41484, 41722, 41959,
    42196, 42432, 42667, 42902, 43137, 43370, 43603, 43836,
    44068, 44300, 44530, 44761, 44990, 45220, 45448, 45676,
    45904, 46131, 46357, 46583, 46809, 47034, 47258, 47482,
    47705, 47928, 48150, 48372, 48593, 48813, 49034, 49253,
    49472, 49691, 49909, 50127, 50344, 50560, 50776, 50992,
    51207, 51422, 51636, 51850, 52063, 52276, 52488, 52700,
    52911, 53122, 53332, 53542, 53751, 53960, 54169, 54377,
    54584, 54791, 54998, 55204, 55410, 55615, 55820, 56025,
    56229, 56432, 56635, 56838, 57040, 57242, 57443, 57644,
    57845, 58045, 58245, 58444, 58643, 58841, 59039, 59237,
    59434, 59631, 59827, 60023, 60219, 60414, 60609, 60803,
    60997, 61190, 61384, 61576, 61769, 61961, 62152, 62343,
    62534, 62725, 62915, 63104, 63294, 63483, 63671, 63859,
    64047, 64234, 64421, 64608, 64794, 64980, 65166, 65351,
    65536
  ]
}
