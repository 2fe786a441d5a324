
/// `x` with `digits` decimals, as text.
package func rounded(_ x: Double, _ digits: Int) -> String {
  var p = 1.0
  for _ in 0..<digits { p *= 10 }
  let v = (x * p).rounded() / p
  return String(v)
}
