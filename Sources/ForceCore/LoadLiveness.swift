/// Whether the load on the panel is a finger or a parked object, from its
/// force: a finger's force is never still (tremor and small changes of
/// press, a few percent of the force, most of them between 0.5 and 15 Hz;
/// models-web-factory.md §2.1), a parked object's only carries the cells'
/// noise (and its creep and the panel's drift, far below 0.5 Hz).
///
/// The touched load's force (the contacts that hold the touch, summed) is
/// band-passed (a fast first-order average, a ~15 Hz low-pass, minus a
/// slow one, ~1 Hz: creep, drift and the press's own slow changes stay
/// out) and the band's power averaged over half a second; a frame is
/// *still* while that power is within what the contacts' own noise puts
/// in the band (their noise's variance times the band's gain on white
/// noise, times `noiseMargin2`: half a second holds some 20 independent
/// samples of the band, so noise alone stays well inside twice its RMS)
/// plus the force over 128, squared (what a load's own changes may
/// leave). A frame's power counts at most 8 times the limit, so a
/// landing or a tap is forgotten within a second or so.
/// Each still frame counts one toward absorbing the load, each live frame
/// one against (never below zero): a parked object reaches the maximum
/// on-time about that long after it was set down (its landing and taps
/// beside it count against it for a second or two each), a held finger
/// never does.
///
/// Allocation-free; its work per frame is a few integer operations.
public struct LoadLiveness: Sendable {
  /// The band's averages, force in mN Q18 (Q10 and 8 bits of fraction).
  var fast: Int64 = 0
  var slow: Int64 = 0
  /// The band's power, averaged, mN^2 Q20.
  public private(set) var power: Int64 = 0
  /// Still frames counted toward absorbing the load, less the live ones.
  public private(set) var stillFrames: Int32 = 0
  var primed = false
  let fastShift: Int
  let slowShift: Int
  let powerShift: Int
  /// The band's power gain on white noise, Q16.
  let noiseGain_Q16: Int64

  /// A still load's band power may reach its noise's times this squared.
  static let noiseMargin2: Int64 = 4
  /// ... plus the force shifted right by this (over 128), squared.
  static let relativeShift = 7

  public init(_ c: CoreConfiguration) {
    fastShift = LoadLiveness.shift(c, hz: 15)
    slowShift = max(fastShift + 1, LoadLiveness.shift(c, hz: 1))
    powerShift = max(0, BaselineRules.shift(frames: c.frames(500)))
    noiseGain_Q16 = LoadLiveness.noiseGain_Q16(fast: fastShift, slow: slowShift)
  }

  /// The shift of a first-order average whose corner is nearest `hz` at
  /// the configured frame rate (its time constant 1 / (2 pi hz)).
  static func shift(_ c: CoreConfiguration, hz: Double) -> Int {
    let frames = Double(max(c.frameRate_hz, 1)) / (2 * Double.pi * hz)
    return max(0, BaselineRules.shift(frames: Int(frames.rounded())))
  }

  /// The variance of (average at 2^-f) - (average at 2^-s) of unit white
  /// noise, Q16: a/(2-a) + b/(2-b) - 2ab/(a+b-ab).
  static func noiseGain_Q16(fast: Int, slow: Int) -> Int64 {
    let a = 1 / Double(1 << fast)
    let b = 1 / Double(1 << slow)
    let gain = a / (2 - a) + b / (2 - b) - 2 * a * b / (a + b - a * b)
    return Int64((gain * 65536).rounded())
  }

  /// No load: the next one starts afresh.
  public mutating func reset() {
    primed = false
    power = 0
    stillFrames = 0
  }

  /// One frame of a touched load: its force (mN Q10) and the variance of
  /// its noise (mN^2 Q20). Returns the still frames counted so far.
  @inline(__always)
  public mutating func observe(force: Int64, noiseVariance: Int64) -> Int32 {
    let x = force &<< 8
    if !primed {
      primed = true
      fast = x
      slow = x
    }
    fast &+= (x &- fast) &>> Int64(fastShift)
    slow &+= (x &- slow) &>> Int64(slowShift)
    let band = (fast &- slow) &>> 8
    let relative = force &>> Int64(LoadLiveness.relativeShift)
    let noise = (noiseVariance &* noiseGain_Q16) &>> 16
    let limit = noise &* LoadLiveness.noiseMargin2 &+ relative &* relative
    let ceiling = limit &* 8
    let squared = band.magnitude >= 0x8000_0000 ? ceiling : min(band &* band, ceiling)
    power &+= (squared &- power) &>> Int64(powerShift)
    if power <= limit {
      stillFrames &+= 1
    } else if stillFrames > 0 {
      stillFrames &-= 1
    }
    return stillFrames
  }
}

extension LoadLiveness {
  /// The variance of contact `c`'s force from the cells' noise (mN^2
  /// Q20): the noise of the force it is detected by (a plate's total, a
  /// grid's 3 x 3 cells) over the cells its force sums (at least 9), times
  /// the capture scale (Q16) its force is scaled by.
  @inline(__always)
  public static func variance(of c: Contact, captureScale_Q16: Int32) -> Int64 {
    let sigma = (Int64(c.noise.rawValue) &* Int64(max(captureScale_Q16, 65536))) &>> 16
    let cells = Int64(max(c.cellCount, 9))
    return (sigma &* sigma &* cells) / 9
  }
}
