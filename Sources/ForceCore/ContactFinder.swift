/// Finds the contacts in a force image.
///
/// - Supports (a rigid plate on load cells): one contact whose force is the
///   sum of the cells and whose position is the centre of pressure,
///   `x = sum(F_i x_i) / sum(F_i)` (moment balance; exact for any load
///   sharing between the supports).
/// - Grid: every local maximum of the image above the floor is a candidate
///   peak; two peaks two cells apart whose saddle is at least `mergeSaddle`
///   of the smaller are merged; every cell gives its force to the nearest
///   peak (below-floor cells too: a press's tails carry a few percent of
///   its force, and their noise averages out); the position is interpolated
///   around the peak.
public struct ContactFinder: Sendable {
  public let geometry: PanelGeometry
  let release: Int32
  let floor: Int32
  let mergeSaddle_Q8: Int32
  let interpolation: PeakInterpolation
  let maxContacts: Int
  // Scratch for one frame, sized at compile time.
  var peaks: InlineArray<16, Int16> = InlineArray(repeating: 0)
  var peakCount = 0
  var sums: InlineArray<16, Int64> = InlineArray(repeating: 0)
  var cells: InlineArray<16, Int16> = InlineArray(repeating: 0)

  public init(geometry: PanelGeometry, configuration c: CoreConfiguration) {
    self.geometry = geometry
    self.release = c.touchOff.rawValue
    self.floor = max(c.cellFloor.rawValue, 1)
    self.mergeSaddle_Q8 = c.mergeSaddle_Q8
    self.interpolation = c.interpolation
    self.maxContacts = max(0, min(c.maxContacts, Capacity.contacts))
  }

  /// Replaces `contacts` with the contacts of `image`.
  public mutating func find(_ image: borrowing CellArray<Force_mN>, into contacts: inout ContactList) {
    contacts.removeAll()
    guard maxContacts > 0 else { return }
    switch geometry.layout {
    case .supports:
      findCentreOfPressure(image, into: &contacts)
    case .grid(let columns, let rows, let pitch):
      findPeaks(image, columns: columns, rows: rows, pitch: pitch, into: &contacts)
    }
  }

  // MARK: Supports

  mutating func findCentreOfPressure(_ image: borrowing CellArray<Force_mN>, into contacts: inout ContactList) {
    var total: Int64 = 0
    var mx: Int64 = 0
    var my: Int64 = 0
    var peak = 0
    var peakForce = Int32.min
    for k in 0..<geometry.cellCount {
      let f = image[k].rawValue
      total += Int64(f)
      mx = Saturating.add(mx, Int64(f) * Int64(geometry.cellX[k].rawValue))
      my = Saturating.add(my, Int64(f) * Int64(geometry.cellY[k].rawValue))
      if f > peakForce {
        peakForce = f
        peak = k
      }
    }
    guard total >= Int64(release), total > 0 else { return }
    let p = geometry.clamp(x: mx / total, y: my / total)
    contacts.append(
      Contact(
        x: p.x, y: p.y, force: Force_mN(rawValue: Saturating.int32(total)),
        peakCell: Int16(peak), cellCount: Int16(geometry.cellCount)))
  }

  // MARK: Grid

  mutating func findPeaks(
    _ image: borrowing CellArray<Force_mN>, columns: Int, rows: Int, pitch: Length_um,
    into contacts: inout ContactList
  ) {
    let n = geometry.cellCount
    peakCount = 0
    // 1. Local maxima (ties go to the lower index), strongest 16 kept.
    for k in 0..<n {
      let f = image[k].rawValue
      if f < floor { continue }
      let col = k % columns
      let row = k / columns
      var isPeak = true
      neighbours: for dy in -1...1 {
        let r = row + dy
        if r < 0 || r >= rows { continue }
        for dx in -1...1 {
          let c = col + dx
          if (dx == 0 && dy == 0) || c < 0 || c >= columns { continue }
          let j = r * columns + c
          let g = image[j].rawValue
          if g > f || (g == f && j < k) {
            isPeak = false
            break neighbours
          }
        }
      }
      if isPeak { insertPeak(Int16(k), image) }
    }
    // 2. Merge peaks joined by a high saddle.
    mergePeaks(image, columns: columns)
    guard peakCount > 0 else { return }
    // 3. Every cell feeds its nearest peak (the stronger one on a tie).
    for p in 0..<peakCount {
      sums[p] = 0
      cells[p] = 0
    }
    for k in 0..<n {
      let col = k % columns
      let row = k / columns
      var best = 0
      var bestDistance = Int.max
      for p in 0..<peakCount {
        let pk = Int(peaks[p])
        let dc = pk % columns - col
        let dr = pk / columns - row
        let d = dc * dc + dr * dr
        if d < bestDistance {
          bestDistance = d
          best = p
        }
      }
      sums[best] += Int64(image[k].rawValue)
      if image[k].rawValue >= floor { cells[best] += 1 }
    }
    // 4. Contacts above the release threshold, strongest first.
    for p in 0..<peakCount {
      if sums[p] < Int64(release) { continue }
      let k = Int(peaks[p])
      let position = interpolate(image, peak: k, columns: columns, rows: rows, pitch: pitch)
      let contact = Contact(
        x: position.x, y: position.y, force: Force_mN(rawValue: Saturating.int32(sums[p])),
        peakCell: Int16(k), cellCount: cells[p])
      insertContact(contact, into: &contacts)
    }
  }

  /// Inserts a peak keeping `peaks` sorted by force, strongest first.
  mutating func insertPeak(_ k: Int16, _ image: borrowing CellArray<Force_mN>) {
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

  mutating func mergePeaks(_ image: borrowing CellArray<Force_mN>, columns: Int) {
    var i = 0
    while i < peakCount {
      var j = i + 1
      while j < peakCount {
        if saddleJoins(Int(peaks[i]), Int(peaks[j]), image, columns: columns) {
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

  /// Whether the cells between two peaks (at most two cells apart on each
  /// axis) stay above `mergeSaddle` of the weaker peak.
  func saddleJoins(_ a: Int, _ b: Int, _ image: borrowing CellArray<Force_mN>, columns: Int) -> Bool {
    let ac = a % columns
    let ar = a / columns
    let bc = b % columns
    let br = b / columns
    let dc = bc - ac
    let dr = br - ar
    if dc > 2 || dc < -2 || dr > 2 || dr < -2 { return false }
    let weaker = min(image[a].rawValue, image[b].rawValue)
    // The highest path through the middle: one or two middle cells.
    let c0 = ac + dc / 2
    let r0 = ar + dr / 2
    let c1 = ac + (dc - dc / 2)
    let r1 = ar + (dr - dr / 2)
    var saddle = image[r0 * columns + c0].rawValue
    if r0 * columns + c0 == a || r0 * columns + c0 == b { saddle = Int32.min }
    let other = r1 * columns + c1
    if other != a && other != b { saddle = max(saddle, image[other].rawValue) }
    if saddle == Int32.min { return true }  // adjacent peaks: one contact
    return Int64(saddle) * 256 >= Int64(weaker) * Int64(mergeSaddle_Q8)
  }

  func insertContact(_ contact: Contact, into contacts: inout ContactList) {
    if contacts.count < maxContacts {
      contacts.append(contact)
    } else if contacts[contacts.count - 1].force < contact.force {
      contacts.storage[contacts.count - 1] = contact
    } else {
      return
    }
    var i = contacts.count - 1
    while i > 0 && contacts.storage[i - 1].force < contacts.storage[i].force {
      let t = contacts.storage[i - 1]
      contacts.storage[i - 1] = contacts.storage[i]
      contacts.storage[i] = t
      i -= 1
    }
  }

  // MARK: Interpolation

  func interpolate(
    _ image: borrowing CellArray<Force_mN>, peak k: Int, columns: Int, rows: Int, pitch: Length_um
  ) -> (x: Length_um, y: Length_um) {
    let col = k % columns
    let row = k / columns
    var x = Int64(geometry.cellX[k].rawValue)
    var y = Int64(geometry.cellY[k].rawValue)
    let p = Int64(pitch.rawValue)
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
          let w = Int64(image[r * columns + c].rawValue) - Int64(floor)
          if w <= 0 { continue }
          sw += w
          sx += w * Int64(dx)
          sy += w * Int64(dy)
        }
      }
      if sw > 0 {
        x += sx * p / sw
        y += sy * p / sw
      }
    } else {
      let v0 = Int64(image[k].rawValue)
      let left = col > 0 ? Int64(image[k - 1].rawValue) : nil
      let right = col + 1 < columns ? Int64(image[k + 1].rawValue) : nil
      let up = row > 0 ? Int64(image[k - columns].rawValue) : nil
      let down = row + 1 < rows ? Int64(image[k + columns].rawValue) : nil
      x += (offset(v0, left, right) * p) >> 16
      y += (offset(v0, up, down) * p) >> 16
    }
    return geometry.clamp(x: x, y: y)
  }

  /// Sub-cell offset of the peak toward `plus`, in cells, Q16, within +-0.5.
  func offset(_ v0: Int64, _ minus: Int64?, _ plus: Int64?) -> Int64 {
    let half: Int64 = 1 << 15
    guard let m = minus, let q = plus else {
      // An edge: a two-cell centroid toward the one neighbour there is.
      let n = max(minus ?? plus ?? 0, 0)
      let sign: Int64 = minus == nil ? 1 : -1
      guard v0 + n > 0 else { return 0 }
      return sign * ((n << 16) / (v0 + n))
    }
    var a = m
    var b = v0
    var c = q
    if interpolation == .gaussian {
      guard a > 0, c > 0, b > 0 else { return parabolicOffset(max(a, 0), b, max(c, 0)) }
      a = FixedMath.log2_Q16(a)
      b = FixedMath.log2_Q16(b)
      c = FixedMath.log2_Q16(c)
    }
    let d = parabolicOffset(a, b, c)
    return d > half ? half : (d < -half ? -half : d)
  }

  func parabolicOffset(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64 {
    let curvature = 2 * b - a - c
    guard curvature > 0 else { return 0 }
    return ((c - a) << 16) / (2 * curvature)
  }
}

/// Integer mathematics the core needs beyond the standard library.
public enum FixedMath {
  /// log2(value) in Q16 for a positive integer, exact to the last bit.
  public static func log2_Q16(_ value: Int64) -> Int64 {
    guard value > 0 else { return Int64.min / 2 }
    let msb = 63 - value.leadingZeroBitCount
    // Mantissa in [1, 2), Q30.
    var x: UInt64 = msb >= 30 ? UInt64(value) >> UInt64(msb - 30) : UInt64(value) << UInt64(30 - msb)
    var result = Int64(msb) << 16
    for bit in stride(from: 15, through: 0, by: -1) {
      x = (x * x) >> 30
      if x >= (2 << 30) {
        x >>= 1
        result |= Int64(1) << Int64(bit)
      }
    }
    return result
  }
}
