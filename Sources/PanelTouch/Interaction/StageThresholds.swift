import ForceCore

/// The forces, in Q21.10 millinewtons, at which each stage is entered and
/// left: the board's normalized thresholds times the average touch, peek
/// and pop scaled by the sensitivity. Hint sits above an ordinary touch
/// (1.0, which no sensitivity changes) and below peek, at the same fraction
/// of the way between them at every sensitivity: a tap never hints, and a
/// host that blurs on hint does not flash on every tap. Exit = entry x
/// `exitRatio` (hysteresis).
public struct StageThresholds: Sendable, Equatable {
  /// Half an average touch (scaled by the sensitivity, with the stages'
  /// hysteresis): from this force on a touch's position is confident
  /// enough to measure a drag from (a contact's position error grows as
  /// 1/force).
  public var anchor: Int32
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
    let peek = s.peek * sensitivity.factor
    // Hint's place between an average touch and peek (board files keep
    // 1 < hint < peek; other settings get hint at the board's value).
    let place = s.peek > 1 && s.hint > 1 ? (s.hint - 1) / (s.peek - 1) : nil
    let hint = place.map { 1 + $0 * (peek - 1) } ?? s.hint * sensitivity.factor
    anchor = raw(0.5 * s.exitRatio)
    hintOn = Force_mN(newtons: hint * s.averageTouch_n).rawValue
    peekOn = raw(s.peek)
    popOn = raw(s.pop)
    hintOff = Force_mN(newtons: hint * s.exitRatio * s.averageTouch_n).rawValue
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
