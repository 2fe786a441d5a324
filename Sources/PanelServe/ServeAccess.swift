import PanelFirmware

/// Who may use the server, and how much.
///
/// - Every request must name this server in its `Host` (`ServerNames`: its
///   addresses, loopback names, the machine's name, `--hostname` names),
///   so that a web page of another site whose name was pointed at the
///   panel's address (DNS rebinding) gets nothing.
/// - Listening on loopback, every client on the machine may watch and
///   control. Listening on any other address, control needs the token: a
///   client without it (`/ws?token=...`) reads the stream, and its control
///   lines are refused.
/// - A browser's WebSocket must come from a page of this server (an
///   `Origin` whose host is one of its names and whose port is its port)
///   or from an origin allowed by `--allow-origin`; any other origin is
///   refused, so a page of another site open in the kiosk's browser can
///   neither watch nor control the panel. The `Origin` is checked against
///   the server's names, never against the request's own `Host`. Clients
///   that send no `Origin` (not browsers) are let in.
public struct ServeAccess: Sendable {
  /// The server listens on a loopback address.
  public let loopback: Bool
  /// The token that grants control when not on loopback.
  public let token: String?
  /// Origins allowed besides the server's own pages, as browsers send them
  /// (`http://kiosk.local:3000`).
  public let allowedOrigins: [String]
  /// What names this server.
  public let names: ServerNames

  public init(loopback: Bool, token: String?, allowedOrigins: [String] = [], names: ServerNames) {
    self.loopback = loopback
    self.token = token
    self.allowedOrigins = allowedOrigins.map { (try? Self.origin(allowing: $0).get()) ?? Self.trimmedOrigin($0) }
    self.names = names
  }

  /// Why a request is refused.
  public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    case host(String)
    case origin(String)

    public var description: String {
      switch self {
      case .host(let h):
        return
          "Host \(Quote.text(h)) does not name this server (its addresses, localhost, the machine's name, --hostname)"
      case .origin(let o):
        return "Origin \(Quote.text(o)) is neither this server nor an allowed origin (--allow-origin)"
      }
    }
  }

  /// Checks a request's `Host` header (any request).
  public func check(host: String?) -> Refusal? {
    guard let host, let name = Self.hostName(host), names.contains(name) else { return .host(host ?? "") }
    return nil
  }

  /// Checks a WebSocket request's `Host` and `Origin`; `port` is the port
  /// the server listens on.
  public func check(host: String?, origin: String?, port: Int) -> Refusal? {
    if let refusal = check(host: host) { return refusal }
    guard let origin else { return nil }
    let o = Self.trimmedOrigin(origin)
    if allowedOrigins.contains(o) { return nil }
    if let (name, originPort) = Self.originHost(o), originPort == port, names.contains(name) { return nil }
    return .origin(origin)
  }

  /// The origin to name in `Access-Control-Allow-Origin` for a request
  /// from a page of `origin`: itself when it is allowed (`--allow-origin`),
  /// nil for any other (the server's own pages need none).
  public func crossOrigin(_ origin: String) -> String? {
    let o = Self.trimmedOrigin(origin)
    return allowedOrigins.contains(o) ? o : nil
  }

  /// `--allow-origin`'s value as browsers send it in `Origin` (lower case,
  /// no trailing slash, no default port), or why it cannot be one: an
  /// origin is `http://` or `https://`, a host and an optional port,
  /// nothing else; `*` is refused (every site's pages could then use the
  /// panel; name each origin).
  public static func origin(allowing text: String) -> Result<String, OriginError> {
    let o = trimmedOrigin(text)
    if o == "*" {
      return .failure(
        OriginError("\"*\" would let every site's pages use the panel: give each origin, e.g. http://localhost:3000"))
    }
    guard o.hasPrefix("http://") || o.hasPrefix("https://") else {
      return .failure(OriginError("\(Quote.text(text)) is not an origin: it starts with http:// or https://, e.g. http://localhost:3000"))
    }
    guard let (host, port) = originHost(o), !host.isEmpty else {
      return .failure(
        OriginError("\(Quote.text(text)) is not an origin: a scheme, a host and an optional port, without path, e.g. http://localhost:3000"))
    }
    let https = o.hasPrefix("https://")
    let scheme = https ? "https://" : "http://"
    let name = host.contains(":") ? "[\(host)]" : host
    let defaultPort = https ? 443 : 80
    return .success(scheme + name + (port == defaultPort ? "" : ":\(port)"))
  }

  /// An `--allow-origin` value that is not an origin.
  public struct OriginError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
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

  /// The host and port of an origin (`http://name:port`, the scheme's
  /// port when none is given); nil for anything else (`null`).
  static func originHost(_ origin: String) -> (String, Int)? {
    let defaultPort: Int
    var rest: Substring
    if origin.hasPrefix("http://") {
      (defaultPort, rest) = (80, origin.dropFirst(7))
    } else if origin.hasPrefix("https://") {
      (defaultPort, rest) = (443, origin.dropFirst(8))
    } else {
      return nil
    }
    guard !rest.contains("/"), !rest.contains("@") else { return nil }
    var port = defaultPort
    let hostEnd = rest.hasPrefix("[") ? rest.firstIndex(of: "]").map { rest.index(after: $0) } : rest.lastIndex(of: ":")
    if let hostEnd, hostEnd < rest.endIndex, rest[hostEnd] == ":" {
      guard let p = Int(rest[rest.index(after: hostEnd)...]), (1...65535).contains(p) else { return nil }
      port = p
      rest = rest[..<hostEnd]
    }
    guard let name = hostName(String(rest)) else { return nil }
    return (name, port)
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
