/// One cell's calibration, in the fixed-point formats the frame path uses.
///
/// The model, with `d` the cell's delta from its baseline in counts and
/// `dT` the panel temperature minus `referenceTemperature`:
///
///     zero(T)   = baseline + tcZero * dT                 counts
///     gain(T)   = gain * (1 + tcSpan * dT)               counts per newton
///     F1        = d / gain(T)                            newtons
///     F         = F1 * (1 + linearity * F1)              newtons
///
/// `linearity` is the quadratic coefficient per newton: a cell that reads
/// 3 % low at 10 N has `linearity` = 0.003. Built from `Double`s once, at
/// setup; `force(delta:)` uses only integer arithmetic.
public struct CellCalibration: Sendable {
  /// Factory zero in counts, Q47.16 (the raw output with no load).
  public var offset: Counts_Q16
  /// Millinewtons per count at the reference temperature, Q23.40.
  public var scale_Q40: Int64
  /// Quadratic linearity coefficient per millinewton, Q3.60.
  public var linearity_Q60: Int64
  /// |F1| in mN Q20 below which the quadratic term is skipped (it is then
  /// under 1/8 LSB of the result): the common case of an untouched cell.
  public var linearSkip_Q20: Int64
  /// Zero drift in counts per degC, Q31.32.
  public var tcZero_Q32: Int64
  /// Relative sensitivity change per degC, Q33.30.
  public var tcSpan_Q30: Int64
  /// The temperature the other parameters refer to.
  public var referenceTemperature: Temperature_C

  /// - Parameters:
  ///   - offset: counts with no load.
  ///   - gain: counts per newton (non-zero; negative for a cell wired in reverse).
  ///   - linearity: quadratic coefficient per newton (see the type's model).
  ///   - tcZero: counts per degC.
  ///   - tcSpan: relative change of `gain` per degC.
  ///   - referenceTemperature: degC at which `offset` and `gain` hold.
  public init(
    offset: Double, gain: Double, linearity: Double = 0, tcZero: Double = 0,
    tcSpan: Double = 0, referenceTemperature: Double = 25
  ) {
    self.offset = Counts_Q16(counts: offset)
    let g = gain == 0 ? 1 : gain
    self.scale_Q40 = CellCalibration.fixed(1000 / g, 40)
    // Below this |F1| the quadratic term is under 1/8 LSB: skip it.
    let q = abs(linearity / 1000)  // per mN
    self.linearSkip_Q20 = q == 0 ? Int64.max : CellCalibration.fixed((0.125 / 1024 / q).squareRoot(), 20)
    self.linearity_Q60 = CellCalibration.fixed(linearity / 1000, 60)
    self.tcZero_Q32 = CellCalibration.fixed(tcZero, 32)
    self.tcSpan_Q30 = CellCalibration.fixed(tcSpan, 30)
    self.referenceTemperature = Temperature_C(celsius: referenceTemperature)
  }

  /// The identity calibration: 1 count = 1 mN, no corrections.
  public static let unity = CellCalibration(offset: 0, gain: 1000)

  static func fixed(_ value: Double, _ fractionBits: Int) -> Int64 {
    let scaled = value * Double(sign: .plus, exponent: fractionBits, significand: 1)
    if !(scaled == scaled) { return 0 }
    if scaled >= 9.2e18 { return Int64.max }
    if scaled <= -9.2e18 { return Int64.min }
    return Int64(scaled.rounded())
  }

  /// The stored parameters as `Double`s (for reference arithmetic and files).
  public var gain: Double { 1000 / (Double(scale_Q40) / 1_099_511_627_776.0) }
  public var linearity: Double { Double(linearity_Q60) / 1_152_921_504_606_846_976.0 * 1000 }
  public var tcZero: Double { Double(tcZero_Q32) / 4_294_967_296.0 }
  public var tcSpan: Double { Double(tcSpan_Q30) / 1_073_741_824.0 }
}

/// Everything the frame path needs to turn one cell's delta into force at
/// the current temperature: the zero shift, the temperature-corrected scale
/// and the linearity term. Derived from a `CellCalibration` whenever the
/// panel temperature changes.
public struct CellConversion: Sendable {
  /// Counts added to the baseline at this temperature, Q47.16.
  public var zeroShift: Counts_Q16
  /// The scale and the linear forces the quadratic term is skipped for:
  /// what the frame path reads of every cell (`ForcePipeline` keeps a
  /// copy of it beside the cell's filter).
  var linear = LinearForce()
  /// Millinewtons per count at this temperature, Q23.40.
  public var scale_Q40: Int64 {
    get { linear.scale_Q40 }
    set { linear.scale_Q40 = newValue }
  }
  /// Quadratic linearity coefficient per millinewton, Q3.60.
  public var linearity_Q60: Int64
  /// |F1| in mN Q20 below which the quadratic term is under 1/8 LSB and is
  /// skipped: the common case of an untouched cell.
  public var linearSkip_Q20: Int64 {
    didSet { linear.setSkip(linearSkip_Q20) }
  }
  /// The temperature `scale_Q40` was computed for (`CellCalibration.retune`).
  public var spanTemperature: Temperature_C
  /// How far the temperature moves before the scale is recomputed: 1/16
  /// degC (Q8).
  public static let spanStep_Q8: Int32 = 16

  public init(
    zeroShift: Counts_Q16 = Counts_Q16(rawValue: 0), scale_Q40: Int64 = 0,
    linearity_Q60: Int64 = 0, linearSkip_Q20: Int64 = Int64.max,
    spanTemperature: Temperature_C = Temperature_C(rawValue: 0)
  ) {
    self.zeroShift = zeroShift
    self.linearity_Q60 = linearity_Q60
    self.linearSkip_Q20 = linearSkip_Q20
    self.spanTemperature = spanTemperature
    linear.scale_Q40 = scale_Q40
    linear.setSkip(linearSkip_Q20)
  }

  /// Calibrated force for a delta from the baseline, Q21.10 mN, saturated.
  /// The linear force is kept in Q20 through the linearity correction, so
  /// the result is rounded once.
  @inline(__always)
  public func force(delta: Counts_Q16) -> Force_mN {
    let (f1, skipped) = linear.force(delta: delta.rawValue)
    return skipped ?? CellConversion.rounded(f1, linearSkip_Q20, linearity_Q60)
  }

  /// The force for the linear force `f1` (mN Q20): with its quadratic
  /// term unless |f1| is under `linearSkip`, rounded to mN Q10 and
  /// saturated.
  @inline(never)
  static func rounded(_ f1: Int64, _ linearSkip_Q20: Int64, _ linearity_Q60: Int64) -> Force_mN {
    if f1 < linearSkip_Q20 && f1 > -linearSkip_Q20 {
      return Force_mN(rawValue: Saturating.roundingShift32(f1, 10))
    }
    return Force_mN(rawValue: Saturating.roundingShift32(CellConversion.linearized(f1, linearity_Q60), 10))
  }

  /// `f1 * (1 + linearity * f1)`: the linear force (mN Q20) with its
  /// quadratic term, saturated.
  @inline(__always)
  static func linearized(_ f1: Int64, _ linearity_Q60: Int64) -> Int64 {
    // mN Q20 * 1/mN Q60 >> 40 = dimensionless Q40
    let k = Saturating.multiplyShift(f1, linearity_Q60, 40)
    let correction = Saturating.multiplyShift(f1, k, 40)
    return Saturating.add(f1, correction)
  }
}

/// A cell's linear force: its scale at this temperature, and the linear
/// forces its quadratic term is skipped for (the common case, every
/// untouched cell), in the form this target tests fastest.
struct LinearForce: Sendable {
  /// Millinewtons per count at this temperature, Q23.40.
  var scale_Q40: Int64 = 0
  #if _pointerBitWidth(_64)
    /// |F1| under `linearSkip_Q20` saturated to 32 bits (L), as one
    /// unsigned comparison: -L < F1 < L exactly when F1 + (L - 1), as
    /// unsigned, is under 2 L - 1 (0: none, for L < 1). Both fit 32 bits.
    var skipOffset: Int32 = 0
    var skipSpan: UInt32 = 0
  #else
    /// `linearSkip_Q20` as 32 bits, for a 32-bit |F1| (saturated).
    var linearSkip32: Int32 = 0
  #endif

  /// The skip's form for this target, from `linearSkip_Q20`.
  mutating func setSkip(_ linearSkip_Q20: Int64) {
    let limit = Saturating.int32(linearSkip_Q20)
    #if _pointerBitWidth(_64)
      (skipOffset, skipSpan) = limit < 1 ? (0, 0) : (limit &- 1, UInt32(limit) &* 2 &- 1)
    #else
      linearSkip32 = limit
    #endif
  }

  /// The linear force of `delta` (mN Q20), and the force when its
  /// quadratic term is skipped (nil: `CellConversion.rounded` adds it).
  @inline(__always)
  func force(delta: Int64) -> (f1: Int64, skipped: Force_mN?) {
    // counts Q16 * mN/count Q40 >> 36 = mN Q20. A delta within 32 768
    // counts (every untouched cell, most presses) is 32 bits, and so is
    // its linear force up to 2 N: the common case in 32-bit operations.
    if let d = Saturating.narrow(delta) {
      let f1 = Saturating.multiplyShift(narrow: d, scale_Q40, 36)
      #if _pointerBitWidth(_64)
        // |f1| < L <= 2^31: the rounded shift in two operations, without
        // overflow.
        if UInt64(bitPattern: f1 &+ Int64(skipOffset)) < UInt64(skipSpan) {
          return (f1, Force_mN(rawValue: Int32(truncatingIfNeeded: (f1 &+ 512) &>> 10)))
        }
      #else
        if let f = Saturating.narrow(f1), f < linearSkip32 && f > 0 &- linearSkip32 {
          return (f1, Force_mN(rawValue: (f &>> 10) &+ ((f &>> 9) & 1)))
        }
      #endif
      return (f1, nil)
    }
    return (Saturating.multiplyShift(delta, scale_Q40, 36), nil)
  }
}

extension CellCalibration {
  /// The conversion of this cell at `temperature`.
  public func conversion(at temperature: Temperature_C) -> CellConversion {
    CellConversion(
      zeroShift: zeroShift(at: temperature), scale_Q40: scale(at: temperature), linearity_Q60: linearity_Q60,
      linearSkip_Q20: linearSkip_Q20, spanTemperature: temperature)
  }

  /// Moves `conversion` to `temperature` (the frame path, whenever the
  /// panel's temperature changes): the zero shift always; the scale only
  /// once `temperature` is `CellConversion.spanStep_Q8` (1/16 degC) or
  /// more from the temperature it was computed for. Its 128-bit division
  /// is the costliest arithmetic in the core, and the scale moves by
  /// tcSpan per degC (3e-4 on a typical cell: under 0.003 % of the force
  /// in 1/16 degC), while a temperature sensor's readings move in steps of
  /// 1/256 degC, most frames one of them. (`mutating` only so that a
  /// table's entry is read in place, not copied; nothing is modified.)
  @inline(__always)
  public mutating func retune(_ conversion: inout CellConversion, to temperature: Temperature_C) {
    conversion.zeroShift = zeroShift(at: temperature)
    let moved = Int64(temperature.rawValue) - Int64(conversion.spanTemperature.rawValue)
    guard moved >= Int64(CellConversion.spanStep_Q8) || moved <= -Int64(CellConversion.spanStep_Q8) else { return }
    conversion.scale_Q40 = scale(at: temperature)
    conversion.spanTemperature = temperature
  }

  /// Sets `conversion` to this cell's at `temperature` (in place: a
  /// table's entry is read where it is).
  public mutating func setConversion(_ conversion: inout CellConversion, at temperature: Temperature_C) {
    conversion.zeroShift = zeroShift(at: temperature)
    conversion.scale_Q40 = scale(at: temperature)
    conversion.linearity_Q60 = linearity_Q60
    conversion.linearSkip_Q20 = linearSkip_Q20
    conversion.spanTemperature = temperature
  }

  /// Counts added to the baseline at `temperature`, Q47.16.
  @inline(__always)
  func zeroShift(at temperature: Temperature_C) -> Counts_Q16 {
    let dT = Int64(temperature.rawValue) &- Int64(referenceTemperature.rawValue)  // Q8
    // counts Q32 * degC Q8 >> 24 = counts Q16
    return Counts_Q16(rawValue: Saturating.multiplyShift(tcZero_Q32, dT, 24))
  }

  /// Millinewtons per count at `temperature`, Q23.40. (Inlined: an
  /// outlined call copies the whole calibration first.)
  @inline(__always)
  func scale(at temperature: Temperature_C) -> Int64 {
    let dT = Int64(temperature.rawValue) - Int64(referenceTemperature.rawValue)  // Q8
    // Gain factor 1 + tcSpan*dT, exact in Q38 (Q30 x Q8); the scale is
    // divided by it on a 128-bit dividend.
    let factor = Saturating.add(1 << 38, Saturating.multiply(tcSpan_Q30, dT))
    // A nonsensical coefficient (sensitivity gone or reversed): keep the
    // reference scale.
    return factor <= 0 ? scale_Q40 : Saturating.shiftDivide(scale_Q40, 38, factor)
  }

  /// Calibrated force for `delta` at `temperature` (setup and tools; the
  /// frame path keeps a `CellConversion` per cell instead).
  public func force(delta: Counts_Q16, at temperature: Temperature_C) -> Force_mN {
    conversion(at: temperature).force(delta: delta)
  }
}
