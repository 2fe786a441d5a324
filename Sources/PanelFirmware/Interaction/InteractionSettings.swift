/// User sensitivity for force stages (Settings > Accessibility > 3D Touch).
public enum Sensitivity: String, Sendable, CaseIterable {
  case light, medium, firm
}

/// The board file's `[interaction]` table (CONTRACTS.md section 1).
public struct InteractionSettings: Sendable, Equatable {
  /// Newtons reported as `force` 1.0 (UITouch.force semantics).
  public var averageTouch_n = 0.8
  /// maximumPossibleForce, in normalized units.
  public var maxForce = 6.67
  /// Normalized force that enters peek at Medium sensitivity.
  public var peek = 1.33
  /// Normalized force that enters pop at Medium sensitivity.
  public var pop = 5.0
  public var sensitivity = Sensitivity.medium
  /// False: 3D Touch off, touch-and-hold fallback instead.
  public var forceTouch = true
  /// Most simultaneous touches reported.
  public var maxTouches = 10

  public init() {}

  /// The keys `[interaction]` may hold.
  public static let keys = [
    "average_touch_n", "max_force", "peek", "pop", "sensitivity", "force_touch", "max_touches",
  ]
}
