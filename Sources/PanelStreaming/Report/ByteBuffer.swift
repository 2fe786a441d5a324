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
  /// Where appends may write up to: `capacity`, or 0 once overflowed, so
  /// the check in `reserve` is one comparison.
  var end: Int
  /// A write did not fit (capacity is at least 16, so `end` is 0 only then).
  public var overflowed: Bool { end == 0 }

  public init(capacity: Int) {
    self.capacity = max(capacity, 16)
    end = self.capacity
    storage = .allocate(capacity: self.capacity)
  }

  deinit { storage.deallocate() }

  /// The bytes written so far.
  public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

  public func removeAll() {
    count = 0
    end = capacity
  }

  /// Drops the bytes after the first `n` (to reopen what was just written).
  /// An overflowed buffer stays overflowed.
  public func truncate(to n: Int) {
    count = max(0, min(n, count))
  }

  /// Whether `n` more bytes fit; if not, the buffer is overflowed.
  @inline(__always)
  func reserve(_ n: Int) -> Bool {
    if n <= end &- count { return true }
    end = 0
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
    append(magnitude: value, negative: negative, decimals: 0)
  }

  /// Appends `scaled / 10^decimals` with exactly `decimals` digits after
  /// the point, e.g. `append(fixed: -1205, decimals: 3)` writes `-1.205`.
  public func append(fixed scaled: Int64, decimals: Int) {
    append(magnitude: scaled.magnitude, negative: scaled < 0, decimals: max(0, min(decimals, 18)))
  }

  /// One number: reserves its whole width, then writes the digits last to
  /// first straight into the storage, with the point `decimals` from the
  /// end (and at least one digit before it).
  func append(magnitude value: UInt64, negative: Bool, decimals: Int) {
    var digits = 1
    var rest = value
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    digits = max(digits, decimals + 1)
    let sign = negative ? 1 : 0
    let point = decimals > 0 ? 1 : 0
    let width = sign + digits + point
    guard reserve(width) else { return }
    if negative { storage[count] = UInt8(ascii: "-") }
    var magnitude = value
    var i = count + width - 1
    for _ in 0..<decimals {
      storage[i] = UInt8(truncatingIfNeeded: magnitude % 10) + 48
      magnitude /= 10
      i -= 1
    }
    if point == 1 {
      storage[i] = UInt8(ascii: ".")
      i -= 1
    }
    repeat {
      storage[i] = UInt8(truncatingIfNeeded: magnitude % 10) + 48
      magnitude /= 10
      i -= 1
    } while magnitude > 0
    count += width
  }
}
