import ForceCore
import PanelFormats

/// What a calibration record says of the panel's mechanics: the grid's
/// spreading it learnt, and the core's contact model from it.
extension CalibrationRecord {
  /// The core's configuration for `board` with this calibration: the
  /// board's, with the contact model the calibration learnt.
  public func coreConfiguration(board: Board) -> CoreConfiguration {
    var c = board.coreConfiguration
    if let contact {
      c.contactRadius = contact.radius
      c.captureScale_Q16 = Int32((min(max(contact.captureScale, 0.5), 4) * 65536).rounded())
      c.captureSlope_Q16 = Int32((min(max(contact.captureSlope, -4), 4) * 65536).rounded())
      if contact.mergeSaddle > 0 {
        c.mergeSaddle_Q8 = max(c.mergeSaddle_Q8, Int32((min(contact.mergeSaddle, 1) * 256).rounded()))
      }
    }
    if let spreading = spreading(board: board) {
      if let table = spreading.finderTable { c.spreading_Q16 = table }
      // The bias from the fit's own model: Boussinesq over whole cells, or
      // the learnt profile.
      let bias: InlineArray<17, Int32>?
      if let response = gridResponse(board: board) {
        // Both axes' tables, averaged (a response may spread further
        // along one axis than the other; the finder has one table).
        let x = SpreadProfile.interpolationBias(c.interpolation, pitch: response.pitch_mm) { response.kernel($0, $1) }
        let y = SpreadProfile.interpolationBias(c.interpolation, pitch: response.pitch_mm) { response.kernel($1, $0) }
        if let x, let y {
          var mean = x
          for i in 0..<17 { mean[i] = (x[i] + y[i]) / 2 }
          bias = mean
        } else {
          bias = x ?? y
        }
      } else if fit?.profile == nil, let depth = fit?.spread_mm, depth > 0, let pitch = board.grid?.pitch_mm {
        let centre = CellPosition(x_mm: 0, y_mm: 0)
        let kernel = SpreadingKernel.boussinesq(depth: depth)
        bias = SpreadProfile.interpolationBias(c.interpolation, pitch: pitch) { dx, dy in
          kernel.cellWeight(centre, pitch: pitch, x: -dx, y: -dy)
        }
      } else {
        bias = spreading.interpolationBias(c.interpolation)
      }
      if let bias { c.interpolationBias = bias }
    }
    if let response = gridResponse(board: board) { c.response = response.coreTable(cells: board.cells) }
    return c
  }

  /// The grid's learnt two-dimensional response, when the record has one
  /// for this board.
  public func gridResponse(board: Board) -> GridResponse? {
    response.flatMap { GridResponse(record: $0, board: board) }
  }

  /// The grid's spreading as the fit kept it: the learnt profile, or the
  /// Boussinesq layer of the fitted depth (nil on a plate, or without a fit).
  public func spreading(board: Board) -> SpreadProfile? {
    guard let grid = board.grid, let fit else { return nil }
    if let values = fit.profile, let step = fit.profileStep_mm, SpreadProfile.knotCounts.contains(values.count),
      abs(step * Double(SpreadProfile.knotsPerPitch) - grid.pitch_mm) < 1e-6 * grid.pitch_mm
    {
      return SpreadProfile(pitch_mm: grid.pitch_mm, values: values)
    }
    if let depth = fit.spread_mm, depth > 0 { return .boussinesq(depth: depth, pitch: grid.pitch_mm) }
    return nil
  }
}
