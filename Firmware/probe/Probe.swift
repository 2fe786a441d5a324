// The smallest firmware shape around ForceCore, for its footprint on each
// target (scripts/firmware-check.sh --figures): the state in static
// storage, set up once from a calibration compiled in or loaded (integers
// in the core's formats), one call per frame. C callers pass the numbers,
// so nothing is folded away.
import ForceCore

// Initialised on first use (an empty panel), so both live in .bss; an
// Optional would put the pipeline's 43 kB in .data, and in flash.
nonisolated(unsafe) var pipeline = ForcePipeline(
  geometry: PanelGeometry(width: .zero, height: .zero), calibration: CellArray(repeating: .unity),
  configuration: CoreConfiguration())
nonisolated(unsafe) var frame = RawFrame(cellCount: 0)
nonisolated(unsafe) var ready = false

/// A grid of `columns` x `rows` cells at `pitch_um`; `calibration` holds 7
/// integers per cell (CellCalibration's fields, as in a core script).
@_cdecl("forcecore_setup")
public func setup(
  _ columns: Int, _ rows: Int, _ pitch_um: Int32, _ calibration: UnsafePointer<Int64>
) {
  let cells = min(columns * rows, Capacity.cells)
  var table: CellArray<CellCalibration> = CellArray(repeating: .unity)
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
  let geometry = PanelGeometry(
    width: Length_um(rawValue: pitch_um &* Int32(truncatingIfNeeded: columns)),
    height: Length_um(rawValue: pitch_um &* Int32(truncatingIfNeeded: rows)),
    columns: columns, rows: rows, pitch: pitch)
  pipeline = ForcePipeline(geometry: geometry, calibration: table, configuration: CoreConfiguration())
  frame = RawFrame(cellCount: cells)
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
