#if canImport(Glibc)
  import Glibc
#endif

/// Times in the factory database: milliseconds since 1970 (UTC), written
/// as ISO 8601 with milliseconds so that text order is time order in both
/// engines ("2026-03-14T09:26:53.120Z").
public enum FactoryTime {
  /// Now, milliseconds since 1970.
  public static func nowMilliseconds() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_REALTIME, &t)
    return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
  }

  public static func now() -> String { text(nowMilliseconds()) }

  /// `ms` as "YYYY-MM-DDTHH:MM:SS.mmmZ".
  public static func text(_ ms: Int64) -> String {
    let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
    let millis = Int(ms - seconds * 1000)
    var t = time_t(seconds)
    var parts = tm()
    gmtime_r(&t, &parts)
    func pad(_ v: Int, _ width: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
      + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(millis, 3))Z"
  }

  /// Parses "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SSZ" or with milliseconds;
  /// nil when it is none of these.
  public static func milliseconds(_ text: String) -> Int64? {
    let c = Array(text.utf8)
    func number(_ at: Int, _ width: Int) -> Int? {
      guard at + width <= c.count else { return nil }
      var v = 0
      for b in c[at..<(at + width)] {
        guard b >= 48 && b <= 57 else { return nil }
        v = v * 10 + Int(b - 48)
      }
      return v
    }
    func char(_ at: Int, _ ch: Character) -> Bool { at < c.count && c[at] == ch.asciiValue! }
    guard let year = number(0, 4), char(4, "-"), let month = number(5, 2), char(7, "-"), let day = number(8, 2),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var hour = 0
    var minute = 0
    var second = 0
    var millis = 0
    if c.count > 10 {
      guard char(10, "T"), let h = number(11, 2), char(13, ":"), let m = number(14, 2), char(16, ":"),
        let s = number(17, 2), h < 24, m < 60, s < 61
      else { return nil }
      (hour, minute, second) = (h, m, s)
      var at = 19
      if char(at, ".") {
        guard let f = number(20, 3) else { return nil }
        millis = f
        at = 23
      }
      guard char(at, "Z"), at + 1 == c.count else { return nil }
    }
    // Days from 1970-01-01 (proleptic Gregorian; Howard Hinnant's days_from_civil).
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146097 + doe - 719468
    return Int64(((days * 24 + hour) * 60 + minute) * 60 + second) * 1000 + Int64(millis)
  }
}

/// Random identifiers for rows.
public enum RowID {
  /// A version 4 UUID, lower-case text.
  public static func make() -> String {
    var g = SystemRandomNumberGenerator()
    return make(using: &g)
  }

  public static func make<G: RandomNumberGenerator>(using g: inout G) -> String {
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
    bytes[6] = bytes[6] & 0x0f | 0x40
    bytes[8] = bytes[8] & 0x3f | 0x80
    let hex = Array("0123456789abcdef")
    var s = ""
    for (i, b) in bytes.enumerated() {
      if i == 4 || i == 6 || i == 8 || i == 10 { s.append("-") }
      s.append(hex[Int(b >> 4)])
      s.append(hex[Int(b & 15)])
    }
    return s
  }
}
