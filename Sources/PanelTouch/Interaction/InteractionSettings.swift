import ForceCore

/// User sensitivity for force stages (Settings > Accessibility > 3D Touch).
public enum Sensitivity: Sendable {
  case light, medium, firm

  /// How the stage thresholds scale: Firm needs 1.2 times the force of
  /// Medium (iPhone's normalized force tops out at 0.833 of its range with
  /// Firm), Light 0.83 times (mirrored).
  public var factor: Double {
    switch self {
    case .light: return 0.83
    case .medium: return 1
    case .firm: return 1.2
    }
  }

  public var name: StaticString {
    switch self {
    case .light: return "light"
    case .medium: return "medium"
    case .firm: return "firm"
    }
  }
}

// Its name as a board file and the control channel spell it: String
// comparison and `allCases` need the heap, so not on a microcontroller
// (Embedded Swift, -no-allocations), which sets it directly.
#if !hasFeature(Embedded)
  extension Sensitivity: RawRepresentable, CaseIterable {
    public init?(rawValue: String) {
      switch rawValue {
      case "light": self = .light
      case "medium": self = .medium
      case "firm": self = .firm
      default: return nil
      }
    }

    public var rawValue: String {
      switch self {
      case .light: return "light"
      case .medium: return "medium"
      case .firm: return "firm"
      }
    }
  }
#endif

/// The board file's `[interaction]` table (docs/formats.md).
public struct InteractionSettings: Sendable, Equatable {
  /// Newtons reported as `force` 1.0 (UITouch.force semantics).
  public var averageTouch_n = 0.8
  /// maximumPossibleForce, in normalized units.
  public var maxForce = 6.67
  /// Normalized force that enters hint at Medium sensitivity: above an
  /// ordinary touch (1.0), below peek, so that taps never hint. At other
  /// sensitivities hint keeps its place between the two (`StageThresholds`).
  public var hint = 1.1
  /// Normalized force that enters peek at Medium sensitivity.
  public var peek = 1.33
  /// Normalized force that enters pop at Medium sensitivity.
  public var pop = 5.0
  /// A stage is left below this fraction of its entry force (hysteresis;
  /// libinput's 10/12).
  public var exitRatio = 0.83
  /// A stage commits once its force has held this long.
  public var stageHold_ms = 5.0
  /// Moving farther than this from the touch-down point before peek makes
  /// the touch a drag: no deep stages until it lifts.
  public var dragSlop_mm = 3.0
  /// While peeking, moving up this far reveals the item's quick actions.
  public var swipeUp_mm = 10.0
  /// Touch-and-hold: this long ...
  public var longPress_s = 0.5
  /// ... within this distance of the touch-down point (10 pt at 163 pt/inch).
  public var longPressSlop_mm = 1.6
  public var sensitivity = Sensitivity.medium
  /// False: 3D Touch off, touch-and-hold fallback instead.
  public var forceTouch = true
  /// Most simultaneous touches reported.
  public var maxTouches = 10

  public init() {}

  /// Frames a stage's force must hold before it commits, at `rate_hz`:
  /// `stageHold_ms` rounded up to whole frames, at least one.
  public func holdFrames(rate_hz: Int) -> Int {
    let frames = (stageHold_ms * Double(rate_hz) / 1000).rounded(.up)
    return Int(max(1, min(1000, Saturating.int64(rounding: frames))))
  }
}
