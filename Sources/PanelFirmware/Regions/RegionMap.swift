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

  struct ItemRect: Sendable {
    var x0: Int32, y0: Int32, x1: Int32, y1: Int32
  }

  /// Pre-rendered JSON of one item, for encoders.
  public struct ItemJSON: Sendable {
    /// The name as a JSON string, quotes included.
    public let name: [UInt8]
    /// `"side":"below","align":"left"`.
    public let menu: [UInt8]
    /// `[{"title":...,"subtitle":...,"icon":...},...]`.
    public let actions: [UInt8]
  }

  /// Checks `items` (RegionRules) and compiles them.
  public init(
    items: [RegionItem], panelWidth_mm w: Double, panelHeight_mm h: Double, name: String = "",
    file: String = ""
  ) throws(RegionViolation) {
    if items.count > RegionMap.maxItems {
      throw RegionViolation(item: RegionMap.maxItems, key: "", message: "more than \(RegionMap.maxItems) items")
    }
    if let v = RegionRules.check(mapName: name) { throw v }
    if let v = RegionRules.check(items, panelWidth_mm: w, panelHeight_mm: h) { throw v }
    self.name = name
    nameJSON = JSONText.quoted(name)
    self.file = file
    self.items = items
    panelWidth_mm = w
    panelHeight_mm = h
    placements = items.map { MenuPlacement(item: $0, panelWidth_mm: w, panelHeight_mm: h) }
    rects = items.map {
      ItemRect(
        x0: Length_um(millimetres: $0.x_mm).rawValue, y0: Length_um(millimetres: $0.y_mm).rawValue,
        x1: Length_um(millimetres: $0.x_mm + $0.width_mm).rawValue,
        y1: Length_um(millimetres: $0.y_mm + $0.height_mm).rawValue)
    }
    traitTable = items.map(\.traits)
    fragments = zip(items, placements).map { RegionMap.render($0, $1) }
    background = items.isEmpty ? [.peek, .pop] : []
  }

  /// No items: the whole panel peeks and pops.
  public static func whole(panelWidth_mm w: Double, panelHeight_mm h: Double) -> RegionMap {
    // No items cannot break a rule.
    (try? RegionMap(items: [], panelWidth_mm: w, panelHeight_mm: h))!
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

  /// The same map with the quick actions of item `name` replaced (checked
  /// against the rules like a file).
  public func replacingQuickActions(of name: String, with actions: [QuickAction]) throws(RegionViolation)
    -> RegionMap
  {
    guard let i = index(of: name) else {
      throw RegionViolation(item: items.count, key: "name", message: "no item is called \(Quote.text(name))")
    }
    var list = items
    list[i].quickActions = actions
    return try RegionMap(
      items: list, panelWidth_mm: panelWidth_mm, panelHeight_mm: panelHeight_mm, name: self.name, file: file)
  }

  static func render(_ item: RegionItem, _ placement: MenuPlacement) -> ItemJSON {
    var menu: [UInt8] = []
    menu += Array("\"side\":\"\(placement.side.rawValue)\",\"align\":\"\(placement.align.rawValue)\"".utf8)
    var actions: [UInt8] = [UInt8(ascii: "[")]
    for (k, a) in item.quickActions.enumerated() {
      if k > 0 { actions.append(UInt8(ascii: ",")) }
      actions += Array("{\"title\":".utf8) + JSONText.quoted(a.title)
      if let s = a.subtitle { actions += Array(",\"subtitle\":".utf8) + JSONText.quoted(s) }
      if let s = a.icon { actions += Array(",\"icon\":".utf8) + JSONText.quoted(s) }
      actions.append(UInt8(ascii: "}"))
    }
    actions.append(UInt8(ascii: "]"))
    return ItemJSON(name: JSONText.quoted(item.name), menu: menu, actions: actions)
  }
}

/// JSON string literals.
public enum JSONText {
  /// `text` as a JSON string, quotes included, escaped (RFC 8259).
  public static func quoted(_ text: String) -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "\"")]
    let hex = Array("0123456789abcdef".utf8)
    for b in text.utf8 {
      switch b {
      case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0..<0x20:
        out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
      default: out.append(b)
      }
    }
    out.append(UInt8(ascii: "\""))
    return out
  }
}
