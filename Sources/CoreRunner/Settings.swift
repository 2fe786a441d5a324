import ForceCore

/// The settings of `CoreConfiguration` a script carries, by name: one list
/// for writing and reading, so the two cannot drift apart. A setting added
/// to the core belongs here too (the host test that compares a script's
/// run with the board's pipeline fails until it is).
enum Settings {
  /// Calls `body` with each setting's name and value(s) (a table's
  /// entries in order); the values `body` leaves are stored back (integers
  /// beyond the platform's `Int` clamped).
  static func visit<E: Error>(
    _ c: inout CoreConfiguration, _ body: (StaticString, inout SettingValues) throws(E) -> Void
  ) throws(E) {
    var v = SettingValues()
    func int(_ name: StaticString, _ x: inout Int) throws(E) {
      v.set(Wide.int64(x))
      try body(name, &v)
      x = Wide.int(v[0])
    }
    func force(_ name: StaticString, _ x: inout Force_mN) throws(E) {
      v.set(Wide.int64(Int(x.rawValue)))
      try body(name, &v)
      x = Force_mN(rawValue: Wide.int32(v[0]))
    }
    func q(_ name: StaticString, _ x: inout Int32) throws(E) {
      v.set(Wide.int64(Int(x)))
      try body(name, &v)
      x = Wide.int32(v[0])
    }
    func table(_ name: StaticString, _ n: Int, _ get: (Int) -> Int32, _ set: (Int, Int32) -> Void) throws(E) {
      v.count = n
      for i in 0..<n { v[i] = Wide.int64(Int(get(i))) }
      try body(name, &v)
      for i in 0..<n { set(i, Wide.int32(v[i])) }
    }
    try int("frameRate_hz", &c.frameRate_hz)
    try force("touchOn", &c.touchOn)
    try force("touchOff", &c.touchOff)
    try int("debounceOn", &c.debounceOn)
    try int("debounceOff", &c.debounceOff)
    try int("seedFrames", &c.seedFrames)
    try int("driftUp_ms", &c.driftUp_ms)
    try int("driftMin_ms", &c.driftMin_ms)
    try int("driftDown_ms", &c.driftDown_ms)
    try int("holdAfterRelease_ms", &c.holdAfterRelease_ms)
    try force("reseedLevel", &c.reseedLevel)
    try int("reseedFrames", &c.reseedFrames)
    try int("maxOn_ms", &c.maxOn_ms)
    var spike = c.spikeFilter ? 1 : 0
    try int("spikeFilter", &spike)
    c.spikeFilter = spike != 0
    try force("cellFloor", &c.cellFloor)
    try q("mergeSaddle_Q8", &c.mergeSaddle_Q8)
    try q("mergeDipNoise_Q8", &c.mergeDipNoise_Q8)
    var spreading = c.spreading_Q16
    try table("spreading_Q16", 13, { spreading[$0] }, { spreading[$0] = $1 })
    c.spreading_Q16 = spreading
    var interpolation: Int
    switch c.interpolation {
    case .centroid: interpolation = 0
    case .parabolic: interpolation = 1
    case .gaussian: interpolation = 2
    }
    try int("interpolation", &interpolation)
    c.interpolation = interpolation == 0 ? .centroid : interpolation == 1 ? .parabolic : .gaussian
    var bias = c.interpolationBias
    try table("interpolationBias", 17, { bias[$0] }, { bias[$0] = $1 })
    c.interpolationBias = bias
    try int("maxContacts", &c.maxContacts)
    try q("noiseOn_Q8", &c.noiseOn_Q8)
    try q("noiseOff_Q8", &c.noiseOff_Q8)
    try q("noiseFloor_Q8", &c.noiseFloor_Q8)
    try q("noiseReseed_Q8", &c.noiseReseed_Q8)
    try int("noiseWindow_ms", &c.noiseWindow_ms)
    try int("contactRadius", &c.contactRadius)
    try q("captureScale_Q16", &c.captureScale_Q16)
    try q("captureSlope_Q16", &c.captureSlope_Q16)
    try force("maxStep", &c.maxStep)
    // The learnt response's tables do not fit a script line: the script
    // says only whether the panel has one (1), and the core it runs keeps
    // the window sum (docs/formats.md, the core script).
    var response = c.response.isEmpty ? 0 : 1
    try int("response", &response)
    if response == 0 { c.response = ResponseTable() }
  }
}

/// A setting's value: one integer, or a table's entries.
struct SettingValues {
  /// Entries at most (the longest table, `interpolationBias`).
  static let capacity = 17
  var values: InlineArray<17, Int64> = InlineArray(repeating: 0)
  var count = 1

  subscript(i: Int) -> Int64 {
    get { values[i] }
    set { values[i] = newValue }
  }

  /// One value.
  mutating func set(_ value: Int64) {
    values[0] = value
    count = 1
  }
}

/// Conversions between `Int`, `Int32` and `Int64` that work on 32-bit
/// targets without the standard library's generic conversions (which
/// Embedded Swift's -no-allocations refuses there; see ForceCore's
/// Integers32.swift).
enum Wide {
  @inline(__always)
  static func int64(_ x: Int) -> Int64 {
    let bits = Int64(_truncatingBits: UInt(bitPattern: x))
    #if _pointerBitWidth(_32)
      return (bits &<< 32) &>> 32
    #else
      return bits
    #endif
  }

  /// `x` clamped to `Int`.
  @inline(__always)
  static func int(_ x: Int64) -> Int {
    if x > int64(Int.max) { return Int.max }
    if x < int64(Int.min) { return Int.min }
    return Int(truncatingIfNeeded: x)
  }

  /// `x` clamped to `Int32`.
  @inline(__always)
  static func int32(_ x: Int64) -> Int32 {
    if x > 0x7FFF_FFFF { return Int32.max }
    if x < -0x8000_0000 { return Int32.min }
    return Int32(truncatingIfNeeded: x)
  }
}
