import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// Where the server listens: `HOST:PORT` (`[v6]:PORT`), resolved once to
/// an address. Port 0 takes any free port (the one taken is printed).
public struct ListenAddress: Sendable, Equatable {
  /// As given, for messages.
  public let text: String
  /// The numeric address the server binds.
  public let ip: String
  public let port: Int
  /// A loopback address (127.0.0.0/8, ::1): only this machine reaches it.
  public let loopback: Bool

  public init(_ text: String) throws(SocketError) {
    self.text = text
    let (host, port) = try SocketAddress.parse(text, defaultPort: nil, ports: 0...65535)
    self.port = Int(port)
    ip = try ListenAddress.resolve(host)
    loopback = ListenAddress.isLoopback(ip)
  }

  /// A URL of this address for people, e.g. `http://127.0.0.1:8080`
  /// (`port` the one actually bound).
  public func url(port: Int, scheme: String = "http") -> String {
    let host = ip.contains(":") ? "[\(ip)]" : ip
    return "\(scheme)://\(host):\(port)"
  }

  /// URLs of the server that other machines can open: listening on every
  /// address (`0.0.0.0`, `::`), one per address of the machine's
  /// interfaces that is not loopback or link-local (IPv4 first); else
  /// this address's.
  public func reachable(port: Int, interfaces: Set<String> = ServerNames.interfaceAddresses()) -> [String] {
    guard ip == "0.0.0.0" || ip == "::" else { return [url(port: port)] }
    let usable = interfaces.filter { a in
      !ListenAddress.isLoopback(a) && !a.hasPrefix("fe80:") && !a.hasPrefix("169.254.") && (ip == "::" || !a.contains(":"))
    }
    let sorted = usable.sorted { ($0.contains(":") ? 1 : 0, $0) < ($1.contains(":") ? 1 : 0, $1) }
    if sorted.isEmpty { return [url(port: port)] }
    return sorted.map { a in "http://\(a.contains(":") ? "[\(a)]" : a):\(port)" }
  }

  static func resolve(_ host: String) throws(SocketError) -> String {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_PASSIVE
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, nil, &hints, &list)
    guard status == 0, let first = list else {
      let why = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
      throw SocketError("cannot resolve \"\(host)\": \(why)")
    }
    defer { freeaddrinfo(list) }
    var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    let n = getnameinfo(
      first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
    guard n == 0 else { throw SocketError("cannot resolve \"\(host)\": \(String(cString: gai_strerror(n)))") }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func isLoopback(_ ip: String) -> Bool {
    ip == "::1" || ip.hasPrefix("127.") || ip.hasPrefix("::ffff:127.")
  }
}
