import ForceCore
import PanelHardware
import PanelTouch

/// One panel on one board, as a board file (docs/formats.md)
/// describes it: geometry, front end, sampling, detection and interaction.
public struct Board: Sendable {
  /// Unique name, used in records and reports.
  public var name: String
  public var description: String
  /// The file it was loaded from ("" when built in code).
  public var file: String
  public var width_mm: Double
  public var height_mm: Double
  /// Where each cell is, in cell order.
  public var cells: [CellPosition]
  /// Set when the cells form a regular grid.
  public var grid: GridSpec?
  /// What makes the raw frames, typed (`[frontend]`).
  public var frontEnd: BoardFrontEnd
  public var rate_hz: Int
  public var detection: DetectionSettings
  public var interaction: InteractionSettings
  /// The haptic driver clicking at the force stages (`[haptics]`), if any.
  public var haptics: HapticsSettings?

  public init(
    name: String, description: String = "", file: String = "", width_mm: Double,
    height_mm: Double, cells: [CellPosition], grid: GridSpec? = nil,
    frontEnd: BoardFrontEnd, rate_hz: Int, detection: DetectionSettings = DetectionSettings(),
    interaction: InteractionSettings = InteractionSettings()
  ) {
    self.name = name
    self.description = description
    self.file = file
    self.width_mm = width_mm
    self.height_mm = height_mm
    self.cells = cells
    self.grid = grid
    self.frontEnd = frontEnd
    self.rate_hz = rate_hz
    self.detection = detection
    self.interaction = interaction
  }

  public var cellCount: Int { cells.count }

  /// The panel geometry in the core's fixed-point units.
  public var geometry: PanelGeometry {
    let w = Length_um(millimetres: width_mm)
    let h = Length_um(millimetres: height_mm)
    if let grid {
      return PanelGeometry(
        width: w, height: h, columns: grid.columns, rows: grid.rows,
        pitch: Length_um(millimetres: grid.pitch_mm))
    }
    var g = PanelGeometry(width: w, height: h)
    for c in cells { g.addCell(x: Length_um(millimetres: c.x_mm), y: Length_um(millimetres: c.y_mm)) }
    return g
  }

  /// The core's configuration for this board.
  public var coreConfiguration: CoreConfiguration {
    detection.coreConfiguration(
      rate_hz: rate_hz, maxTouches: interaction.maxTouches,
      maxForce_n: interaction.maxForce * interaction.averageTouch_n)
  }
}

/// A cell's centre on the panel, in millimetres.
public struct CellPosition: Sendable, Equatable {
  public var x_mm: Double
  public var y_mm: Double
  public init(x_mm: Double, y_mm: Double) {
    self.x_mm = x_mm
    self.y_mm = y_mm
  }
}

/// A regular grid: cell k at column k % columns, row k / columns.
public struct GridSpec: Sendable, Equatable {
  public var columns: Int
  public var rows: Int
  public var pitch_mm: Double
  public init(columns: Int, rows: Int, pitch_mm: Double) {
    self.columns = columns
    self.rows = rows
    self.pitch_mm = pitch_mm
  }
}
