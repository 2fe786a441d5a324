import ForceCore

/// Positions while a cell reads no measurement (at its ADC rail: an open or
/// shorted bridge). The core holds such a cell at zero force, so the
/// contacts it finds are wrong wherever that cell carries load: a press at
/// (80, 38) on a plate with one dead corner comes out 20 mm away. Here the
/// dead cell's force is estimated from the others, the contacts are found
/// again from the completed image, and touches whose position rests on an
/// estimate are flagged `degraded`:
///
/// - Plate on supports: a rigid plate on its cells deflects as a plane, so
///   the support forces lie (for equal stiffness) on a plane
///   `F = a + b x + c y` over the cell positions. Fitted to the cells that
///   work (least squares; at least three, not in a line), it gives the dead
///   cell's force. Every touch is degraded (a plate's one position uses
///   every cell).
/// - Grid: the dead cell takes the mean of its working neighbours (left,
///   right, above, below). Touches within one and a half pitches of it (the
///   peak's neighbourhood) are degraded.
///
/// Only frames with a cell at its rail are touched; allocation-free.
public struct FailedCellEstimate: Sendable {
  var cellCount: Int
  var x_mm: CellArray<Double>
  var y_mm: CellArray<Double>
  /// 0 for a plate on supports.
  var columns: Int
  var rows: Int
  var reach_um: Int64
  /// The core's own contact finder (its configuration comes with the
  /// pipeline: the calibration's contact model), set up at the first use.
  var finder = ContactFinder()
  var finderReady = false
  var image: CellArray<Force_mN> = CellArray(repeating: .zero)
  var failed: CellArray<Bool> = CellArray(repeating: false)
  /// The core's noise map, taken with the image (the estimated cell keeps
  /// its own noise: a contact on it is judged as the core would).
  var noise: NoiseMap
  public private(set) var contacts = ContactList()
  /// Cells estimated in the last frame.
  public private(set) var estimated = 0

  /// A panel of `cellCount` cells at (`x_mm`, `y_mm`); `columns` and
  /// `rows` 0 for a plate on supports, else its grid of `pitch_mm`.
  public init(
    cellCount: Int, x_mm: CellArray<Double>, y_mm: CellArray<Double>, columns: Int, rows: Int, pitch_mm: Double,
    cellFloor: Force_mN
  ) {
    self.cellCount = min(cellCount, Capacity.cells)
    self.x_mm = x_mm
    self.y_mm = y_mm
    self.columns = columns
    self.rows = rows
    reach_um = Int64(Length_um(millimetres: 1.5 * pitch_mm).rawValue)
    noise = NoiseMap(cellFloor: cellFloor)
  }

  /// An estimate for no panel, to be set up in place with `setUp` (a
  /// firmware's static storage).
  public init() {
    cellCount = 0
    x_mm = CellArray(repeating: 0)
    y_mm = CellArray(repeating: 0)
    columns = 0
    rows = 0
    reach_um = 0
    noise = NoiseMap(cellFloor: .zero)
  }

  /// `init(cellCount:x_mm:y_mm:columns:rows:pitch_mm:cellFloor:)` in place
  /// (`x_mm` and `y_mm` are `inout` only so that they are read where they
  /// are).
  public mutating func setUp(
    cellCount: Int, x_mm xs: inout CellArray<Double>, y_mm ys: inout CellArray<Double>, columns: Int, rows: Int,
    pitch_mm: Double, cellFloor: Force_mN
  ) {
    self.cellCount = min(cellCount, Capacity.cells)
    for k in 0..<Capacity.cells {
      x_mm[k] = xs[k]
      y_mm[k] = ys[k]
      image[k] = .zero
      failed[k] = false
    }
    self.columns = columns
    self.rows = rows
    reach_um = Int64(Length_um(millimetres: 1.5 * pitch_mm).rawValue)
    noise.reset(cellFloor: cellFloor)
    finderReady = false
    contacts = ContactList()
    estimated = 0
  }

  /// The frame's contacts: the core's, or, when `health` saw cells at their
  /// rail in this frame, those of the image with the dead cells estimated.
  public mutating func contacts(_ pipeline: inout ForcePipeline, health: inout ForceHealthMonitor) -> ContactList {
    estimated = 0
    guard health.railedCells > 0, pipeline.outcome == .measured else { return pipeline.contacts }
    return estimate(&pipeline, &health)
  }

  /// The contacts with the dead cells estimated (apart from the common
  /// path, so that it keeps a small stack frame).
  @inline(never)
  mutating func estimate(_ pipeline: inout ForcePipeline, _ health: inout ForceHealthMonitor) -> ContactList {
    image = pipeline.image
    noise = pipeline.noise
    for k in 0..<cellCount {
      failed[k] = health.isRailed(k)
      if failed[k] { estimated += 1 }
    }
    for k in 0..<cellCount where failed[k] {
      image[k] = columns == 0 ? planeEstimate(of: k) : neighbourEstimate(of: k)
    }
    if !finderReady {
      pipeline.setUp(finder: &finder)
      finderReady = true
    }
    finder.find(&image, noise: &noise, into: &contacts)
    return contacts
  }

  /// Whether a touch at (`x`, `y`) rests on an estimated cell this frame.
  public mutating func degrades(x: Length_um, y: Length_um) -> Bool {
    guard estimated > 0 else { return false }
    if columns == 0 { return true }
    for k in 0..<cellCount where failed[k] {
      let dx = Int64(x.rawValue) - Int64(Length_um(millimetres: x_mm[k]).rawValue)
      let dy = Int64(y.rawValue) - Int64(Length_um(millimetres: y_mm[k]).rawValue)
      if abs(dx) <= reach_um && abs(dy) <= reach_um { return true }
    }
    return false
  }

  /// The plane through the working supports' forces, at cell `k`.
  mutating func planeEstimate(of k: Int) -> Force_mN {
    // Normal equations of F = a + b x + c y (x, y about the first cell,
    // in metres, to keep them well conditioned).
    var s = (n: 0.0, x: 0.0, y: 0.0, xx: 0.0, xy: 0.0, yy: 0.0, f: 0.0, fx: 0.0, fy: 0.0)
    for j in 0..<cellCount where !failed[j] {
      let x = (x_mm[j] - x_mm[0]) / 1000
      let y = (y_mm[j] - y_mm[0]) / 1000
      let f = Double(image[j].rawValue)
      s.n += 1
      s.x += x
      s.y += y
      s.xx += x * x
      s.xy += x * y
      s.yy += y * y
      s.f += f
      s.fx += f * x
      s.fy += f * y
    }
    guard s.n >= 3 else { return .zero }
    let det = s.n * (s.xx * s.yy - s.xy * s.xy) - s.x * (s.x * s.yy - s.xy * s.y) + s.y * (s.x * s.xy - s.xx * s.y)
    // Cells in a line (or on one point) fix no plane.
    let scale = max(s.xx * s.yy, 1e-18) * s.n
    guard abs(det) > 1e-9 * scale else { return .zero }
    let a =
      (s.f * (s.xx * s.yy - s.xy * s.xy) - s.x * (s.fx * s.yy - s.xy * s.fy) + s.y * (s.fx * s.xy - s.xx * s.fy)) / det
    let b = (s.n * (s.fx * s.yy - s.xy * s.fy) - s.f * (s.x * s.yy - s.xy * s.y) + s.y * (s.x * s.fy - s.fx * s.y)) / det
    let c = (s.n * (s.xx * s.fy - s.fx * s.xy) - s.x * (s.x * s.fy - s.fx * s.y) + s.f * (s.x * s.xy - s.xx * s.y)) / det
    let x = (x_mm[k] - x_mm[0]) / 1000
    let y = (y_mm[k] - y_mm[0]) / 1000
    return Force_mN(rawValue: Saturating.int32(rounding: a + b * x + c * y))
  }

  /// The mean of cell `k`'s working grid neighbours.
  mutating func neighbourEstimate(of k: Int) -> Force_mN {
    let col = k % columns
    let row = k / columns
    var sum: Int64 = 0
    var n: Int64 = 0
    for side in 0..<4 {
      let c = side == 0 ? col - 1 : side == 1 ? col + 1 : col
      let r = side == 2 ? row - 1 : side == 3 ? row + 1 : row
      guard c >= 0, c < columns, r >= 0, r < rows else { continue }
      let j = r * columns + c
      guard j < cellCount, !failed[j] else { continue }
      sum += Int64(image[j].rawValue)
      n += 1
    }
    return n == 0 ? .zero : Force_mN(rawValue: Int32(sum / n))
  }
}
