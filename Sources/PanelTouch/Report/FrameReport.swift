import ForceCore

/// A touch's force stage (docs/formats.md).
public enum Stage: UInt8, Sendable, Equatable, Comparable {
  case none, hint, peek, pop

  public var name: StaticString {
    switch self {
    case .none: return "none"
    case .hint: return "hint"
    case .peek: return "peek"
    case .pop: return "pop"
    }
  }

  public static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
}

/// What an interaction event is.
public enum EventKind: UInt8, Sendable, Equatable {
  /// Entered peek (the item's preview shows while the finger stays down).
  case peek
  /// Entered pop (commit: open the item).
  case pop
  /// Lifted (or cancelled) while peeking: dismiss the preview.
  case peekCancelled
  /// Touch-and-hold, the fallback when force is off or unavailable: offer
  /// what a firm press would (the item's quick actions, its preview).
  case longPress
  /// Show the item's quick actions: a firm press on an item without peek
  /// (a home-screen icon), or an upward swipe while peeking.
  case quickActions
  /// A firm press on a Live Photo: play it while held ...
  case livePhoto
  /// ... until the finger lifts.
  case livePhotoEnd
  /// Touch-and-hold on an item with an edit menu.
  case editMenu
  /// Panel event (touch 0): force capability is announced or changed.
  case capability
  /// Panel event (touch 0): the sensitivity changed.
  case sensitivity
  /// Panel event (touch 0): the regions were replaced.
  case regions
  /// Lifted (or force lost) after the quick actions were revealed from
  /// peek: the preview stays with its actions until the user picks one or
  /// dismisses it on the host; nothing is cancelled.
  case peekActionsKept

  public var name: StaticString {
    switch self {
    case .peek: return "peek"
    case .pop: return "pop"
    case .peekCancelled: return "peek_cancelled"
    case .longPress: return "long_press"
    case .quickActions: return "quick_actions"
    case .livePhoto: return "live_photo"
    case .livePhotoEnd: return "live_photo_end"
    case .editMenu: return "edit_menu"
    case .capability: return "capability"
    case .sensitivity: return "sensitivity"
    case .regions: return "regions"
    case .peekActionsKept: return "peek_actions_kept"
    }
  }

  /// Whether the event is about the panel rather than one touch.
  public var isPanelEvent: Bool { self == .capability || self == .sensitivity || self == .regions }

  /// Whether the event offers the item's quick actions.
  public var carriesActions: Bool { self == .quickActions || self == .longPress }
}

// `allCases` is an array: not on a microcontroller.
#if !hasFeature(Embedded)
  extension Stage: CaseIterable {}
  extension EventKind: CaseIterable {}
#endif

/// What raised a `quick_actions` event.
public enum ActionsOrigin: UInt8, Sendable, Equatable {
  /// A firm press on an item without peek: a menu beside the item.
  case press
  /// An upward swipe while peeking: actions under the preview.
  case peek

  public var name: StaticString { self == .press ? "press" : "peek" }
}

/// One event of a frame, about one touch (or, with touch 0, the panel).
public struct TouchEvent: Sendable, Equatable {
  public var kind: EventKind
  public var touch: UInt32
  /// The item under the touch (RegionMap index), -1 for none.
  public var item: Int16
  /// For `quick_actions`: what raised it.
  public var origin: ActionsOrigin
  public init(kind: EventKind, touch: UInt32, item: Int16 = -1, origin: ActionsOrigin = .press) {
    self.kind = kind
    self.touch = touch
    self.item = item
    self.origin = origin
  }
  static let none = TouchEvent(kind: .peek, touch: 0)
}

/// One touch in a frame's report.
public struct TouchReport: Sendable, Equatable {
  public var touch: TrackedTouch
  public var stage: Stage
  /// Progress toward the touch's next stage, 0...1000 thousandths (like
  /// UIPreviewInteraction's transition progress and NSEvent's
  /// stageTransition); for touch-and-hold, the fraction of the hold time.
  public var progress_milli: UInt16
  /// The item under the touch (RegionMap index), -1 for none.
  public var item: Int16
  /// The position rests on an estimate: a cell it depends on reads no
  /// measurement (`FailedCellEstimate`).
  public var degraded: Bool
  public init(
    touch: TrackedTouch, stage: Stage = .none, progress_milli: UInt16 = 0, item: Int16 = -1, degraded: Bool = false
  ) {
    self.touch = touch
    self.stage = stage
    self.progress_milli = progress_milli
    self.item = item
    self.degraded = degraded
  }
  static let none = TouchReport(touch: .none)
}

/// Everything one frame produced for the sinks. Fixed capacity, reused
/// from frame to frame.
///
/// Read it where it lives: `inout` (as the encoders take it) or in a `var`.
/// Reading an element of its fixed-capacity storage through a borrowed
/// report (a parameter, a `let`, a class's property passed as an argument)
/// makes Swift copy the whole storage first, up to the whole report.
public struct FrameReport: Sendable {
  /// Most events in one frame.
  public static let eventCapacity = 32

  public var time = Time_us(rawValue: 0)
  /// Frames since the stream started (0-based).
  public var frame: UInt64 = 0
  public private(set) var touchCount = 0
  public private(set) var eventCount = 0
  /// Whether force is available, unavailable or switched off.
  public var capability = ForceCapability.available
  /// The sensitivity in effect.
  public var sensitivity = Sensitivity.medium
  /// The items the report's `item` indices refer to (replaced only when
  /// the host replaces them).
  public var regions = RegionMap.whole(panelWidth_mm: 0, panelHeight_mm: 0)
  @usableFromInline var touchStorage: TouchArray<TouchReport> = TouchArray(repeating: .none)
  @usableFromInline var eventStorage: InlineArray<32, TouchEvent> = InlineArray(repeating: .none)

  public init() {}

  /// Whether the frame has nothing to say (idle frames are not written).
  public var isEmpty: Bool { touchCount == 0 && eventCount == 0 }

  /// The `i`-th touch. Inlinable, so that it reads in place from other
  /// modules too (an out-of-line accessor gets the report borrowed and
  /// copies the storage).
  #if hasFeature(Embedded)
    // No coroutines with -no-allocations.
    @inlinable public subscript(touch i: Int) -> TouchReport { touchStorage[i] }
    @inlinable public subscript(event i: Int) -> TouchEvent { eventStorage[i] }
  #else
    @inlinable public subscript(touch i: Int) -> TouchReport { _read { yield touchStorage[i] } }
    /// The `i`-th event (see `subscript(touch:)`).
    @inlinable public subscript(event i: Int) -> TouchEvent { _read { yield eventStorage[i] } }
  #endif

  public mutating func removeAll() {
    touchCount = 0
    eventCount = 0
  }

  public mutating func append(_ touch: TouchReport) {
    guard touchCount < Capacity.contacts else { return }
    touchStorage[touchCount] = touch
    touchCount += 1
  }

  /// Sets what the interaction layer found for touch `i`.
  @inline(__always)
  public mutating func setInteraction(stage: Stage, progress_milli: UInt16, item: Int16, at i: Int) {
    touchStorage[i].stage = stage
    touchStorage[i].progress_milli = progress_milli
    touchStorage[i].item = item
  }

  /// Flags touch `i`'s position as an estimate.
  @inline(__always)
  public mutating func setDegraded(at i: Int) {
    touchStorage[i].degraded = true
  }

  public mutating func append(_ event: TouchEvent) {
    guard eventCount < FrameReport.eventCapacity else { return }
    eventStorage[eventCount] = event
    eventCount += 1
  }
}
