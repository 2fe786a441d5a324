import PanelFirmware

/// The per-cell signal path of `ForcePipeline`, written plainly in `Double`
/// with arrays: the reference the fixed-point figures are compared to.
public struct DoublePipeline {
  public struct Contact {
    public var x: Double
    public var y: Double
    public var force: Double
  }

  let n: Int
  let cellX: [Double]
  let cellY: [Double]
  let grid: GridSpec?
  let width: Double
  let height: Double
  let offset: [Double]
  let gain: [Double]
  let linearity: [Double]
  let tcZero: [Double]
  let tcSpan: [Double]
  let touchOn = 80.0
  let touchOff = 50.0
  let floor = 10.0
  let upAlpha: Double
  let downAlpha: Double
  public var baseline: [Double]
  var older: [Double]
  var old: [Double]
  public var image: [Double]
  public var contacts: [Contact] = []
  var touched = false
  var run = 0
  var seeded = 0

  public init(board: Board, calibration: CalibrationRecord) {
    n = board.cellCount
    cellX = board.cells.map(\.x_mm)
    cellY = board.cells.map(\.y_mm)
    grid = board.grid
    width = board.width_mm
    height = board.height_mm
    offset = calibration.cells.map(\.offset_counts)
    gain = calibration.cells.map(\.gain_counts_per_n)
    linearity = calibration.cells.map(\.linearity_per_n)
    tcZero = calibration.cells.map(\.tcZero_counts_per_c)
    tcSpan = calibration.cells.map(\.tcSpan_per_c)
    upAlpha = 1 / (4.0 * Double(board.rate_hz))
    downAlpha = 1 / (1.0 * Double(board.rate_hz))
    baseline = offset
    older = offset
    old = offset
    image = [Double](repeating: 0, count: n)
  }

  public mutating func process(raw: [Int32], temperature: Double) {
    let dT = temperature - 25
    var filtered = [Double](repeating: 0, count: n)
    for k in 0..<n {
      let r = Double(raw[k])
      let values = [older[k], old[k], r].sorted()
      filtered[k] = values[1]
      older[k] = old[k]
      old[k] = r
    }
    if seeded < 16 {
      for k in 0..<n { baseline[k] = seeded == 0 ? filtered[k] : baseline[k] + (filtered[k] - baseline[k]) / Double(seeded + 1) }
      seeded += 1
      return
    }
    for k in 0..<n {
      let delta = filtered[k] - (baseline[k] + tcZero[k] * dT)
      let f1 = delta / (gain[k] * (1 + tcSpan[k] * dT)) * 1000
      image[k] = f1 + linearity[k] / 1000 * f1 * f1
    }
    findContacts()
    let strongest = contacts.map(\.force).max() ?? 0
    if touched {
      run = strongest <= touchOff ? run + 1 : 0
      if run >= 3 { touched = false; run = 0 }
    } else {
      run = strongest >= touchOn ? run + 1 : 0
      if run >= 3 { touched = true; run = 0 }
    }
    if !touched && strongest < touchOn {
      for k in 0..<n {
        let delta = filtered[k] - (baseline[k] + tcZero[k] * dT)
        baseline[k] += delta * (image[k] < 0 ? downAlpha : upAlpha)
      }
    }
  }

  mutating func findContacts() {
    contacts = []
    guard let grid else {
      let total = image.reduce(0, +)
      guard total >= touchOff else { return }
      var mx = 0.0
      var my = 0.0
      for k in 0..<n {
        mx += image[k] * cellX[k]
        my += image[k] * cellY[k]
      }
      contacts.append(Contact(x: min(max(mx / total, 0), width), y: min(max(my / total, 0), height), force: total))
      return
    }
    let cols = grid.columns
    let rows = grid.rows
    var peaks: [Int] = []
    for k in 0..<n where image[k] >= floor {
      let c = k % cols
      let r = k / cols
      var isPeak = true
      for dy in -1...1 {
        for dx in -1...1 where !(dx == 0 && dy == 0) {
          let cc = c + dx
          let rr = r + dy
          if cc < 0 || rr < 0 || cc >= cols || rr >= rows { continue }
          let j = rr * cols + cc
          if image[j] > image[k] || (image[j] == image[k] && j < k) { isPeak = false }
        }
      }
      if isPeak { peaks.append(k) }
    }
    var sums = [Double](repeating: 0, count: peaks.count)
    for k in 0..<n where image[k] >= floor {
      var best = -1
      var bestD = Int.max
      for (p, pk) in peaks.enumerated() {
        let dc = pk % cols - k % cols
        let dr = pk / cols - k / cols
        if abs(dc) > 2 || abs(dr) > 2 { continue }
        if dc * dc + dr * dr < bestD {
          bestD = dc * dc + dr * dr
          best = p
        }
      }
      if best >= 0 { sums[best] += image[k] }
    }
    for (p, k) in peaks.enumerated() where sums[p] >= touchOff {
      let c = k % cols
      let r = k / cols
      func offset(_ a: Double?, _ b: Double, _ c: Double?) -> Double {
        guard let a, let c else { return 0 }
        let curvature = 2 * b - a - c
        return curvature > 0 ? max(-0.5, min(0.5, (c - a) / (2 * curvature))) : 0
      }
      let dx = offset(c > 0 ? image[k - 1] : nil, image[k], c + 1 < cols ? image[k + 1] : nil)
      let dy = offset(r > 0 ? image[k - cols] : nil, image[k], r + 1 < rows ? image[k + cols] : nil)
      contacts.append(
        Contact(x: cellX[k] + dx * grid.pitch_mm, y: cellY[k] + dy * grid.pitch_mm, force: sums[p]))
    }
    contacts.sort { $0.force > $1.force }
  }
}

/// Touch tracking and NDJSON written plainly: a dictionary of tracks and
/// string interpolation.
public struct DoubleTracker {
  struct Track {
    var x: Double
    var y: Double
    var force: Double
    var age: Int
  }
  var tracks: [Int: Track] = [:]
  var nextID = 1

  public init() {}

  public mutating func update(_ contacts: [DoublePipeline.Contact], time: Int64, frame: Int) -> String? {
    var lines: [String] = []
    var used = Set<Int>()
    for c in contacts {
      let nearest = tracks.filter { !used.contains($0.key) }.min { a, b in
        hypot(a.value.x - c.x, a.value.y - c.y) < hypot(b.value.x - c.x, b.value.y - c.y)
      }
      if let (id, _) = nearest, hypot(tracks[id]!.x - c.x, tracks[id]!.y - c.y) < 30 {
        tracks[id] = Track(x: c.x, y: c.y, force: c.force, age: tracks[id]!.age + 1)
        used.insert(id)
        lines.append(touch(id, "moved", tracks[id]!))
      } else if c.force >= 80 {
        tracks[nextID] = Track(x: c.x, y: c.y, force: c.force, age: 0)
        used.insert(nextID)
        lines.append(touch(nextID, "began", tracks[nextID]!))
        nextID += 1
      }
    }
    for (id, t) in tracks where !used.contains(id) {
      lines.append(touch(id, "ended", t))
      tracks[id] = nil
    }
    if lines.isEmpty { return nil }
    return "{\"t_us\":\(time),\"frame\":\(frame),\"touches\":[\(lines.joined(separator: ","))],\"events\":[]}\n"
  }

  func touch(_ id: Int, _ phase: String, _ t: Track) -> String {
    func r(_ v: Double, _ d: Double) -> Double { (v * d).rounded() / d }
    return "{\"id\":\(id),\"phase\":\"\(phase)\",\"x_mm\":\(r(t.x, 100)),\"y_mm\":\(r(t.y, 100)),"
      + "\"force_n\":\(r(t.force / 1000, 1000)),\"force\":\(r(t.force / 800, 1000)),\"max_force\":6.67,\"stage\":\"none\"}"
  }
}

#if canImport(Glibc)
  import Glibc
#endif
