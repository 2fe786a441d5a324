/// What an item responds to: an option set (`OptionSet` where there is a
/// heap; on a microcontroller, whose Embedded Swift build refuses the array
/// literals `OptionSet` brings, the operations the frame path uses).
public struct ItemTraits: Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// No traits.
  public init() { rawValue = 0 }

  /// Whether every trait of `member` is here.
  @inline(__always)
  public func contains(_ member: ItemTraits) -> Bool { rawValue & member.rawValue == member.rawValue }

  /// The traits of both.
  @inline(__always)
  public func union(_ other: ItemTraits) -> ItemTraits { ItemTraits(rawValue: rawValue | other.rawValue) }

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

#if !hasFeature(Embedded)
  extension ItemTraits: OptionSet {}
#endif
