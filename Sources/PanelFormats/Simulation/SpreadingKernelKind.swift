/// The shape of a simulated grid overlay's spreading, as a board file names
/// it (`kernel = "gaussian"`); the shapes themselves, with their widths,
/// are PanelMechanics' `SpreadingKernel`.
public enum SpreadingKernelKind: String, CaseIterable, Sendable {
  /// A thin elastic layer over the cells (Boussinesq's point load).
  case boussinesq
  case gaussian
  case exponential
  /// A measured radial profile (`kernel_table`).
  case table
}
