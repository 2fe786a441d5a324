// The host's declarations: texts and lists, so not on a microcontroller
// (Embedded Swift, -no-allocations), where `RegionMap` holds a fixed
// table of rectangles and traits instead.
#if !hasFeature(Embedded)
  /// A quick action: what a home-screen icon press or a peek's upward swipe
  /// offers (UIApplicationShortcutItem: title, optional subtitle and icon).
  public struct QuickAction: Sendable {
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

  /// An item the host declares on the panel: a rectangle and what it supports.
  public struct RegionItem: Sendable {
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
      var t = ItemTraits()
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
    public enum Side: Sendable { case below, above }
    public enum Align: Sendable { case left, center, right }
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

    extension QuickAction: Equatable {}
    extension RegionItem: Equatable {}

    extension MenuPlacement.Side: RawRepresentable {
      public init?(rawValue: String) {
        switch rawValue {
        case "below": self = .below
        case "above": self = .above
        default: return nil
        }
      }

      public var rawValue: String {
        switch self {
        case .below: return "below"
        case .above: return "above"
        }
      }
    }

    extension MenuPlacement.Align: RawRepresentable {
      public init?(rawValue: String) {
        switch rawValue {
        case "left": self = .left
        case "center": self = .center
        case "right": self = .right
        default: return nil
        }
      }

      public var rawValue: String {
        switch self {
        case .left: return "left"
        case .center: return "center"
        case .right: return "right"
        }
      }
    }
#endif
