import ForceCore

/// A touch's force stage (CONTRACTS.md section 4).
public enum Stage: UInt8, Sendable, Equatable, Comparable, CaseIterable {
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
public enum EventKind: UInt8, Sendable, Equatable, CaseIterable {
  case peek, pop, peekCancelled, longPress

  public var name: StaticString {
    switch self {
    case .peek: return "peek"
    case .pop: return "pop"
    case .peekCancelled: return "peek_cancelled"
    case .longPress: return "long_press"
    }
  }
}

/// One event of a frame, about one touch.
public struct TouchEvent: Sendable, Equatable {
  public var kind: EventKind
  public var touch: UInt32
  public init(kind: EventKind, touch: UInt32) {
    self.kind = kind
    self.touch = touch
  }
  static let none = TouchEvent(kind: .peek, touch: 0)
}

/// One touch in a frame's report.
public struct TouchReport: Sendable, Equatable {
  public var touch: TrackedTouch
  public var stage: Stage
  public init(touch: TrackedTouch, stage: Stage = .none) {
    self.touch = touch
    self.stage = stage
  }
  static let none = TouchReport(touch: .none)
}

/// Everything one frame produced for the sinks. Fixed capacity, reused
/// from frame to frame.
public struct FrameReport: Sendable {
  public var time = Time_us(rawValue: 0)
  /// Frames since the stream started (0-based).
  public var frame: UInt64 = 0
  public private(set) var touchCount = 0
  public private(set) var eventCount = 0
  var touchStorage: InlineArray<16, TouchReport> = InlineArray(repeating: .none)
  var eventStorage: InlineArray<32, TouchEvent> = InlineArray(repeating: .none)

  public init() {}

  /// Whether the frame has nothing to say (idle frames are not written).
  public var isEmpty: Bool { touchCount == 0 && eventCount == 0 }

  public func touch(_ i: Int) -> TouchReport { touchStorage[i] }
  public func event(_ i: Int) -> TouchEvent { eventStorage[i] }

  public mutating func removeAll() {
    touchCount = 0
    eventCount = 0
  }

  public mutating func append(_ touch: TouchReport) {
    guard touchCount < 16 else { return }
    touchStorage[touchCount] = touch
    touchCount += 1
  }

  public mutating func setStage(_ stage: Stage, at i: Int) { touchStorage[i].stage = stage }

  public mutating func append(_ event: TouchEvent) {
    guard eventCount < 32 else { return }
    eventStorage[eventCount] = event
    eventCount += 1
  }
}
