/// The keys that take a simulated panel across the envelope of real panels
/// (docs/formats.md, "Simulated front end"): noise in physical units,
/// low-frequency wander, the grid overlay's spreading kernel, temperature
/// coefficients that spread between cells, thermal lag, hysteresis.
extension SimulationParameters {
  static let envelopeKeys = [
    "noise_mn", "wander", "kernel", "spread_pitch", "kernel_table", "tc_zero_mn_per_c", "tc_zero_spread",
    "tc_span_spread", "thermal_lag_s", "thermal_lag_spread", "hysteresis", "spread_aspect", "frame_share",
  ]

  mutating func readEnvelope(_ t: TOMLTable) throws(FileError) {
    noise_mn = try t.optionalDouble("noise_mn", in: .simulatedForce_mn)
    if noise_mn != nil && t.has("noise_counts") { throw t.error("noise_mn", "give noise_mn or noise_counts, not both") }
    for w in try t.tables("wander") { wander.append(try WanderProcess(table: w)) }

    if let k = try t.optionalString("kernel") {
      guard let kind = SpreadingKernelKind(rawValue: k) else {
        throw t.error("kernel", "\(Quote.text(k)) is not one of \(SimulationParameters.kernelNames.joined(separator: ", "))")
      }
      kernel = kind
      kernelLine = t.line(of: "kernel")
      kernelField = t.field("kernel")
    }
    spread_pitch = try t.optionalDouble("spread_pitch", in: ValueBound(above: 0, atMost: 100, "pitches"))
    if spread_pitch != nil && t.has("spread_mm") { throw t.error("spread_pitch", "give spread_mm or spread_pitch, not both") }
    if let rows = try t.doubleRows("kernel_table") {
      if kernel != .table { throw t.error("kernel_table", "needs kernel = \"table\"") }
      kernelTable = try SimulationParameters.radialTable(rows, table: t)
    }
    if kernel == .table {
      if kernelTable.isEmpty { throw t.error("kernel", "kernel = \"table\" needs kernel_table = [[r_mm, weight], ...]") }
      for key in ["spread_mm", "spread_pitch"] where t.has(key) {
        throw t.error(key, "a measured table has its own radii: no width applies")
      }
    }
    spreadAspect = try t.optionalDouble("spread_aspect", in: ValueBound(0.2...5)) ?? spreadAspect
    frameShare = try t.optionalDouble("frame_share", in: ValueBound(0...1)) ?? frameShare
    if kernel != .boussinesq || spread_pitch != nil {
      kernelLine = kernelLine ?? t.line(of: "spread_pitch")
      if !t.has("kernel") { kernelField = t.field("spread_pitch") }
    }

    tcZero_mn_per_c = try t.optionalDouble("tc_zero_mn_per_c", in: ValueBound(-1000...1000, "mN/degC"))
    if tcZero_mn_per_c != nil && t.has("tc_zero_counts_per_c") {
      throw t.error("tc_zero_mn_per_c", "give tc_zero_mn_per_c or tc_zero_counts_per_c, not both")
    }
    tcZeroSpread = try t.optionalDouble("tc_zero_spread", in: ValueBound(0...1))
    tcSpanSpread = try t.optionalDouble("tc_span_spread", in: ValueBound(0...1))
    thermalLag_s = try t.optionalDouble("thermal_lag_s", in: ValueBound(0...3600, "s")) ?? thermalLag_s
    thermalLagSpread = try t.optionalDouble("thermal_lag_spread", in: ValueBound(0...1)) ?? thermalLagSpread
    if thermalLagSpread >= 1 { throw t.error("thermal_lag_spread", "must be below 1") }
    hysteresis = try t.optionalDouble("hysteresis", in: ValueBound(0...1)) ?? hysteresis
    if hysteresis >= 0.5 { throw t.error("hysteresis", "must be below 0.5") }
  }

  /// Checks a radial table: rows of [r_mm, weight], radii from 0 rising.
  static func radialTable(_ rows: [[Double]], table t: TOMLTable) throws(FileError) -> [[Double]] {
    if rows.count < 2 { throw t.error("kernel_table", "needs at least two [r_mm, weight] rows") }
    var last = -1.0
    for (i, r) in rows.enumerated() {
      if r.count != 2 { throw t.error("kernel_table", element: i, "has \(r.count) numbers, expected [r_mm, weight]") }
      if !ValueBound(0...10_000, "mm").contains(r[0]) || r[0] <= last {
        throw t.error("kernel_table", element: i, "radius \(r[0]) mm: radii must rise from 0 (at most 10000 mm)")
      }
      if !ValueBound(0...1e6).contains(r[1]) {
        throw t.error("kernel_table", element: i, "weight \(r[1]) must be 0...1000000")
      }
      last = r[0]
    }
    if rows[0][0] != 0 { throw t.error("kernel_table", element: 0, "the first radius must be 0") }
    if rows[0][1] <= 0 { throw t.error("kernel_table", element: 0, "the weight at r = 0 must be greater than 0") }
    return rows
  }

  /// White noise per cell, counts.
  public var effectiveNoise_counts: Double { noise_mn.map { $0 / 1000 * gain_counts_per_n } ?? noise_counts }

  /// The zero drift each cell is drawn around, counts per degC: the common
  /// one (`tc_zero_mn_per_c`), else the largest (`tc_zero_counts_per_c`).
  var tcZeroBase_counts_per_c: Double {
    tcZero_mn_per_c.map { $0 / 1000 * gain_counts_per_n } ?? tcZero_counts_per_c
  }

  /// Cell zero drift from the uniform draw `u` in -1...1: uniform within
  /// +-base, or base x (1 + spread u) with a spread.
  package func tcZero(_ u: Double) -> Double {
    let base = tcZeroBase_counts_per_c
    return tcZeroSpread.map { base * (1 + $0 * u) } ?? u * base
  }

  package func tcSpan(_ u: Double) -> Double {
    tcSpanSpread.map { tcSpan_per_c * (1 + $0 * u) } ?? u * tcSpan_per_c
  }

  /// What the envelope keys set, for `info` ("" when none is set).
  package var envelopeSummary: String {
    var parts: [String] = []
    if let mn = noise_mn { parts.append("noise \(mn) mN") }
    for w in wander { parts.append("wander \(w.sigma_mn) mN over \(w.tau_s) s" + (w.common > 0 ? " (\(w.common) common)" : "")) }
    if kernel != .boussinesq || spread_pitch != nil {
      parts.append("kernel \(kernel.rawValue)" + (spread_pitch.map { " \($0) pitch" } ?? (kernel == .table ? "" : " \(spread_mm) mm")))
    }
    if let s = tcZeroSpread { parts.append("zero drift spread +-\(s)") }
    if let s = tcSpanSpread { parts.append("span drift spread +-\(s)") }
    if thermalLag_s > 0 { parts.append("thermal lag \(thermalLag_s) s +-\(thermalLagSpread)") }
    if hysteresis > 0 { parts.append("hysteresis \(hysteresis)") }
    return parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
  }

  /// The envelope keys that only a grid board can use.
  func checkEnvelope(board: Board) throws(FileError) {
    if board.grid == nil && (kernel != .boussinesq || spread_pitch != nil) {
      throw FileError(
        file: board.file, line: kernelLine, field: kernelField,
        message: "the spreading kernel is a grid overlay's: this board's cells are supports ([[cell]]), not a [grid]")
    }
  }
}

extension ValueBound {
  /// A simulated force in millinewtons (noise, wander).
  static let simulatedForce_mn = ValueBound(0...1000, "mN")
}
