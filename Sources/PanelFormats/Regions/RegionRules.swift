import PanelTouch

/// A declared item that breaks one of the 3D Touch guidelines (or does not
/// fit the panel). `item` and `action` are 0-based; `key` is the file key
/// the problem is about, so a loader can point at its line.
public struct RegionViolation: Error, Sendable, Equatable, CustomStringConvertible {
  public var item: Int
  /// The quick action at fault, when the problem is one action.
  public var action: Int?
  /// The key at fault; "" when it is the item or action as a whole.
  public var key: String
  public var message: String

  public init(item: Int, action: Int? = nil, key: String, message: String) {
    self.item = item
    self.action = action
    self.key = key
    self.message = message
  }

  public var description: String {
    if item < 0 { return "[regions] \(key): \(message)" }
    var field = "item[\(item + 1)]"
    if let action { field += ".quick_action[\(action + 1)]" }
    return key.isEmpty ? "\(field): \(message)" : "\(field) \(key): \(message)"
  }
}

/// The guidelines as rules (DESIGN.md, "The interaction model"; Apple's
/// "Adopting 3D Touch on iPhone"), checked for every item.
public enum RegionRules {
  /// Home-screen quick actions: at most four.
  public static let maxQuickActions = 4
  /// The longest item name, icon name or map name, in bytes of UTF-8 (64
  /// ASCII characters, 21 in most CJK scripts): identifiers, not text for
  /// people.
  public static let maxNameBytes = 64
  /// The longest quick-action title or subtitle, in bytes of UTF-8 (256:
  /// 85 CJK characters, a long German title four times over). Texts for
  /// people are translated, so their bound is generous; the menu wraps a
  /// long title and cuts a long subtitle (`advice`).
  public static let maxTextBytes = 256
  /// Display columns (a wide CJK character counts two) of a title before
  /// the menu wraps it past its two lines, and of a subtitle before the
  /// menu cuts it (one line).
  public static let titleColumns = 64
  public static let subtitleColumns = 32

  /// What is wrong with a name or icon name (`maxNameBytes`), or with a
  /// title or subtitle (`bytes` = `maxTextBytes`), or nil.
  public static func problem(withText text: String, bytes limit: Int = maxNameBytes) -> String? {
    let n = text.utf8.count
    if n > limit { return "is \(n) bytes long (UTF-8); at most \(limit) are allowed" }
    return nil
  }

  /// Columns `text` takes on a display: East Asian wide and full-width
  /// characters two, combining marks none, the rest one.
  public static func columns(_ text: String) -> Int {
    var n = 0
    for u in text.unicodeScalars {
      switch u.value {
      case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: continue
      case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
        0x1F900...0x1F9FF, 0x20000...0x3FFFD:
        n += 2
      default: n += 1
      }
    }
    return n
  }

  /// Verbs whose action only opens the item (English and the panel's
  /// common locales): on a peekable item, pop already does that.
  static let openVerbs: Set<String> = [
    "open", "öffnen", "ouvrir", "abrir", "apri", "openen", "öppna", "åbn", "åpne", "avaa", "otwórz", "otevřít",
    "открыть", "開く", "打开", "打開", "열기",
  ]

  /// Guidelines that are advice, not rules: the items load, and each of
  /// these is a warning. A title the menu wraps past two lines or a
  /// subtitle it cuts (`titleColumns`, `subtitleColumns`); an "Open" quick
  /// action on an item that peeks (Apple: avoid an action that opens the
  /// peeked item — pop does).
  public static func advice(_ items: [RegionItem]) -> [RegionViolation] {
    var found: [RegionViolation] = []
    for (i, item) in items.enumerated() {
      for (j, action) in item.quickActions.enumerated() {
        let wide = columns(action.title)
        if wide > titleColumns {
          found.append(
            RegionViolation(
              item: i, action: j, key: "title",
              message: "is \(wide) columns wide; the menu wraps a title onto two lines (about \(titleColumns) columns) and cuts the rest"))
        }
        if let s = action.subtitle, columns(s) > subtitleColumns {
          found.append(
            RegionViolation(
              item: i, action: j, key: "subtitle",
              message: "is \(columns(s)) columns wide; the menu cuts a subtitle to one line (about \(subtitleColumns) columns)"))
        }
        if item.peek, let verb = action.title.split(whereSeparator: \.isWhitespace).first,
          openVerbs.contains(verb.lowercased())
        {
          found.append(
            RegionViolation(
              item: i, action: j, key: "title",
              message: "\(Quote.text(action.title)) only opens \(Quote.text(item.name)), which pop already does; avoid an Open action on an item that peeks"))
        }
      }
    }
    return found
  }

  /// The map's own name (`[regions] name`): "" or a text within the limits.
  public static func check(mapName name: String) -> RegionViolation? {
    problem(withText: name).map { RegionViolation(item: -1, key: "name", message: $0) }
  }

  /// The first violation among `items` on a panel of the given size, or nil.
  public static func check(_ items: [RegionItem], panelWidth_mm w: Double, panelHeight_mm h: Double)
    -> RegionViolation?
  {
    for (i, item) in items.enumerated() {
      if let v = check(item, index: i, panelWidth_mm: w, panelHeight_mm: h) { return v }
      if let j = items[..<i].firstIndex(where: { $0.name == item.name }) {
        return RegionViolation(
          item: i, key: "name", message: "\(Quote.text(item.name)) is already the name of item[\(j + 1)]")
      }
    }
    return nil
  }

  /// The first violation of one item, or nil.
  public static func check(_ item: RegionItem, index i: Int, panelWidth_mm w: Double, panelHeight_mm h: Double)
    -> RegionViolation?
  {
    func bad(_ key: String, _ message: String, action: Int? = nil) -> RegionViolation {
      RegionViolation(item: i, action: action, key: key, message: message)
    }
    if item.name.allSatisfy(\.isWhitespace) { return bad("name", "must not be empty") }
    if let problem = problem(withText: item.name) { return bad("name", problem) }
    let named = "\(Quote.text(item.name))"
    if !(item.width_mm > 0) { return bad("width_mm", "must be greater than 0") }
    if !(item.height_mm > 0) { return bad("height_mm", "must be greater than 0") }
    if item.x_mm < 0 || item.x_mm + item.width_mm > w + 1e-9 {
      return bad("x_mm", "\(named) spans x \(item.x_mm)...\(item.x_mm + item.width_mm) mm, off the panel (0...\(w))")
    }
    if item.y_mm < 0 || item.y_mm + item.height_mm > h + 1e-9 {
      return bad("y_mm", "\(named) spans y \(item.y_mm)...\(item.y_mm + item.height_mm) mm, off the panel (0...\(h))")
    }
    if item.quickActions.count > maxQuickActions {
      return bad(
        "", "\(named) has \(item.quickActions.count) quick actions, at most \(maxQuickActions) are allowed",
        action: maxQuickActions)
    }
    for (j, action) in item.quickActions.enumerated() {
      if action.title.allSatisfy(\.isWhitespace) { return bad("title", "must not be empty", action: j) }
      if let problem = problem(withText: action.title, bytes: maxTextBytes) { return bad("title", problem, action: j) }
      if let s = action.subtitle {
        if s.allSatisfy(\.isWhitespace) { return bad("subtitle", "must not be empty when given (leave it out instead)", action: j) }
        if let problem = problem(withText: s, bytes: maxTextBytes) { return bad("subtitle", problem, action: j) }
      }
      if let s = action.icon {
        if s.allSatisfy(\.isWhitespace) { return bad("icon", "must not be empty when given (leave it out instead)", action: j) }
        if let problem = problem(withText: s) { return bad("icon", problem, action: j) }
      }
    }
    if item.peek && item.editMenu {
      return bad(
        "edit_menu", "\(named) has peek and an edit menu; an item may have one or the other (both answer a press and hold)")
    }
    if item.peek && !item.pop {
      return bad("pop", "\(named) can peek but not pop; every peek must be able to pop (set pop = true)")
    }
    if item.pop && !item.peek {
      return bad("pop", "\(named) can pop without peek; pop is the press past peek (set peek = true)")
    }
    if item.livePhoto && (item.peek || !item.quickActions.isEmpty) {
      return bad(
        "live_photo", "\(named): a Live Photo press cannot share an item with peek or quick actions (all use the firm press)")
    }
    if item.editMenu && (!item.quickActions.isEmpty || item.livePhoto) {
      let other = item.livePhoto ? "a Live Photo press" : "quick actions"
      return bad(
        "edit_menu", "\(named) has an edit menu and \(other); with force off both would need touch-and-hold")
    }
    return nil
  }
}
