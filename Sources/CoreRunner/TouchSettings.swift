import ForceCore
import PanelTouch

/// The touch layer's settings a script carries, by name: `touch` lines
/// (the tracker's, integers in its units) and `interaction` lines (the
/// stage machine's: a `Double` as its IEEE 754 bits, so that both sides
/// compute the stage thresholds from the same values without parsing
/// decimals). One list for writing and reading, as `Settings`.
enum TouchSettings {
  /// Calls `body` with each tracker setting's name and value; the value
  /// `body` leaves is stored back (clamped to the field's range).
  static func visit<E: Error>(_ t: inout TrackerSettings, _ body: (StaticString, inout Int64) throws(E) -> Void)
    throws(E)
  {
    func force(_ name: StaticString, _ x: inout Force_mN) throws(E) {
      var v = Wide.int64(Int(x.rawValue))
      try body(name, &v)
      x = Force_mN(rawValue: Wide.int32(v))
    }
    func length(_ name: StaticString, _ x: inout Length_um) throws(E) {
      var v = Wide.int64(Int(x.rawValue))
      try body(name, &v)
      x = Length_um(rawValue: Wide.int32(v))
    }
    func int(_ name: StaticString, _ x: inout Int) throws(E) {
      var v = Wide.int64(x)
      try body(name, &v)
      x = Wide.int(v)
    }
    func q(_ name: StaticString, _ x: inout Int32) throws(E) {
      var v = Wide.int64(Int(x))
      try body(name, &v)
      x = Wide.int32(v)
    }
    try force("touchOn", &t.touchOn)
    try int("debounce", &t.debounce)
    try force("touchOff", &t.touchOff)
    try int("releaseFrames", &t.releaseFrames)
    try length("gate", &t.gate)
    try length("moveThreshold", &t.moveThreshold)
    try q("noiseOn_Q8", &t.noiseOn_Q8)
    try q("noiseOff_Q8", &t.noiseOff_Q8)
    try length("positionTarget", &t.positionTarget)
    try int("maxTouches", &t.maxTouches)
    try int("invalidLimit", &t.invalidLimit)
  }

  /// Calls `body` with each interaction setting's name and value (a
  /// `Double`'s bits; `sensitivity` 0 light, 1 medium, 2 firm;
  /// `forceTouch` 0 or 1); the value `body` leaves is stored back.
  static func visit<E: Error>(_ s: inout InteractionSettings, _ body: (StaticString, inout Int64) throws(E) -> Void)
    throws(E)
  {
    func real(_ name: StaticString, _ x: inout Double) throws(E) {
      var v = Int64(bitPattern: x.bitPattern)
      try body(name, &v)
      x = Double(bitPattern: UInt64(bitPattern: v))
    }
    try real("averageTouch_n", &s.averageTouch_n)
    try real("maxForce", &s.maxForce)
    try real("hint", &s.hint)
    try real("peek", &s.peek)
    try real("pop", &s.pop)
    try real("exitRatio", &s.exitRatio)
    try real("stageHold_ms", &s.stageHold_ms)
    try real("dragSlop_mm", &s.dragSlop_mm)
    try real("swipeUp_mm", &s.swipeUp_mm)
    try real("longPress_s", &s.longPress_s)
    try real("longPressSlop_mm", &s.longPressSlop_mm)
    var sensitivity: Int64 = TouchSettings.code(s.sensitivity)
    try body("sensitivity", &sensitivity)
    s.sensitivity = TouchSettings.sensitivity(sensitivity) ?? s.sensitivity
    var force: Int64 = s.forceTouch ? 1 : 0
    try body("forceTouch", &force)
    s.forceTouch = force != 0
    var touches = Wide.int64(s.maxTouches)
    try body("maxTouches", &touches)
    s.maxTouches = Wide.int(touches)
  }

  /// A sensitivity's number in a script (and back; nil for none).
  static func code(_ s: Sensitivity) -> Int64 {
    switch s {
    case .light: return 0
    case .medium: return 1
    case .firm: return 2
    }
  }

  static func sensitivity(_ code: Int64) -> Sensitivity? {
    switch code {
    case 0: return .light
    case 1: return .medium
    case 2: return .firm
    default: return nil
    }
  }

  /// The tracker's settings before a script's `touch` lines (they give
  /// every one: `panelctl core export` writes them all).
  static var standard: TrackerSettings {
    TrackerSettings(
      touchOn: Force_mN(rawValue: 81920), debounce: 2, touchOff: Force_mN(rawValue: 51200), releaseFrames: 2,
      gate: Length_um(rawValue: 30000), moveThreshold: Length_um(rawValue: 500), noiseOn_Q8: 1152, noiseOff_Q8: 768,
      positionTarget: Length_um(rawValue: 250), maxTouches: 10, invalidLimit: 32)
  }
}
