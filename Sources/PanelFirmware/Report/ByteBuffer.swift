/// A byte buffer allocated once, at setup, that encoders write reports
/// into: appending never allocates. Capacity is fixed. A write that does
/// not fit sets `overflowed`, and from then on every append is refused
/// until `removeAll()`, so an overflowed message is never a shortened one
/// that could pass for whole: its writer drops it (size buffers for the
/// worst case).
public final class ByteBuffer {
  public let capacity: Int
  let storage: UnsafeMutablePointer<UInt8>
  public private(set) var count = 0
  public private(set) var overflowed = false

  public init(capacity: Int) {
    self.capacity = max(capacity, 16)
    storage = .allocate(capacity: self.capacity)
  }

  deinit { storage.deallocate() }

  /// The bytes written so far.
  public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

  public func removeAll() {
    count = 0
    overflowed = false
  }

  /// Drops the bytes after the first `n` (to reopen what was just written).
  /// An overflowed buffer stays overflowed.
  public func truncate(to n: Int) {
    count = max(0, min(n, count))
  }

  /// Whether `n` more bytes fit; if not, the buffer is overflowed.
  @inline(__always)
  func reserve(_ n: Int) -> Bool {
    if !overflowed && n <= capacity - count { return true }
    overflowed = true
    return false
  }

  @inline(__always)
  public func append(_ byte: UInt8) {
    guard reserve(1) else { return }
    storage[count] = byte
    count += 1
  }

  /// Appends a static string's UTF-8 bytes.
  @inline(__always)
  public func append(_ text: StaticString) {
    let n = text.utf8CodeUnitCount
    guard reserve(n) else { return }
    (storage + count).update(from: text.utf8Start, count: n)
    count += n
  }

  /// Appends bytes.
  public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress, reserve(bytes.count) else { return }
    (storage + count).update(from: base, count: bytes.count)
    count += bytes.count
  }

  /// Appends a decimal integer.
  public func append(integer value: Int64) {
    append(magnitude: value.magnitude, negative: value < 0)
  }

  /// Appends a decimal integer (unsigned).
  public func append(unsigned value: UInt64) {
    append(magnitude: value, negative: false)
  }

  func append(magnitude value: UInt64, negative: Bool) {
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
      (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var magnitude = value
    var n = 0
    withUnsafeMutableBytes(of: &digits) { d in
      repeat {
        d[n] = UInt8(truncatingIfNeeded: magnitude % 10) + 48
        magnitude /= 10
        n += 1
      } while magnitude > 0
    }
    guard reserve(n + (negative ? 1 : 0)) else { return }
    if negative { append(UInt8(ascii: "-")) }
    withUnsafeBytes(of: &digits) { d in
      var i = n - 1
      while i >= 0 {
        append(d[i])
        i -= 1
      }
    }
  }

  /// Appends `scaled / 10^decimals` with exactly `decimals` digits after
  /// the point, e.g. `append(fixed: -1205, decimals: 3)` writes `-1.205`.
  public func append(fixed scaled: Int64, decimals: Int) {
    var divisor: Int64 = 1
    for _ in 0..<decimals { divisor *= 10 }
    let magnitude = scaled.magnitude
    if scaled < 0 { append(UInt8(ascii: "-")) }
    append(unsigned: magnitude / UInt64(divisor))
    guard decimals > 0 else { return }
    append(UInt8(ascii: "."))
    var fraction = magnitude % UInt64(divisor)
    var d = UInt64(divisor / 10)
    while d > 0 {
      append(UInt8(truncatingIfNeeded: fraction / d) + 48)
      fraction %= d
      d /= 10
    }
  }
}
