import ForceCore

/// The items the host declared on the panel, checked against the guidelines
/// and compiled for the frame path: integer rectangles for hit-testing,
/// traits per item, and each item's JSON fragments (name, menu placement,
/// quick actions) rendered once so that encoders only copy bytes.
///
/// With no items, the whole panel behaves as one peekable surface (peek and
/// pop, no quick actions) and touches name no item.
public struct RegionMap: Sendable {
  public static let maxItems = 1024

  /// The map's name (`[regions] name`), "" when none.
  public let name: String
  /// `name` as a JSON string.
  public let nameJSON: [UInt8]
  /// The file it was loaded from, "" when built in code.
  public let file: String
  public let items: [RegionItem]
  public let panelWidth_mm: Double
  public let panelHeight_mm: Double
  /// Per item, in item order.
  public let placements: [MenuPlacement]
  let rects: [ItemRect]
  let traitTable: [ItemTraits]
  let fragments: [ItemJSON]
  /// What a touch on no item can do.
  let background: ItemTraits

  package struct ItemRect: Sendable {
    var x0: Int32, y0: Int32, x1: Int32, y1: Int32
    package init(x0: Int32, y0: Int32, x1: Int32, y1: Int32) {
      self.x0 = x0
      self.y0 = y0
      self.x1 = x1
      self.y1 = y1
    }
  }

  /// Pre-rendered JSON of one item, for encoders.
  public struct ItemJSON: Sendable {
    /// The name as a JSON string, quotes included.
    public let name: [UInt8]
    /// `"side":"below","align":"left"`.
    public let menu: [UInt8]
    /// `[{"title":...,"subtitle":...,"icon":...},...]`.
    public let actions: [UInt8]
    package init(name: [UInt8], menu: [UInt8], actions: [UInt8]) {
      self.name = name
      self.menu = menu
      self.actions = actions
    }
  }

  /// A compiled map, as `init(items:...)` (PanelFormats) makes it after
  /// checking the items against the rules.
  package init(
    name: String, nameJSON: [UInt8], file: String, items: [RegionItem], panelWidth_mm: Double,
    panelHeight_mm: Double, placements: [MenuPlacement], rects: [ItemRect], traitTable: [ItemTraits],
    fragments: [ItemJSON], background: ItemTraits
  ) {
    self.name = name
    self.nameJSON = nameJSON
    self.file = file
    self.items = items
    self.panelWidth_mm = panelWidth_mm
    self.panelHeight_mm = panelHeight_mm
    self.placements = placements
    self.rects = rects
    self.traitTable = traitTable
    self.fragments = fragments
    self.background = background
  }

  /// `""` as JSON: the name of a map without one.
  static let noNameJSON: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "\"")]

  /// No items: the whole panel peeks and pops.
  public static func whole(panelWidth_mm w: Double, panelHeight_mm h: Double) -> RegionMap {
    RegionMap(
      name: "", nameJSON: noNameJSON, file: "", items: [], panelWidth_mm: w, panelHeight_mm: h, placements: [],
      rects: [], traitTable: [], fragments: [], background: ItemTraits.peek.union(.pop))
  }

  public var isEmpty: Bool { items.isEmpty }

  /// The item under a point: the last declared item containing it (later
  /// items lie on top), or -1.
  @inline(__always)
  public func hit(x: Length_um, y: Length_um) -> Int16 {
    var i = rects.count - 1
    while i >= 0 {
      let r = rects[i]
      if x.rawValue >= r.x0 && x.rawValue <= r.x1 && y.rawValue >= r.y0 && y.rawValue <= r.y1 {
        return Int16(i)
      }
      i -= 1
    }
    return -1
  }

  /// What a touch on `item` (-1: on no item) can do.
  @inline(__always)
  public func traits(of item: Int16) -> ItemTraits {
    item >= 0 && Int(item) < traitTable.count ? traitTable[Int(item)] : background
  }

  /// The item's pre-rendered JSON, nil for -1.
  public func json(of item: Int16) -> ItemJSON? {
    item >= 0 && Int(item) < fragments.count ? fragments[Int(item)] : nil
  }

  /// The index of the item called `name`, or nil.
  public func index(of name: String) -> Int? { items.firstIndex { $0.name == name } }
}
