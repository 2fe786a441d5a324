import PanelFirmware

/// A WebSocket client's items (`regions [ITEM, ...]` from a page): its own
/// layer of the panel's map. Each item is read and checked against the
/// guidelines on its own: the valid ones are kept, each invalid one is
/// refused with its place, its name and the key at fault, so that one bad
/// item costs a page that item only. In the panel's map (`ServeControl`
/// composes it) the client's item names carry its scope, `ws#ID/`, so that
/// two pages' items never clash and each page knows its own.
package struct ClientItems: Sendable {
  /// The client's items, checked and compiled, their names in its scope.
  package var map: RegionMap
  /// The items refused, in line order.
  package var refused: [Refusal]

  /// One refused item.
  package struct Refusal: Sendable, Equatable {
    /// 1-based, in the line's list.
    package var item: Int
    /// Its name, when it had one that could be read.
    package var name: String?
    /// The key at fault (`pop`, `x_mm`, `title`, ...); "" for the item as a whole.
    package var key: String
    /// The quick action at fault, 1-based.
    package var action: Int?
    /// What is wrong: `item[13] pop: "bad" can peek but not pop; ...`.
    package var message: String
  }

  /// A client's line that gives items (`[at SECONDS] regions [ITEM, ...]`):
  /// its time and the list; nil for any other line (a `regions` line
  /// naming a file included: `ControlLine.parse` refuses it).
  package static func itemsLine(_ text: String, source: String, line: Int) throws(FileError) -> (at_s: Double?, list: String)? {
    var words = text.drop { $0 == " " || $0 == "\t" }
    func word() -> Substring {
      let w = words.prefix { $0 != " " && $0 != "\t" }
      words = words.dropFirst(w.count).drop { $0 == " " || $0 == "\t" }
      return w
    }
    var command = word()
    var at: Double?
    if command == "at" {
      let time = word()
      guard let t = Double(time) else {
        throw FileError(file: source, line: line, field: "at", message: "expected a time in seconds (0 or more), found \(Quote.text(time))")
      }
      if !ValueBound.scriptTime_s.contains(t) {
        throw FileError(file: source, line: line, field: "at", message: ValueBound.scriptTime_s.violation(t))
      }
      at = t
      command = word()
    }
    guard command == "regions", words.hasPrefix("[") else { return nil }
    return (at, String(words))
  }

  /// The scope of a client's item names: `ws#3/`.
  package static func scope(_ client: ClientHandle) -> String { "\(ControlReply.source(client))/" }

  /// Whether a name is in some client's scope (`ws#DIGITS/...`).
  package static func isScoped(_ name: String) -> Bool {
    guard name.hasPrefix("ws#") else { return false }
    let digits = name.utf8.dropFirst(3).prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    return !digits.isEmpty && name.utf8.dropFirst(3 + digits.count).first == UInt8(ascii: "/")
  }

  /// Reads `list` (`[{name = "...", x_mm = ..., ...}, ...]`, the keys of a
  /// regions file's `[[item]]`) for `board`'s panel; `source` and `line`
  /// place errors. Throws only when the list as a whole cannot be read
  /// (not TOML, not a list of tables, more items than a map holds).
  package init(list: String, scope: String, board: Board, source: String, line: Int) throws(FileError) {
    let tables: [TOMLTable]
    do {
      tables = try TOML.parse("item = " + list, file: source).tables("item")
    } catch {
      var e = error
      e.line = line
      throw e
    }
    if tables.count > RegionMap.maxItems {
      throw FileError(
        file: source, line: line, field: "regions",
        message: "\(tables.count) items; a map holds at most \(RegionMap.maxItems)")
    }
    var kept: [RegionItem] = []
    var refused: [Refusal] = []
    for (i, table) in tables.enumerated() {
      let name = (try? table.optionalString("name")).flatMap { $0 }
      do {
        let (item, _) = try RegionMap.item(table)
        if let v = RegionRules.check(item, index: i, panelWidth_mm: board.width_mm, panelHeight_mm: board.height_mm) {
          refused.append(Refusal(item: i + 1, name: item.name, key: v.key, action: v.action.map { $0 + 1 }, message: v.description))
        } else if kept.contains(where: { $0.name == item.name }) {
          refused.append(
            Refusal(
              item: i + 1, name: item.name, key: "name",
              message: "item[\(i + 1)] name: \(Quote.text(item.name)) is the name of an earlier item"))
        } else {
          kept.append(item)
        }
      } catch {
        let (key, action) = Self.key(of: error.field)
        refused.append(
          Refusal(
            item: i + 1, name: name, key: key, action: action,
            message: [error.field, error.message].compactMap { $0 }.joined(separator: ": ")))
      }
    }
    let checked: RegionMap
    do {
      checked = try RegionMap(items: kept, panelWidth_mm: board.width_mm, panelHeight_mm: board.height_mm)
    } catch {
      // Each item passed on its own and the names are unique: not expected.
      throw FileError(file: source, line: line, field: "regions", message: error.description)
    }
    map = Self.scoped(checked, scope: scope)
    self.refused = refused
  }

  /// `map` with every item's name in `scope`, as the stream names them.
  package static func scoped(_ map: RegionMap, scope: String) -> RegionMap {
    renamed(map) { scope + $0 }
  }

  /// `map` with its names out of `scope` again.
  package static func unscoped(_ map: RegionMap, scope: String) -> RegionMap {
    renamed(map) { $0.hasPrefix(scope) ? String($0.dropFirst(scope.count)) : $0 }
  }

  static func renamed(_ map: RegionMap, _ rename: (String) -> String) -> RegionMap {
    guard let c = map.compiled else { return map }
    let items = c.items.map { item -> RegionItem in
      var i = item
      i.name = rename(item.name)
      return i
    }
    let fragments = zip(c.fragments, items).map { f, item in
      RegionMap.ItemJSON(name: JSONWriter.quotedUTF8(item.name), menu: f.menu, actions: f.actions)
    }
    return RegionMap(
      panelWidth_mm: map.panelWidth_mm, panelHeight_mm: map.panelHeight_mm,
      compiled: .init(
        name: c.name, nameJSON: c.nameJSON, file: c.file, items: items, placements: c.placements, rects: c.rects,
        traitTable: c.traitTable, fragments: fragments, background: c.background, warnings: c.warnings))
  }

  /// The key and quick action an error's field names: `item[3] pop` is
  /// `pop`; `item[3].quick_action[2] title` is `title` of action 2.
  static func key(of field: String?) -> (String, Int?) {
    guard let field else { return ("", nil) }
    let parts = field.split(separator: " ")
    let key = parts.count > 1 ? String(parts.last!) : ""
    var action: Int?
    if let r = field.firstRange(of: ".quick_action[") {
      action = Int(field[r.upperBound...].prefix { $0.isNumber })
    }
    return (key, action)
  }

  /// The answer's part about the items: how many were kept, and each
  /// refused one.
  package var json: (kept: Int, refused: String) {
    var list = JSONWriter.array()
    for r in refused {
      var o = JSONWriter.object()
      o.field("item", r.item)
      o.field("name", r.name)
      o.field("key", r.key)
      if let a = r.action { o.field("action", a) }
      o.field("message", r.message)
      list.value(o.done)
    }
    return (map.items.count, list.done)
  }
}

extension RegionMap {
  /// The map's items for which `keep` holds, in order (the server's own
  /// items beneath the clients' layers).
  package func keeping(_ keep: (RegionItem) -> Bool) -> RegionMap {
    guard let c = compiled else { return self }
    let kept = c.items.indices.filter { keep(c.items[$0]) }
    if kept.count == c.items.count { return self }
    return RegionMap.concatenating(
      [RegionMap(
        panelWidth_mm: panelWidth_mm, panelHeight_mm: panelHeight_mm,
        compiled: .init(
          name: c.name, nameJSON: c.nameJSON, file: c.file, items: kept.map { c.items[$0] },
          placements: kept.map { c.placements[$0] }, rects: kept.map { c.rects[$0] },
          traitTable: kept.map { c.traitTable[$0] }, fragments: kept.map { c.fragments[$0] },
          background: c.background, warnings: []))],
      over: self)
  }

  /// `layers` one above the other, the last on top (a touch goes to the
  /// top item under it), as one map named as `base`; already checked and
  /// compiled, so this only concatenates. No items: the whole panel.
  package static func concatenating(_ layers: [RegionMap], over base: RegionMap) -> RegionMap {
    let all = layers.compactMap(\.compiled)
    let count = all.reduce(0) { $0 + $1.items.count }
    if count == 0 {
      return RegionMap.whole(panelWidth_mm: base.panelWidth_mm, panelHeight_mm: base.panelHeight_mm)
    }
    return RegionMap(
      panelWidth_mm: base.panelWidth_mm, panelHeight_mm: base.panelHeight_mm,
      compiled: .init(
        name: base.name, nameJSON: base.nameJSON, file: base.file, items: all.flatMap(\.items),
        placements: all.flatMap(\.placements), rects: all.flatMap(\.rects), traitTable: all.flatMap(\.traitTable),
        fragments: all.flatMap(\.fragments), background: [], warnings: []))
  }
}
