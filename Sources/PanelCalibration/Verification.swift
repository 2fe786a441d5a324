import ForceCore
import PanelFormats
import PanelHardware
import PanelMechanics

/// Verification placements run through the real pipeline (ForceCore's
/// calibration, baselines and contacts, as at run time): the pipeline is
/// seeded on the last unloaded step before the placement, then the
/// placement's frames are processed and the strongest contact is averaged.
enum Verification {
  /// Frames skipped at the start of a placement (the spike filter's delay).
  static let skip = 4

  static func run(
    record: CalibrationRecord, steps: [Int], data: [StepData], session: CalibrationSession, board: Board
  ) throws(FileError) -> [PlacementResult] {
    var results: [PlacementResult] = []
    let calibration = record.coreCalibration
    for i in steps {
      guard let seed = (0..<i).last(where: { !data[$0].step.isLoaded }) else { continue }
      var pipeline = ForcePipeline(
        geometry: board.geometry, calibration: calibration, configuration: record.coreConfiguration(board: board),
        coupling: record.coreCoupling)
      var frame = RawFrame(cellCount: board.cellCount)
      var source = try RecordingFrontEnd(path: session.path(of: data[seed].step), board: board)
      while try next(&source, &frame) { pipeline.process(&frame) }
      source = try RecordingFrontEnd(path: session.path(of: data[i].step), board: board)
      var count = 0
      var frames = 0
      var force = 0.0
      var x = 0.0
      var y = 0.0
      while try next(&source, &frame) {
        pipeline.process(&frame)
        count += 1
        guard count > skip, pipeline.outcome == .measured, !pipeline.contacts.isEmpty else { continue }
        let c = pipeline.contacts[0]
        force += c.force.newtons
        x += c.x.millimetres
        y += c.y.millimetres
        frames += 1
      }
      let m = Double(max(frames, 1))
      results.append(
        PlacementResult(step: data[i].step, force_n: force / m, x_mm: x / m, y_mm: y / m, frames: frames))
    }
    return results
  }

  static func next(_ source: inout RecordingFrontEnd, _ frame: inout RawFrame) throws(FileError) -> Bool {
    do {
      return try source.next(into: &frame)
    } catch {
      throw FileError(file: source.path, message: error.description)
    }
  }
}

/// The single-point method of the load-cell libraries, for comparison:
/// each cell's zero from the tare and its gain from one reference weight,
/// no linearity, no temperature. On a plate the weight stands nearest the
/// centre and each cell is assumed to carry the nominal share of it
/// (rigid-plate statics with equal supports); on a grid the weight stands on
/// each cell in turn and that cell is assumed to carry all of it ("one
/// weight, one cell").
enum SinglePoint {
  static func record(
    board: Board, session: CalibrationSession, placements: [CalibrationFit.Placement], steps: [CalibrationStep],
    offsets: [Double]
  ) -> (CalibrationRecord?, String) {
    guard let reference = session.reference_g else {
      return (nil, "the session names no reference mass (reference_g)")
    }
    let candidates = steps.indices.filter { abs(steps[$0].load_g - reference) < 0.5 }
    guard !candidates.isEmpty else { return (nil, "no fit step with the reference mass of \(reference) g") }
    let n = board.cellCount
    var gains = [Double](repeating: 0, count: n)
    func distance(_ j: Int, _ x: Double, _ y: Double) -> Double {
      let dx = steps[j].x_mm - x
      let dy = steps[j].y_mm - y
      return (dx * dx + dy * dy).squareRoot()
    }
    if let grid = board.grid {
      for k in 0..<n {
        let c = board.cells[k]
        guard let j = candidates.min(by: { distance($0, c.x_mm, c.y_mm) < distance($1, c.x_mm, c.y_mm) }),
          distance(j, c.x_mm, c.y_mm) <= grid.pitch_mm / 2
        else { return (nil, "no \(reference) g placement on cell \(k)") }
        gains[k] = placements[j].deltas[k] / placements[j].force_n
      }
    } else {
      let cx = board.width_mm / 2
      let cy = board.height_mm / 2
      let j = candidates.min { distance($0, cx, cy) < distance($1, cx, cy) }!
      let sharing = LoadSharing(supports: board.cells, stiffness: board.cells.map { _ in 1 })
      var shares = [Double](repeating: 0, count: n)
      sharing.add(force: placements[j].force_n, x: steps[j].x_mm, y: steps[j].y_mm, to: &shares)
      for k in 0..<n {
        guard abs(shares[k]) > 0.05 * placements[j].force_n else {
          return (nil, "the reference placement barely loads cell \(k)")
        }
        gains[k] = placements[j].deltas[k] / shares[k]
      }
    }
    if gains.contains(where: { $0 == 0 || !$0.isFinite }) { return (nil, "a cell did not respond to the reference mass") }
    let cells = (0..<n).map { CellParameters(offset_counts: offsets[$0], gain_counts_per_n: gains[$0]) }
    return (
      CalibrationRecord(board: board.name, serial: session.serial, created: session.date, source: "single-point", cells: cells),
      board.grid == nil ? "tare + one \(Format.short(reference)) g weight near the centre, nominal shares"
        : "tare + one \(Format.short(reference)) g weight on each cell, carried by that cell alone"
    )
  }
}
