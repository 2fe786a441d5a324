/// Who may use the server, and how much.
///
/// - Listening on loopback, every client on the machine may watch and
///   control. Requests must then name a loopback host (`Host: localhost`,
///   `127.0.0.1`, `[::1]`), so that a web page of another site whose name
///   was pointed at 127.0.0.1 (DNS rebinding) gets nothing.
/// - Listening on any other address, control needs the token: a client
///   without it (`/ws?token=...`) reads the stream, and its control lines
///   are refused.
/// - A browser's WebSocket must come from a page of this server (its
///   `Origin` is `http://` + the `Host` it asked for) or from an origin
///   allowed by `--allow-origin`; any other origin is refused, so a page of
///   another site open in the kiosk's browser can neither watch nor control
///   the panel. Clients that send no `Origin` (not browsers) are let in.
public struct ServeAccess: Sendable {
  /// The server listens on a loopback address.
  public let loopback: Bool
  /// The token that grants control when not on loopback.
  public let token: String?
  /// Origins allowed besides the server's own pages, as browsers send them
  /// (`http://kiosk.local:3000`).
  public let allowedOrigins: [String]

  public init(loopback: Bool, token: String?, allowedOrigins: [String] = []) {
    self.loopback = loopback
    self.token = token
    self.allowedOrigins = allowedOrigins.map(Self.trimmedOrigin)
  }

  /// Why a request is refused.
  public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    case host(String)
    case origin(String)

    public var description: String {
      switch self {
      case .host(let h):
        return "Host \"\(h)\" is not a loopback name: this server listens on loopback and answers only requests made to it by that name"
      case .origin(let o):
        return "Origin \"\(o)\" is neither this server nor an allowed origin (--allow-origin)"
      }
    }
  }

  /// Checks a request's `Host` header (any request).
  public func check(host: String?) -> Refusal? {
    guard loopback else { return nil }
    guard let host, let name = Self.hostName(host), Self.isLoopbackName(name) else {
      return .host(host ?? "")
    }
    return nil
  }

  /// Checks a WebSocket request's `Host` and `Origin`.
  public func check(host: String?, origin: String?) -> Refusal? {
    if let refusal = check(host: host) { return refusal }
    guard let origin else { return nil }
    let o = Self.trimmedOrigin(origin)
    if let host, o == "http://" + host.lowercased() || o == "https://" + host.lowercased() { return nil }
    if allowedOrigins.contains(o) { return nil }
    return .origin(origin)
  }

  /// Whether a client presenting `token` may send control lines.
  public func grantsControl(token presented: String?) -> Bool {
    if loopback { return true }
    guard let token, let presented else { return false }
    return Self.equalInConstantTime(Array(token.utf8), Array(presented.utf8))
  }

  /// The host name of a `Host` header: `name`, `name:port`, `[v6]:port`.
  static func hostName(_ host: String) -> String? {
    var h = Substring(host.lowercased())
    if h.hasPrefix("[") {
      guard let close = h.firstIndex(of: "]") else { return nil }
      return String(h[h.index(after: h.startIndex)..<close])
    }
    if let colon = h.lastIndex(of: ":") { h = h[..<colon] }
    return h.isEmpty ? nil : String(h)
  }

  static func isLoopbackName(_ name: String) -> Bool {
    if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
  }

  static func trimmedOrigin(_ origin: String) -> String {
    var o = origin.lowercased()
    while o.hasSuffix("/") { o.removeLast() }
    return o
  }

  static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for i in 0..<max(a.count, b.count) {
      difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
    }
    return difference == 0
  }

  /// A new random token: 128 bits from the system's generator, as hex.
  public static func generateToken() -> String {
    var g = SystemRandomNumberGenerator()
    let digits = Array("0123456789abcdef")
    return String((0..<32).map { _ in digits[Int(g.next() & 15)] })
  }
}
