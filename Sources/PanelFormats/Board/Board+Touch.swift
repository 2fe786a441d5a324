import ForceCore
import PanelTouch

// The touch layer's settings from a board file (PanelTouch knows no
// board: it takes plain values, so that a microcontroller can set it up
// from constants).

extension TrackerSettings {
  /// The tracker's settings for `board`: its detection thresholds, a gate
  /// from its geometry, its most simultaneous touches.
  public init(board: Board) {
    let d = board.detection
    let diagonal = (board.width_mm * board.width_mm + board.height_mm * board.height_mm).squareRoot()
    let core = board.coreConfiguration
    self.init(
      touchOn: Force_mN(newtons: d.touchOn_n),
      debounce: d.debounce(rate_hz: board.rate_hz),
      touchOff: Force_mN(newtons: d.touchOff_n),
      releaseFrames: d.debounce(rate_hz: board.rate_hz),
      // A plate has one contact: it keeps its id wherever it goes.
      gate: Length_um(millimetres: board.grid == nil ? diagonal + 1 : max(30, 1.5 * (board.grid?.pitch_mm ?? 20))),
      moveThreshold: Length_um(millimetres: 0.5),
      noiseOn_Q8: core.noiseOn_Q8,
      noiseOff_Q8: core.noiseOff_Q8,
      positionTarget: Length_um(millimetres: 0.25),
      maxTouches: max(1, min(board.interaction.maxTouches, Capacity.contacts)),
      invalidLimit: max(1, board.rate_hz / 10))
  }
}

extension FailedCellEstimate {
  /// The estimate for `board`'s cells.
  public init(board: Board) {
    let n = min(board.cellCount, Capacity.cells)
    var xs = CellArray<Double>(repeating: 0)
    var ys = CellArray<Double>(repeating: 0)
    for k in 0..<n {
      xs[k] = board.cells[k].x_mm
      ys[k] = board.cells[k].y_mm
    }
    self.init(
      cellCount: n, x_mm: xs, y_mm: ys, columns: board.grid?.columns ?? 0, rows: board.grid?.rows ?? 0,
      pitch_mm: board.grid?.pitch_mm ?? 0, cellFloor: board.coreConfiguration.cellFloor)
  }
}

extension Interaction {
  /// - Parameters:
  ///   - regions: the host's items; nil = the whole panel peeks and pops.
  ///   - calibrated: false when running on nominal gains: force unavailable.
  public init(board: Board, regions: RegionMap? = nil, calibrated: Bool = true) {
    self.init(
      settings: board.interaction, rate_hz: board.rate_hz,
      regions: regions ?? RegionMap.whole(panelWidth_mm: board.width_mm, panelHeight_mm: board.height_mm),
      failedCells: FailedCellEstimate(board: board), calibrated: calibrated)
  }
}
