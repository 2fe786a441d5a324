/// Fixed capacities of the core. Storage is sized for these at compile time,
/// so nothing in the frame path allocates.
///
/// 256 cells by default; a firmware for a smaller panel compiles with
/// `-D FORCECORE_CELLS_16`, `_48`, `_64` or `_128` (every module that uses
/// the core, the same), and every per-cell table shrinks with it
/// (docs/firmware.md).
public enum Capacity {
  /// Most cells a panel may have.
  #if FORCECORE_CELLS_16
    public static let cells = 16
  #elseif FORCECORE_CELLS_48
    public static let cells = 48
  #elseif FORCECORE_CELLS_64
    public static let cells = 64
  #elseif FORCECORE_CELLS_128
    public static let cells = 128
  #else
    public static let cells = 256
  #endif
  /// Most contacts reported in one frame.
  public static let contacts = 16
}

/// Per-cell storage of the core: one value per cell, up to `Capacity.cells`.
#if FORCECORE_CELLS_16
  public typealias CellArray<Element> = InlineArray<16, Element>
#elseif FORCECORE_CELLS_48
  public typealias CellArray<Element> = InlineArray<48, Element>
#elseif FORCECORE_CELLS_64
  public typealias CellArray<Element> = InlineArray<64, Element>
#elseif FORCECORE_CELLS_128
  public typealias CellArray<Element> = InlineArray<128, Element>
#else
  public typealias CellArray<Element> = InlineArray<256, Element>
#endif

/// How the cells sit under the panel, which decides how contacts are found.
public enum CellLayout: Equatable, Sendable {
  /// Load cells supporting a rigid plate (usually one per corner): one
  /// contact, at the centre of pressure.
  case supports
  /// A regular grid of cells under a flexible overlay: cell `k` is at column
  /// `k % columns`, row `k / columns`; contacts are the force image's peaks.
  case grid(columns: Int, rows: Int, pitch: Length_um)
}

/// The panel's outline and where each cell is.
public struct PanelGeometry: Sendable {
  public var width: Length_um
  public var height: Length_um
  public var layout: CellLayout
  public private(set) var cellCount: Int
  public private(set) var cellX: CellArray<Length_um>
  public private(set) var cellY: CellArray<Length_um>

  /// A grid panel; cell centres at `((col + 0.5) * pitch, (row + 0.5) * pitch)`.
  public init(width: Length_um, height: Length_um, columns: Int, rows: Int, pitch: Length_um) {
    self.width = width
    self.height = height
    let count = max(0, min(Capacity.cells, columns * rows))
    self.layout = .grid(columns: max(columns, 1), rows: max(rows, 1), pitch: pitch)
    self.cellCount = count
    self.cellX = CellArray(repeating: .zero)
    self.cellY = CellArray(repeating: .zero)
    for k in 0..<count {
      let col = k % max(columns, 1)
      let row = k / max(columns, 1)
      cellX[k] = Length_um(rawValue: Int32(2 * col + 1) * pitch.rawValue / 2)
      cellY[k] = Length_um(rawValue: Int32(2 * row + 1) * pitch.rawValue / 2)
    }
  }

  /// A plate on supporting cells; add each cell's position with `addCell`.
  public init(width: Length_um, height: Length_um) {
    self.width = width
    self.height = height
    self.layout = .supports
    self.cellCount = 0
    self.cellX = CellArray(repeating: .zero)
    self.cellY = CellArray(repeating: .zero)
  }

  /// Appends a supporting cell. Returns false when the panel is full.
  @discardableResult
  public mutating func addCell(x: Length_um, y: Length_um) -> Bool {
    guard cellCount < Capacity.cells else { return false }
    cellX[cellCount] = x
    cellY[cellCount] = y
    cellCount += 1
    return true
  }
}
