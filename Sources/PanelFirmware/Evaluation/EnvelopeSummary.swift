import PanelFormats

/// Where a simulated board sits in the envelope, in one short line for the
/// table: `noise 10 mN, wander 5 mN, gaussian 0.6 pitch, NL 2 %, 320 Hz`.
public enum EnvelopeSummary {
  public static func text(board: Board, parameters p: SimulationParameters) -> String {
    var parts = ["noise \(Format.short(p.effectiveNoise_counts / p.gain_counts_per_n * 1000)) mN"]
    let wander = p.wander.map { $0.sigma_mn * $0.sigma_mn }.reduce(0, +).squareRoot()
    if wander > 0 { parts.append("wander \(Format.short(wander)) mN") }
    if let g = board.grid {
      let kernel = p.spreadingKernel(pitch: g.pitch_mm)
      parts.append(kernel.width_mm.map { "\(kernel.name) \(Format.fixed($0 / g.pitch_mm, 2)) pitch" } ?? kernel.name)
    }
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
