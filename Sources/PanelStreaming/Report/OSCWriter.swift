import PanelHardware

/// An OSC time tag: seconds since 1900-01-01 (NTP era 0) and a binary
/// fraction of a second (OSC 1.0 `t`).
public struct OSCTimeTag: Sendable, Equatable {
  public var seconds: UInt32
  public var fraction: UInt32

  public init(seconds: UInt32, fraction: UInt32) {
    self.seconds = seconds
    self.fraction = fraction
  }

  /// "Immediately" (the value 1), as a bundle's time tag.
  public static let immediate = OSCTimeTag(seconds: 0, fraction: 1)

  /// Seconds from 1900 to the Unix epoch.
  public static let unixOffset: Int64 = 2_208_988_800

  /// The time tag of a Unix time in microseconds.
  public init(unixMicroseconds us: Int64) {
    // Floor division (earlier than 1970 too), without overflow at the ends.
    var s = us / 1_000_000
    var r = us % 1_000_000
    if r < 0 {
      s -= 1
      r += 1_000_000
    }
    let micro = UInt64(r)
    seconds = UInt32(truncatingIfNeeded: s + OSCTimeTag.unixOffset)
    fraction = UInt32(truncatingIfNeeded: (micro << 32) / 1_000_000)
  }
}

/// Writes Open Sound Control 1.0 packets into a `ByteBuffer` without
/// allocating: every field big-endian and padded to a multiple of 4 bytes;
/// strings NUL-terminated and padded with 1 to 4 NULs; bundle elements
/// prefixed by their size, which is filled in when the element ends.
///
/// A message is `begin(address, tags)`, its arguments in tag order, then
/// `end(slot)`. Writes that do not fit set the buffer's `overflowed`; the
/// caller drops such a packet.
public struct OSCWriter {
  public let out: ByteBuffer

  public init(_ out: ByteBuffer) { self.out = out }

  /// `#bundle`, then the bundle's time tag.
  public func beginBundle(_ time: OSCTimeTag = .immediate) {
    out.append("#bundle\0")
    timeTag(time)
  }

  /// Starts a bundle element holding a message: reserves the element's size
  /// and writes the address and type tags. Returns the slot for `end`.
  public func begin(_ address: StaticString, _ tags: StaticString) -> Int {
    let slot = out.count
    int32(0)
    string(address)
    string(tags)
    return slot
  }

  /// Starts a message whose type tags are `prefix` followed by `count`
  /// copies of `repeated` (an alive list: `,` + `i` per id).
  public func begin(
    _ address: StaticString, tags prefix: StaticString, repeating repeated: UInt8, count: Int
  ) -> Int {
    let slot = out.count
    int32(0)
    string(address)
    out.append(prefix)
    for _ in 0..<count { out.append(repeated) }
    pad(afterStringOfLength: prefix.utf8CodeUnitCount + count)
    return slot
  }

  /// Ends the element started at `slot`: writes its size (the bytes after
  /// the size field).
  public func end(_ slot: Int) {
    guard !out.overflowed, slot + 4 <= out.count else { return }
    let size = UInt32(out.count - slot - 4)
    out.storage[slot] = UInt8(truncatingIfNeeded: size >> 24)
    out.storage[slot + 1] = UInt8(truncatingIfNeeded: size >> 16)
    out.storage[slot + 2] = UInt8(truncatingIfNeeded: size >> 8)
    out.storage[slot + 3] = UInt8(truncatingIfNeeded: size)
  }

  /// `i`: a big-endian two's-complement int32.
  @inline(__always)
  public func int32(_ value: Int32) { uint32(UInt32(bitPattern: value)) }

  /// `f`: a big-endian IEEE 754 float32.
  @inline(__always)
  public func float32(_ value: Float) { uint32(value.bitPattern) }

  /// `t`: a time tag.
  public func timeTag(_ time: OSCTimeTag) {
    uint32(time.seconds)
    uint32(time.fraction)
  }

  /// `s`: a static string.
  public func string(_ text: StaticString) {
    out.append(text)
    pad(afterStringOfLength: text.utf8CodeUnitCount)
  }

  /// `s`: a string given as UTF-8 bytes (without a terminating NUL).
  public func string(_ bytes: UnsafeBufferPointer<UInt8>) {
    out.append(bytes)
    pad(afterStringOfLength: bytes.count)
  }

  @inline(__always)
  func uint32(_ v: UInt32) {
    out.append(UInt8(truncatingIfNeeded: v >> 24))
    out.append(UInt8(truncatingIfNeeded: v >> 16))
    out.append(UInt8(truncatingIfNeeded: v >> 8))
    out.append(UInt8(truncatingIfNeeded: v))
  }

  /// The NUL terminator and padding after a string of `length` bytes.
  @inline(__always)
  func pad(afterStringOfLength length: Int) {
    for _ in 0..<(4 - length % 4) { out.append(0) }
  }
}
