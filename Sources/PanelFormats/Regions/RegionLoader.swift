import PanelTouch

/// Regions files (docs/regions.md): items on the panel and what each
/// supports, checked against the guidelines. Every problem is a `FileError`
/// naming the file, the line and the field.
extension RegionMap {
  /// Loads and checks a regions file for `board`'s panel (at most
  /// `InputFile.SizeLimit.regions`: a control line loads one while the
  /// panel runs).
  public static func load(path: String, board: Board) throws(FileError) -> RegionMap {
    try RegionMap(table: TOML.load(path: path, limit: .regions), board: board)
  }

  public init(table root: TOMLTable, board: Board) throws(FileError) {
    try root.rejectUnknownKeys(["regions", "item"])
    var name = ""
    if let t = try root.optionalTable("regions") {
      try t.rejectUnknownKeys(["name", "description"])
      name = try t.optionalString("name") ?? ""
      if let v = RegionRules.check(mapName: name) { throw t.error("name", v.message) }
      _ = try t.optionalString("description")
    }
    let tables = try root.tables("item")
    var items: [RegionItem] = []
    var actionTables: [[TOMLTable]] = []
    for t in tables {
      let (item, actions) = try RegionMap.item(t)
      items.append(item)
      actionTables.append(actions)
    }
    do {
      try self.init(
        items: items, panelWidth_mm: board.width_mm, panelHeight_mm: board.height_mm, name: name,
        file: root.file
      ) { RegionMap.fileError($0, items: tables, actions: actionTables, file: root.file).description }
    } catch {
      throw RegionMap.fileError(error, items: tables, actions: actionTables, file: root.file)
    }
  }

  /// Parses one `[[item]]` (the guidelines are checked afterwards).
  package static func item(_ t: TOMLTable) throws(FileError) -> (RegionItem, [TOMLTable]) {
    try t.rejectUnknownKeys([
      "name", "x_mm", "y_mm", "width_mm", "height_mm", "peek", "pop", "live_photo", "edit_menu",
      "quick_action",
    ])
    let actionTables = try t.tables("quick_action")
    var actions: [QuickAction] = []
    for a in actionTables { actions.append(try quickAction(a)) }
    let item = RegionItem(
      name: try t.string("name"), x_mm: try t.double("x_mm"), y_mm: try t.double("y_mm"),
      width_mm: try t.double("width_mm"), height_mm: try t.double("height_mm"),
      peek: try t.optionalBool("peek") ?? false, pop: try t.optionalBool("pop") ?? false,
      livePhoto: try t.optionalBool("live_photo") ?? false, editMenu: try t.optionalBool("edit_menu") ?? false,
      quickActions: actions)
    return (item, actionTables)
  }

  /// Parses one quick action: `{title = "...", subtitle = "...", icon = "..."}`.
  public static func quickAction(_ a: TOMLTable) throws(FileError) -> QuickAction {
    try a.rejectUnknownKeys(["title", "subtitle", "icon"])
    return QuickAction(
      title: try a.string("title"), subtitle: try a.optionalString("subtitle"), icon: try a.optionalString("icon"))
  }

  /// A rule violation as an error at the line of the key at fault.
  static func fileError(_ v: RegionViolation, items: [TOMLTable], actions: [[TOMLTable]], file: String)
    -> FileError
  {
    guard items.indices.contains(v.item) else {
      return FileError(file: file, field: "item", message: v.message)
    }
    var table = items[v.item]
    if let a = v.action, actions[v.item].indices.contains(a) { table = actions[v.item][a] }
    if v.key.isEmpty { return FileError(file: file, line: table.line, field: table.name, message: v.message) }
    return table.error(v.key, v.message)
  }
}
