/// UITouch phases, as the report stream names them.
public enum TouchPhase: UInt8, Sendable, Equatable {
  case began, moved, stationary, ended, cancelled

  /// The name in the report stream (docs/formats.md).
  public var name: StaticString {
    switch self {
    case .began: return "began"
    case .moved: return "moved"
    case .stationary: return "stationary"
    case .ended: return "ended"
    case .cancelled: return "cancelled"
    }
  }

  /// Whether this is the touch's last report.
  public var isFinal: Bool { self == .ended || self == .cancelled }
}

/// Why a touch was cancelled rather than ended: its finger did not lift.
public enum CancelReason: UInt8, Sendable, Equatable {
  case none
  /// Its contact merged with another touch's (fingers closer than the
  /// panel can tell apart): that touch carries both from here.
  case merged
  /// A load held past `max_on_s` became the new zero.
  case loadAbsorbed
  /// The front end kept delivering invalid frames.
  case frontEnd
  /// The stream ended with the touch down.
  case streamEnd

  /// The name in the report stream (`reason` of a cancelled touch).
  public var name: StaticString {
    switch self {
    case .none: return "none"
    case .merged: return "merged"
    case .loadAbsorbed: return "load_absorbed"
    case .frontEnd: return "front_end"
    case .streamEnd: return "stream_end"
    }
  }
}

// `allCases` is an array: not on a microcontroller (Embedded Swift,
// -no-allocations).
#if !hasFeature(Embedded)
  extension TouchPhase: CaseIterable {}
  extension CancelReason: CaseIterable {}
#endif
