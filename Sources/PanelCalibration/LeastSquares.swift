/// Small dense linear least squares (Householder QR) for the calibration fit.
enum LeastSquares {
  /// The `x` solving the normal equations `n x = b` (`n` symmetric), by
  /// Gaussian elimination with partial pivoting. Nil when `n` is singular.
  static func solveNormal(_ n: [[Double]], _ b: [Double]) -> [Double]? {
    let size = b.count
    guard n.count == size else { return nil }
    var a = n
    var r = b
    var largest = 0.0
    for row in a { for v in row { largest = max(largest, abs(v)) } }
    guard largest > 0 else { return nil }
    for col in 0..<size {
      var pivot = col
      for i in (col + 1)..<max(size, col + 1) where abs(a[i][col]) > abs(a[pivot][col]) { pivot = i }
      guard abs(a[pivot][col]) > 1e-14 * largest else { return nil }
      if pivot != col {
        a.swapAt(pivot, col)
        r.swapAt(pivot, col)
      }
      for i in (col + 1)..<max(size, col + 1) {
        let f = a[i][col] / a[col][col]
        guard f != 0 else { continue }
        for j in col..<size { a[i][j] -= f * a[col][j] }
        r[i] -= f * r[col]
      }
    }
    var x = [Double](repeating: 0, count: size)
    for i in stride(from: size - 1, through: 0, by: -1) {
      var s = r[i]
      for j in (i + 1)..<max(size, i + 1) { s -= a[i][j] * x[j] }
      x[i] = s / a[i][i]
    }
    return x
  }

  /// The `x` minimising |A x - b|, `a` given row by row. Columns are scaled
  /// to unit length first (counts and counts squared differ by orders of
  /// magnitude); a column of zeros gets x = 0. Nil when the columns are
  /// dependent (the placements do not determine the unknowns).
  static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    let m = a.count
    guard m > 0, b.count == m else { return nil }
    let n = a[0].count
    guard m >= n else { return nil }
    // Column-major copy, scaled.
    var q = [[Double]](repeating: [Double](repeating: 0, count: m), count: n)
    var scale = [Double](repeating: 0, count: n)
    for j in 0..<n {
      var s = 0.0
      for i in 0..<m {
        q[j][i] = a[i][j]
        s += a[i][j] * a[i][j]
      }
      scale[j] = s.squareRoot()
      if scale[j] > 0 { for i in 0..<m { q[j][i] /= scale[j] } }
    }
    let active = (0..<n).filter { scale[$0] > 0 }
    var rhs = b
    var diagonal = [Double](repeating: 0, count: n)
    for (row, j) in active.enumerated() {
      var norm = 0.0
      for i in row..<m { norm += q[j][i] * q[j][i] }
      norm = norm.squareRoot()
      if norm < 1e-12 { return nil }
      let alpha = q[j][row] > 0 ? -norm : norm
      var v = [Double](repeating: 0, count: m)
      for i in row..<m { v[i] = q[j][i] }
      v[row] -= alpha
      var vv = 0.0
      for i in row..<m { vv += v[i] * v[i] }
      if vv > 0 {
        for k in active where k != j && (active.firstIndex(of: k)! > row) {
          var dot = 0.0
          for i in row..<m { dot += v[i] * q[k][i] }
          let f = 2 * dot / vv
          for i in row..<m { q[k][i] -= f * v[i] }
        }
        var dot = 0.0
        for i in row..<m { dot += v[i] * rhs[i] }
        let f = 2 * dot / vv
        for i in row..<m { rhs[i] -= f * v[i] }
      }
      diagonal[j] = alpha
    }
    // Back substitution on R (row r of R: q[k][r] for the later active columns k).
    let largest = active.map { abs(diagonal[$0]) }.max() ?? 0
    var x = [Double](repeating: 0, count: n)
    for row in stride(from: active.count - 1, through: 0, by: -1) {
      let j = active[row]
      if abs(diagonal[j]) < 1e-10 * largest { return nil }
      var s = rhs[row]
      for later in (row + 1)..<active.count {
        let k = active[later]
        s -= q[k][row] * x[k]
      }
      x[j] = s / diagonal[j]
    }
    for j in 0..<n where scale[j] > 0 { x[j] /= scale[j] }
    return x
  }
}
