/// A quick action: what a home-screen icon press or a peek's upward swipe
/// offers (UIApplicationShortcutItem: title, optional subtitle and icon).
public struct QuickAction: Sendable, Equatable {
  public var title: String
  public var subtitle: String?
  /// An icon name the host resolves (a system or template icon).
  public var icon: String?

  public init(title: String, subtitle: String? = nil, icon: String? = nil) {
    self.title = title
    self.subtitle = subtitle
    self.icon = icon
  }
}

/// What an item responds to.
public struct ItemTraits: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// A firm press previews the item (peek) ...
  public static let peek = ItemTraits(rawValue: 1 << 0)
  /// ... and a deeper one opens it (pop).
  public static let pop = ItemTraits(rawValue: 1 << 1)
  /// It has quick actions (an icon press, a peek's upward swipe, a long press).
  public static let quickActions = ItemTraits(rawValue: 1 << 2)
  /// A firm press plays it while held (a Live Photo).
  public static let livePhoto = ItemTraits(rawValue: 1 << 3)
  /// Touch-and-hold shows an edit menu (text).
  public static let editMenu = ItemTraits(rawValue: 1 << 4)

  /// The deepest force stage a touch on such an item reaches: pop for a
  /// peekable item, peek where a firm press does something else (quick
  /// actions menu, Live Photo), none otherwise.
  public var deepestStage: Stage {
    if contains(.peek) { return .pop }
    if contains(.quickActions) || contains(.livePhoto) { return .peek }
    return .none
  }
}

/// An item the host declares on the panel: a rectangle and what it supports.
public struct RegionItem: Sendable, Equatable {
  /// Unique; stages and events name it.
  public var name: String
  /// The rectangle, in panel millimetres (origin top-left, y down).
  public var x_mm: Double
  public var y_mm: Double
  public var width_mm: Double
  public var height_mm: Double
  public var peek: Bool
  public var pop: Bool
  public var livePhoto: Bool
  public var editMenu: Bool
  /// At most four.
  public var quickActions: [QuickAction]

  public init(
    name: String, x_mm: Double, y_mm: Double, width_mm: Double, height_mm: Double,
    peek: Bool = false, pop: Bool = false, livePhoto: Bool = false, editMenu: Bool = false,
    quickActions: [QuickAction] = []
  ) {
    self.name = name
    self.x_mm = x_mm
    self.y_mm = y_mm
    self.width_mm = width_mm
    self.height_mm = height_mm
    self.peek = peek
    self.pop = pop
    self.livePhoto = livePhoto
    self.editMenu = editMenu
    self.quickActions = quickActions
  }

  public var traits: ItemTraits {
    var t: ItemTraits = []
    if peek { t.insert(.peek) }
    if pop { t.insert(.pop) }
    if livePhoto { t.insert(.livePhoto) }
    if editMenu { t.insert(.editMenu) }
    if !quickActions.isEmpty { t.insert(.quickActions) }
    return t
  }
}

/// Where a quick-action menu opens relative to its item: on the side with
/// room (below an item in the upper half, above one in the lower half),
/// aligned with the item's column (left, centre or right third).
public struct MenuPlacement: Sendable, Equatable {
  public enum Side: String, Sendable { case below, above }
  public enum Align: String, Sendable { case left, center, right }
  public var side: Side
  public var align: Align

  public init(side: Side, align: Align) {
    self.side = side
    self.align = align
  }

  /// The placement for `item` on a panel of the given size.
  public init(item: RegionItem, panelWidth_mm w: Double, panelHeight_mm h: Double) {
    let cx = item.x_mm + item.width_mm / 2
    let cy = item.y_mm + item.height_mm / 2
    side = cy < h / 2 ? .below : .above
    align = cx < w / 3 ? .left : (cx > 2 * w / 3 ? .right : .center)
  }
}
