import PanelFormats

extension SimulationParameters {
  /// The grid overlay's kernel for a grid of `pitch` mm.
  public func spreadingKernel(pitch: Double) -> SpreadingKernel {
    let width = spread_pitch.map { $0 * pitch } ?? spread_mm
    switch kernel {
    case .boussinesq: return .boussinesq(depth: width)
    case .gaussian: return .gaussian(sigma: width)
    case .exponential: return .exponential(length: width)
    case .table: return .table(r: kernelTable.map { $0[0] }, weight: kernelTable.map { $0[1] })
    }
  }
}
