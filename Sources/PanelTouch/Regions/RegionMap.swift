import ForceCore

/// The items the host declared on the panel, checked against the guidelines
/// and compiled for the frame path: integer rectangles for hit-testing,
/// traits per item, and each item's JSON fragments (name, menu placement,
/// quick actions) rendered once so that encoders only copy bytes.
///
/// With no items, the whole panel behaves as one peekable surface (peek and
/// pop, no quick actions) and touches name no item.
///
/// On a microcontroller (Embedded Swift, -no-allocations) the map is a
/// fixed table of up to `fixedCapacity` rectangles and their traits, set
/// with `add`; the host checks the items against the guidelines.
public struct RegionMap: Sendable {
  public static let maxItems = 1024

  public let panelWidth_mm: Double
  public let panelHeight_mm: Double

  package struct ItemRect: Sendable {
    var x0: Int32, y0: Int32, x1: Int32, y1: Int32
    package init(x0: Int32, y0: Int32, x1: Int32, y1: Int32) {
      self.x0 = x0
      self.y0 = y0
      self.x1 = x1
      self.y1 = y1
    }
  }

  /// No items: the whole panel peeks and pops. Allocation-free.
  public static func whole(panelWidth_mm w: Double, panelHeight_mm h: Double) -> RegionMap {
    RegionMap(panelWidth_mm: w, panelHeight_mm: h)
  }

  /// The last of `count` rectangles (`rect(i)`) containing the point, or -1.
  @inline(__always)
  static func lastHit(count: Int, x: Length_um, y: Length_um, _ rect: (Int) -> ItemRect) -> Int16 {
    var i = count - 1
    while i >= 0 {
      let r = rect(i)
      if x.rawValue >= r.x0 && x.rawValue <= r.x1 && y.rawValue >= r.y0 && y.rawValue <= r.y1 {
        return Int16(i)
      }
      i -= 1
    }
    return -1
  }

  /// How far (um) the point can move before the item under it may change:
  /// the distance to the nearest edge of any of `count` rectangles, from
  /// inside or outside (outside, the larger of the two axes' gaps: never
  /// more than the true distance). `Int32.max` with no rectangles.
  @inline(__always)
  static func nearestEdge(count: Int, x: Length_um, y: Length_um, _ rect: (Int) -> ItemRect) -> Int32 {
    var nearest = Int32.max
    let px = Int64(x.rawValue)
    let py = Int64(y.rawValue)
    for i in 0..<count {
      let r = rect(i)
      let left = px - Int64(r.x0)
      let right = Int64(r.x1) - px
      let top = py - Int64(r.y0)
      let bottom = Int64(r.y1) - py
      let d: Int64
      if left >= 0 && right >= 0 && top >= 0 && bottom >= 0 {
        d = min(min(left, right), min(top, bottom))
      } else {
        d = max(max(-left, -right), max(-top, -bottom))
      }
      if d < Int64(nearest) { nearest = Int32(truncatingIfNeeded: d) }
    }
    return nearest
  }

  #if !hasFeature(Embedded)
    /// The host's items as `init(items:...)` (PanelFormats) compiled them;
    /// nil for the whole panel (`whole`), which has none. (Their texts and
    /// JSON are read through PanelFormats' accessors: `items`, `name`,
    /// `nameJSON`, `placements`.)
    package private(set) var compiled: Compiled?

    /// A checked and compiled list of items.
    package struct Compiled: Sendable {
      package let name: String
      package let nameJSON: [UInt8]
      package let file: String
      package fileprivate(set) var items: [RegionItem]
      /// Per item, in item order.
      package fileprivate(set) var placements: [MenuPlacement]
      package fileprivate(set) var rects: [ItemRect]
      package fileprivate(set) var traitTable: [ItemTraits]
      package fileprivate(set) var fragments: [ItemJSON]
      /// What a touch on no item can do.
      package fileprivate(set) var background: ItemTraits
      /// Guidelines the items follow only in part, one line each (they load;
      /// whoever loads them says these once).
      package let warnings: [String]

      package init(
        name: String, nameJSON: [UInt8], file: String, items: [RegionItem], placements: [MenuPlacement],
        rects: [ItemRect], traitTable: [ItemTraits], fragments: [ItemJSON], background: ItemTraits,
        warnings: [String] = []
      ) {
        self.warnings = warnings
        self.name = name
        self.nameJSON = nameJSON
        self.file = file
        self.items = items
        self.placements = placements
        self.rects = rects
        self.traitTable = traitTable
        self.fragments = fragments
        self.background = background
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

    package init(panelWidth_mm: Double, panelHeight_mm: Double, compiled: Compiled? = nil) {
      self.panelWidth_mm = panelWidth_mm
      self.panelHeight_mm = panelHeight_mm
      self.compiled = compiled
    }

    /// Whether the map has no items.
    public var isEmpty: Bool { compiled?.items.isEmpty ?? true }

    /// Adds an item on top of the others: a rectangle (corners included)
    /// and what it supports, with no name or actions of its own (a map the
    /// frame path alone reads, as a core script gives it: docs/firmware.md;
    /// the same on a microcontroller). False when the map is full.
    public mutating func add(x0: Length_um, y0: Length_um, x1: Length_um, y1: Length_um, traits: ItemTraits) -> Bool {
      var c =
        compiled
        ?? Compiled(
          name: "", nameJSON: Array("\"\"".utf8), file: "", items: [], placements: [], rects: [], traitTable: [],
          fragments: [], background: [])
      guard c.rects.count < RegionMap.maxItems else { return false }
      c.items.append(
        RegionItem(
          name: "", x_mm: x0.millimetres, y_mm: y0.millimetres, width_mm: x1.millimetres - x0.millimetres,
          height_mm: y1.millimetres - y0.millimetres, peek: traits.contains(.peek), pop: traits.contains(.pop),
          livePhoto: traits.contains(.livePhoto), editMenu: traits.contains(.editMenu)))
      c.placements.append(MenuPlacement(side: .below, align: .center))
      c.rects.append(ItemRect(x0: x0.rawValue, y0: y0.rawValue, x1: x1.rawValue, y1: y1.rawValue))
      c.traitTable.append(traits)
      c.fragments.append(ItemJSON(name: Array("\"\"".utf8), menu: [], actions: []))
      c.background = []
      compiled = c
      return true
    }

    /// The items' rectangles and traits, in item order (what the frame
    /// path reads of the map).
    public var rectangles: [(x0: Length_um, y0: Length_um, x1: Length_um, y1: Length_um, traits: ItemTraits)] {
      guard let c = compiled else { return [] }
      return zip(c.rects, c.traitTable).map {
        (
          Length_um(rawValue: $0.0.x0), Length_um(rawValue: $0.0.y0), Length_um(rawValue: $0.0.x1),
          Length_um(rawValue: $0.0.y1), $0.1
        )
      }
    }

    /// The item under a point: the last declared item containing it (later
    /// items lie on top), or -1.
    @inline(__always)
    public func hit(x: Length_um, y: Length_um) -> Int16 {
      guard let c = compiled else { return -1 }
      return RegionMap.lastHit(count: c.rects.count, x: x, y: y) { c.rects[$0] }
    }

    /// How far the point is from the nearest item's edge (um; `Int32.max`
    /// with no items): a position known to within less than this is on
    /// the item `hit` names.
    public func clearance(x: Length_um, y: Length_um) -> Int32 {
      guard let c = compiled else { return Int32.max }
      return RegionMap.nearestEdge(count: c.rects.count, x: x, y: y) { c.rects[$0] }
    }

    /// What a touch on `item` (-1: on no item) can do.
    @inline(__always)
    public func traits(of item: Int16) -> ItemTraits {
      guard let c = compiled else { return ItemTraits.peek.union(.pop) }
      return item >= 0 && Int(item) < c.traitTable.count ? c.traitTable[Int(item)] : c.background
    }

    /// The item's pre-rendered JSON, nil for -1.
    public func json(of item: Int16) -> ItemJSON? {
      guard let c = compiled else { return nil }
      return item >= 0 && Int(item) < c.fragments.count ? c.fragments[Int(item)] : nil
    }
  #else
    /// Most items a microcontroller's map holds.
    public static let fixedCapacity = 16
    var count = 0
    var rects = InlineArray<16, ItemRect>(repeating: ItemRect(x0: 0, y0: 0, x1: 0, y1: 0))
    var traitTable = InlineArray<16, ItemTraits>(repeating: ItemTraits())

    /// A panel of the given size with no items yet.
    public init(panelWidth_mm: Double, panelHeight_mm: Double) {
      self.panelWidth_mm = panelWidth_mm
      self.panelHeight_mm = panelHeight_mm
    }

    /// Adds an item on top of the others (a rectangle in panel millimetres
    /// and what it supports). False when the map is full.
    public mutating func add(x_mm: Double, y_mm: Double, width_mm: Double, height_mm: Double, traits: ItemTraits)
      -> Bool
    {
      add(
        x0: Length_um(millimetres: x_mm), y0: Length_um(millimetres: y_mm),
        x1: Length_um(millimetres: x_mm + width_mm), y1: Length_um(millimetres: y_mm + height_mm), traits: traits)
    }

    /// Adds an item on top of the others: a rectangle (corners included)
    /// and what it supports. False when the map is full.
    public mutating func add(x0: Length_um, y0: Length_um, x1: Length_um, y1: Length_um, traits: ItemTraits) -> Bool {
      guard count < RegionMap.fixedCapacity else { return false }
      rects[count] = ItemRect(x0: x0.rawValue, y0: y0.rawValue, x1: x1.rawValue, y1: y1.rawValue)
      traitTable[count] = traits
      count += 1
      return true
    }

    /// Whether the map has no items.
    public var isEmpty: Bool { count == 0 }

    /// The item under a point: the last item added containing it, or -1.
    public func hit(x: Length_um, y: Length_um) -> Int16 {
      RegionMap.lastHit(count: count, x: x, y: y) { rects[$0] }
    }

    /// How far the point is from the nearest item's edge (um; `Int32.max`
    /// with no items): a position known to within less than this is on
    /// the item `hit` names.
    public func clearance(x: Length_um, y: Length_um) -> Int32 {
      RegionMap.nearestEdge(count: count, x: x, y: y) { rects[$0] }
    }

    /// What a touch on `item` (-1: on no item) can do.
    public func traits(of item: Int16) -> ItemTraits {
      if count == 0 { return ItemTraits.peek.union(.pop) }
      return item >= 0 && Int(item) < count ? traitTable[Int(item)] : ItemTraits()
    }
  #endif
}
