import ForceCore

/// The forces, in Q21.10 millinewtons, at which each stage is entered and
/// left: the board's normalized thresholds times the average touch, scaled
/// by the sensitivity. Exit = entry x `exitRatio` (hysteresis).
public struct StageThresholds: Sendable, Equatable {
  public var hintOn: Int32
  public var hintOff: Int32
  public var peekOn: Int32
  public var peekOff: Int32
  public var popOn: Int32
  public var popOff: Int32
  /// The sensitivity these thresholds are for.
  public let sensitivity: Sensitivity

  public init(settings s: InteractionSettings, sensitivity: Sensitivity) {
    self.sensitivity = sensitivity
    let unit = s.averageTouch_n * sensitivity.factor
    func raw(_ normalized: Double) -> Int32 { Force_mN(newtons: normalized * unit).rawValue }
    hintOn = raw(s.hint)
    peekOn = raw(s.peek)
    popOn = raw(s.pop)
    hintOff = raw(s.hint * s.exitRatio)
    peekOff = raw(s.peek * s.exitRatio)
    popOff = raw(s.pop * s.exitRatio)
  }

  /// Entry force of `stage` (0 for `.none`).
  @inline(__always)
  public func on(_ stage: Stage) -> Int32 {
    switch stage {
    case .none: return 0
    case .hint: return hintOn
    case .peek: return peekOn
    case .pop: return popOn
    }
  }
}
