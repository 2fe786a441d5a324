import ForceCore
import PanelTouch

// Compiling the host's items into the map the frame path reads.

extension RegionMap {
  /// Checks `items` (RegionRules) and compiles them; the guidelines they
  /// follow only in part (`RegionRules.advice`) become `warnings`, each
  /// written by `describe` (a file's loader adds the line).
  public init(
    items: [RegionItem], panelWidth_mm w: Double, panelHeight_mm h: Double, name: String = "",
    file: String = "", describe: (RegionViolation) -> String = { $0.description }
  ) throws(RegionViolation) {
    if items.count > RegionMap.maxItems {
      throw RegionViolation(item: RegionMap.maxItems, key: "", message: "more than \(RegionMap.maxItems) items")
    }
    if let v = RegionRules.check(mapName: name) { throw v }
    if let v = RegionRules.check(items, panelWidth_mm: w, panelHeight_mm: h) { throw v }
    let placements = items.map { MenuPlacement(item: $0, panelWidth_mm: w, panelHeight_mm: h) }
    let rects = items.map {
      ItemRect(
        x0: Length_um(millimetres: $0.x_mm).rawValue, y0: Length_um(millimetres: $0.y_mm).rawValue,
        x1: Length_um(millimetres: $0.x_mm + $0.width_mm).rawValue,
        y1: Length_um(millimetres: $0.y_mm + $0.height_mm).rawValue)
    }
    let traitTable = items.map(\.traits)
    let fragments = zip(items, placements).map { RegionMap.render($0, $1) }
    self.init(
      panelWidth_mm: w, panelHeight_mm: h,
      compiled: Compiled(
        name: name, nameJSON: JSONWriter.quotedUTF8(name), file: file, items: items, placements: placements, rects: rects,
        traitTable: traitTable, fragments: fragments, background: items.isEmpty ? [.peek, .pop] : [],
        warnings: RegionRules.advice(items).map(describe)))
  }

  /// Guidelines the items follow only in part, one line each (docs/regions.md).
  public var warnings: [String] { compiled?.warnings ?? [] }

  /// The map's name (`[regions] name`), "" when none.
  public var name: String { compiled?.name ?? "" }
  /// `name` as a JSON string.
  public var nameJSON: [UInt8] { compiled?.nameJSON ?? RegionMap.noNameJSON }
  /// The file it was loaded from, "" when built in code.
  public var file: String { compiled?.file ?? "" }
  public var items: [RegionItem] { compiled?.items ?? [] }
  /// Per item, in item order.
  public var placements: [MenuPlacement] { compiled?.placements ?? [] }

  static let noNameJSON = JSONWriter.quotedUTF8("")

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
    let map = try RegionMap(
      items: list, panelWidth_mm: panelWidth_mm, panelHeight_mm: panelHeight_mm, name: self.name, file: file)
    // Warnings of the new actions only: the other items' were said when they loaded.
    return map.with(warnings: RegionRules.advice(list).filter { $0.item == i }.map(\.description))
  }

  /// The same map with other warnings.
  package func with(warnings: [String]) -> RegionMap {
    guard let c = compiled else { return self }
    return RegionMap(
      panelWidth_mm: panelWidth_mm, panelHeight_mm: panelHeight_mm,
      compiled: Compiled(
        name: c.name, nameJSON: c.nameJSON, file: c.file, items: c.items, placements: c.placements, rects: c.rects,
        traitTable: c.traitTable, fragments: c.fragments, background: c.background, warnings: warnings))
  }

  static func render(_ item: RegionItem, _ placement: MenuPlacement) -> ItemJSON {
    var menu: [UInt8] = []
    menu += Array("\"side\":\"\(placement.side.rawValue)\",\"align\":\"\(placement.align.rawValue)\"".utf8)
    var actions: [UInt8] = [UInt8(ascii: "[")]
    for (k, a) in item.quickActions.enumerated() {
      if k > 0 { actions.append(UInt8(ascii: ",")) }
      actions += Array("{\"title\":".utf8) + JSONWriter.quotedUTF8(a.title)
      if let s = a.subtitle { actions += Array(",\"subtitle\":".utf8) + JSONWriter.quotedUTF8(s) }
      if let s = a.icon { actions += Array(",\"icon\":".utf8) + JSONWriter.quotedUTF8(s) }
      actions.append(UInt8(ascii: "}"))
    }
    actions.append(UInt8(ascii: "]"))
    return ItemJSON(name: JSONWriter.quotedUTF8(item.name), menu: menu, actions: actions)
  }
}
