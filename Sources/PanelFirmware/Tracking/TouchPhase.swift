/// UITouch phases, as the report stream names them.
public enum TouchPhase: UInt8, Sendable, Equatable, CaseIterable {
  case began, moved, stationary, ended, cancelled

  /// The name in the report stream (CONTRACTS.md section 4).
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
