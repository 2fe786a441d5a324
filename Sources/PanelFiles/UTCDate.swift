#if canImport(Glibc)
  import Glibc
#endif

/// Wall-clock dates for records and sessions.
public enum UTCDate {
  /// Now, ISO 8601 UTC: "2026-03-14T09:26:53Z".
  public static func now() -> String { format(time(nil)) }

  /// Now as a compact stamp for directory names: "20260314T092653Z".
  public static func stamp() -> String {
    now().filter { $0 != "-" && $0 != ":" }
  }

  package static func format(_ t: time_t) -> String {
    var seconds = t
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }
}
