// The smallest firmware shape around ForceCore, for its footprint on each
// target (scripts/firmware-check.sh --figures): the state in static
// storage, set up in place once from a calibration compiled in or loaded
// (integers in the core's formats), one call per frame. C callers pass the
// numbers, so nothing is folded away.
import ForceCore

// An empty pipeline and frame, set up in place by `forcecore_setup`.
nonisolated(unsafe) var pipeline = ForcePipeline()
nonisolated(unsafe) var frame = RawFrame(cellCount: 0)
nonisolated(unsafe) var geometry = PanelGeometry(width: .zero, height: .zero)
nonisolated(unsafe) var table: CellArray<CellCalibration> = CellArray(repeating: .unity)
nonisolated(unsafe) var ready = false

/// A grid of `columns` x `rows` cells at `pitch_um`; `calibration` holds 7
/// integers per cell (CellCalibration's fields, as in a core script).
@_cdecl("forcecore_setup")
public func setup(
  _ columns: Int, _ rows: Int, _ pitch_um: Int32, _ calibration: UnsafePointer<Int64>
) {
  let cells = min(columns * rows, Capacity.cells)
  for k in 0..<cells {
    let p = calibration + 7 * k
    table[k].offset = Counts_Q16(rawValue: p[0])
    table[k].scale_Q40 = p[1]
    table[k].linearity_Q60 = p[2]
    table[k].linearSkip_Q20 = p[3]
    table[k].tcZero_Q32 = p[4]
    table[k].tcSpan_Q30 = p[5]
    table[k].referenceTemperature = Temperature_C(rawValue: Int32(truncatingIfNeeded: p[6]))
  }
  let pitch = Length_um(rawValue: pitch_um)
  geometry = PanelGeometry(
    width: Length_um(rawValue: pitch_um &* Int32(truncatingIfNeeded: columns)),
    height: Length_um(rawValue: pitch_um &* Int32(truncatingIfNeeded: rows)),
    columns: columns, rows: rows, pitch: pitch)
  pipeline.setUp(geometry: &geometry, calibration: &table, configuration: CoreConfiguration())
  frame.cellCount = cells
  ready = true
}

/// Runs one frame of `raw` counts; returns the number of contacts and
/// writes the strongest's position and force to `out` (x, y, force).
@_cdecl("forcecore_frame")
public func process(_ raw: UnsafePointer<Int32>, _ out: UnsafeMutablePointer<Int32>) -> Int {
  guard ready else { return -1 }
  for k in 0..<frame.cellCount { frame.counts[k] = raw[k] }
  pipeline.process(&frame)
  let contacts = pipeline.contacts
  if contacts.count > 0 {
    out[0] = contacts[0].x.rawValue
    out[1] = contacts[0].y.rawValue
    out[2] = contacts[0].force.rawValue
  }
  return contacts.count
}
