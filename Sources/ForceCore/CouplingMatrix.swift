/// A cross-talk correction for a plate on supports: the corrected force of
/// cell `i` is `sum_j m[i][j] * force of cell j`. Fitted at calibration
/// when the placements show cross-talk (a support that also feels its
/// neighbour's load); empty (`size == 0`) otherwise, which costs nothing.
/// Entries are Q8.24 (1.0 = 1 << 24); up to `capacity` cells.
public struct CouplingMatrix: Sendable {
  public static let capacity = 8
  /// Cells the matrix covers (0: no correction).
  public private(set) var size: Int
  var m_Q24: InlineArray<64, Int32>

  /// No correction.
  public init() {
    size = 0
    m_Q24 = InlineArray(repeating: 0)
  }

  /// The identity on `size` cells (at most `capacity`); set entries with `set`.
  public init(size: Int) {
    self.size = min(max(size, 0), CouplingMatrix.capacity)
    m_Q24 = InlineArray(repeating: 0)
    for i in 0..<self.size { m_Q24[i * CouplingMatrix.capacity + i] = 1 << 24 }
  }

  /// Sets entry (`row`, `column`) to `value` (saturated to Q8.24).
  public mutating func set(_ row: Int, _ column: Int, _ value: Double) {
    guard row >= 0, row < size, column >= 0, column < size else { return }
    let scaled = value * 16_777_216
    let v: Int32 = !(scaled == scaled) ? 0 : scaled >= 2_147_483_647 ? Int32.max : scaled <= -2_147_483_648 ? Int32.min : Int32(scaled.rounded())
    m_Q24[row * CouplingMatrix.capacity + column] = v
  }

  /// Entry (`row`, `column`) as a `Double`.
  public func value(_ row: Int, _ column: Int) -> Double {
    Double(m_Q24[row * CouplingMatrix.capacity + column]) / 16_777_216
  }

  /// Replaces the first `size` forces of `image` with their corrected values.
  @inline(__always)
  public mutating func apply(_ image: inout CellArray<Force_mN>) {
    let n = size
    guard n > 0 else { return }
    var input: InlineArray<8, Int64> = InlineArray(repeating: 0)
    for j in 0..<n { input[j] = Int64(image[j].rawValue) }
    for i in 0..<n {
      var sum: Int64 = 0
      for j in 0..<n {
        // |force| < 2^31, |m| < 2^31: the product fits; 8 terms saturate.
        sum = Saturating.add(sum, input[j] &* Int64(m_Q24[i * CouplingMatrix.capacity + j]))
      }
      image[i] = Force_mN(rawValue: Saturating.int32(Saturating.roundingShift(sum, 24)))
    }
  }
}
