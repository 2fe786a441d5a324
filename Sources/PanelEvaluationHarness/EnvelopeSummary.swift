import PanelFormats

/// Where a simulated board sits in the envelope, in one short line for the
/// table: `noise 10 mN, wander 5 mN, gaussian 0.6 pitch, NL 2 %, 320 Hz`.
package enum EnvelopeSummary {
  package static func text(board: Board, parameters p: SimulationParameters) -> String {
    var parts: [String] = []
    // Geometry, where it is not sim-plate4's or sim-grid's.
    if let g = board.grid {
      if g.columns != 8 || g.rows != 6 || g.pitch_mm != 20 {
        parts.append("\(g.columns)x\(g.rows) at \(Format.short(g.pitch_mm)) mm")
      }
    } else if board.cellCount != 4 || board.width_mm != 160 || board.height_mm != 100
      || board.cells.contains(where: { ($0.x_mm != 0 && $0.x_mm != 160) || ($0.y_mm != 0 && $0.y_mm != 100) })
    {
      parts.append("\(Format.short(board.width_mm))x\(Format.short(board.height_mm)) mm on \(board.cellCount) supports")
    }
    parts.append("noise \(Format.short(p.effectiveNoise_counts / p.gain_counts_per_n * 1000)) mN")
    for o in p.overrides { if let mn = o.noise_mn { parts.append("cell \(o.index) \(Format.short(mn)) mN") } }
    let wander = p.wander.map { $0.sigma_mn * $0.sigma_mn }.reduce(0, +).squareRoot()
    if wander > 0 { parts.append("wander \(Format.short(wander)) mN") }
    if let g = board.grid {
      let kernel = p.spreadingKernel(pitch: g.pitch_mm)
      parts.append(kernel.width_mm.map { "\(kernel.name) \(Format.fixed($0 / g.pitch_mm, 2)) pitch" } ?? kernel.name)
      if p.spreadAspect != 1 { parts.append("aspect \(Format.short(p.spreadAspect))") }
      if p.frameShare > 0 { parts.append("frame \(Format.short(p.frameShare))") }
    } else if p.stiffnessSpread != 0.1 {
      parts.append("stiffness +-\(Format.short(p.stiffnessSpread * 100)) %")
    }
    if p.gainSpread != 0.08 { parts.append("gain +-\(Format.short(p.gainSpread * 100)) %") }
    // Terminal non-linearity over a 5 N range: |a| F / 4.
    let nl = p.nonlinearity_per_n * 5 / 4 * 100
    if nl >= 0.5 { parts.append("NL \(Format.short(nl)) %") }
    if let s = p.tcZeroSpread, s > 0 { parts.append("zero drift +-\(Format.short(s * 100)) %") }
    if p.thermalLag_s > 0 { parts.append("lag \(Format.short(p.thermalLag_s)) s") }
    if p.hysteresis > 0 { parts.append("hyst \(Format.short(p.hysteresis * 100)) %") }
    parts.append("\(board.rate_hz) Hz")
    return parts.joined(separator: ", ")
  }
}
