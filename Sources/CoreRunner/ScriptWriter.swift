import ForceCore
import PanelTouch

/// Writes a core script (`CoreScript`): the setup once, then frames (and
/// between them the host's changes).
public struct ScriptWriter {
  var out = LineWriter()

  public init() {}

  /// Whether a write to a sink failed.
  public var failed: Bool { out.failed }

  /// The header and the setup of a pipeline.
  public mutating func writeSetup<W: ByteSink>(
    geometry: PanelGeometry, calibration: inout CellArray<CellCalibration>, configuration: CoreConfiguration,
    coupling: CouplingMatrix, to sink: inout W
  ) {
    out.text(CoreScript.header, &sink)
    out.endLine(&sink)
    let w = Wide.int64(Int(geometry.width.rawValue))
    let h = Wide.int64(Int(geometry.height.rawValue))
    switch geometry.layout {
    case .supports:
      out.text("plate", &sink)
      out.field(w, &sink)
      out.field(h, &sink)
      out.endLine(&sink)
      for k in 0..<geometry.cellCount {
        out.text("cell", &sink)
        out.field(Wide.int64(Int(geometry.cellX[k].rawValue)), &sink)
        out.field(Wide.int64(Int(geometry.cellY[k].rawValue)), &sink)
        out.endLine(&sink)
      }
    case .grid(let columns, let rows, let pitch):
      out.text("grid", &sink)
      out.field(w, &sink)
      out.field(h, &sink)
      out.field(Wide.int64(columns), &sink)
      out.field(Wide.int64(rows), &sink)
      out.field(Wide.int64(Int(pitch.rawValue)), &sink)
      out.endLine(&sink)
    }
    var c = configuration
    Settings.visit(&c) { (name, values) in
      out.text("set ", &sink)
      out.text(name, &sink)
      for i in 0..<values.count { out.field(values[i], &sink) }
      out.endLine(&sink)
    }
    for k in 0..<min(geometry.cellCount, Capacity.cells) {
      let cal = calibration[k]
      out.text("calibration", &sink)
      out.field(cal.offset.rawValue, &sink)
      out.field(cal.scale_Q40, &sink)
      out.field(cal.linearity_Q60, &sink)
      out.field(cal.linearSkip_Q20, &sink)
      out.field(cal.tcZero_Q32, &sink)
      out.field(cal.tcSpan_Q30, &sink)
      out.field(Wide.int64(Int(cal.referenceTemperature.rawValue)), &sink)
      out.endLine(&sink)
    }
    for i in 0..<coupling.size {
      out.text("coupling", &sink)
      for j in 0..<coupling.size {
        // Q8.24 entries are exact as Doubles.
        out.field(Wide.int64(Int(coupling.value(i, j) * 16_777_216)), &sink)
      }
      out.endLine(&sink)
    }
  }

  /// One `<kind> <name> <value>` setting line.
  mutating func setting<W: ByteSink>(_ kind: StaticString, _ name: StaticString, _ value: Int64, _ sink: inout W) {
    out.text(kind, &sink)
    out.text(name, &sink)
    out.field(value, &sink)
    out.endLine(&sink)
  }

  /// The touch layer's setup: the tracker's and the interaction's
  /// settings, whether the run is calibrated, and each cell's position
  /// (mm, where a dead cell is estimated from) and a grid's pitch.
  public mutating func writeTouchSetup<W: ByteSink>(
    tracker: TrackerSettings, interaction: InteractionSettings, calibrated: Bool,
    x_mm: inout CellArray<Double>, y_mm: inout CellArray<Double>, cells: Int, pitch_mm: Double, to sink: inout W
  ) {
    var t = tracker
    TouchSettings.visit(&t) { (name, value) in setting("touch ", name, value, &sink) }
    var s = interaction
    TouchSettings.visit(&s) { (name, value) in setting("interaction ", name, value, &sink) }
    out.text("calibrated", &sink)
    out.field(calibrated ? 1 : 0, &sink)
    out.endLine(&sink)
    for k in 0..<min(cells, Capacity.cells) {
      out.text("position", &sink)
      out.field(Int64(bitPattern: x_mm[k].bitPattern), &sink)
      out.field(Int64(bitPattern: y_mm[k].bitPattern), &sink)
      out.endLine(&sink)
    }
    out.text("pitch", &sink)
    out.field(Int64(bitPattern: pitch_mm.bitPattern), &sink)
    out.endLine(&sink)
  }

  /// A `region` line: an item's rectangle (um, corners included) and
  /// traits, on top of those before it (in the setup: the map the run
  /// starts with; between frames: the next map, which `regions` applies).
  public mutating func writeRegion<W: ByteSink>(
    x0: Length_um, y0: Length_um, x1: Length_um, y1: Length_um, traits: ItemTraits, to sink: inout W
  ) {
    out.text("region", &sink)
    out.field(Wide.int64(Int(x0.rawValue)), &sink)
    out.field(Wide.int64(Int(y0.rawValue)), &sink)
    out.field(Wide.int64(Int(x1.rawValue)), &sink)
    out.field(Wide.int64(Int(y1.rawValue)), &sink)
    out.field(Wide.int64(Int(traits.rawValue)), &sink)
    out.endLine(&sink)
  }

  /// The `regions` line: the `region` lines since the last frame replace
  /// the map.
  public mutating func writeRegions<W: ByteSink>(to sink: inout W) {
    out.text("regions", &sink)
    out.endLine(&sink)
  }

  /// The `frames` line: the number of frames (the last ends the stream).
  public mutating func writeFrames<W: ByteSink>(_ count: Int, to sink: inout W) {
    out.text("frames", &sink)
    out.field(Wide.int64(count), &sink)
    out.endLine(&sink)
  }

  /// A `sensitivity` line.
  public mutating func writeSensitivity<W: ByteSink>(_ s: Sensitivity, to sink: inout W) {
    out.text("sensitivity ", &sink)
    out.text(s.name, &sink)
    out.endLine(&sink)
  }

  /// A `force_touch` line.
  public mutating func writeForceTouch<W: ByteSink>(_ on: Bool, to sink: inout W) {
    out.text("force_touch", &sink)
    out.field(on ? 1 : 0, &sink)
    out.endLine(&sink)
  }

  /// One `frame` line.
  public mutating func writeFrame<W: ByteSink>(_ frame: inout RawFrame, to sink: inout W) {
    out.text("frame", &sink)
    out.field(frame.time.rawValue, &sink)
    out.field(Int64(_truncatingBits: UInt(frame.sequence)), &sink)
    out.field(frame.valid ? 1 : 0, &sink)
    if frame.hasTemperature {
      out.field(Wide.int64(Int(frame.temperature.rawValue)), &sink)
    } else {
      out.text(" -", &sink)
    }
    for k in 0..<min(frame.cellCount, Capacity.cells) {
      out.field(Wide.int64(Int(frame.counts[k])), &sink)
    }
    out.endLine(&sink)
  }

  /// Writes what is buffered.
  public mutating func flush<W: ByteSink>(to sink: inout W) { out.flush(&sink) }
}
