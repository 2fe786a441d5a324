import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// The names a request may give as its `Host` (and a page's `Origin`):
/// those that name this server. A web page of another site whose name
/// was pointed at the panel's address (DNS rebinding) sends its own name,
/// which is none of these.
///
/// - loopback names (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`);
/// - the address it listens on, or, listening on every address (`0.0.0.0`,
///   `::`), every address of the machine's interfaces (read again, at most
///   once a second, when a request names an address not known yet: DHCP
///   may have given a new one);
/// - the machine's name and that name under `.local` (mDNS);
/// - the names given with `--hostname` (a DNS name, a reverse proxy's).
public final class ServerNames: Sendable {
  let fixed: Set<String>
  let everyAddress: Bool
  let interfaces: Locked<(names: Set<String>, read_us: Int64)>
  let readInterfaces: @Sendable () -> Set<String>

  /// - Parameters:
  ///   - listen: the numeric address listened on.
  ///   - hostnames: `--hostname` names.
  ///   - machine: the machine's name (nil: none).
  ///   - interfaces: the addresses of the machine's interfaces.
  public init(
    listen ip: String, hostnames: [String], machine: String? = ServerNames.machineName(),
    interfaces: @escaping @Sendable () -> Set<String> = ServerNames.interfaceAddresses
  ) {
    var fixed = Set(hostnames.compactMap { ServerNames.normalized($0) })
    if let machine, let m = ServerNames.normalized(machine) {
      fixed.insert(m)
      fixed.insert(m + ".local")
    }
    let anyAddress = ip == "0.0.0.0" || ip == "::"
    if !anyAddress, let a = ServerNames.normalized(ip) { fixed.insert(a) }
    self.fixed = fixed
    everyAddress = anyAddress
    readInterfaces = interfaces
    self.interfaces = Locked((anyAddress ? interfaces() : [], monotonicMicroseconds()))
  }

  /// Whether `name` (a host name or address, without port) names this server.
  public func contains(_ name: String) -> Bool {
    guard let n = Self.normalized(name) else { return false }
    if Self.isLoopbackName(n) || fixed.contains(n) { return true }
    guard everyAddress, Self.isAddress(n) else { return false }
    return interfaces.withLock { i in
      if i.names.contains(n) { return true }
      let now = monotonicMicroseconds()
      guard now - i.read_us >= 1_000_000 else { return false }
      i = (readInterfaces(), now)
      return i.names.contains(n)
    }
  }

  /// Lower case, without a trailing dot; an address in its canonical text
  /// (`::1`, not `0:0:0:0:0:0:0:1`). Nil for an empty name.
  static func normalized(_ name: String) -> String? {
    var n = name.lowercased()
    while n.hasSuffix(".") { n.removeLast() }
    guard !n.isEmpty else { return nil }
    return canonicalAddress(n) ?? n
  }

  static func isLoopbackName(_ name: String) -> Bool {
    if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
  }

  static func isAddress(_ name: String) -> Bool { canonicalAddress(name) != nil }

  /// An IPv4 or IPv6 address in canonical text, nil when `text` is not one.
  static func canonicalAddress(_ text: String) -> String? {
    var v6 = in6_addr()
    var v4 = in_addr()
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    if inet_pton(AF_INET, text, &v4) == 1 {
      guard inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil else { return nil }
    } else if inet_pton(AF_INET6, text, &v6) == 1 {
      guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
    } else {
      return nil
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// gethostname(2); nil when it fails or is empty.
  public static func machineName() -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? nil : name
  }

  /// The addresses of the machine's interfaces (getifaddrs(3)).
  @Sendable public static func interfaceAddresses() -> Set<String> {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return [] }
    defer { freeifaddrs(list) }
    var names = Set<String>()
    var next: UnsafeMutablePointer<ifaddrs>? = first
    while let entry = next {
      next = entry.pointee.ifa_next
      guard let address = entry.pointee.ifa_addr else { continue }
      let family = Int32(address.pointee.sa_family)
      guard family == AF_INET || family == AF_INET6 else { continue }
      let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
      var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
      guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
      var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      // A link-local address comes with its zone (fe80::1%eth0); a Host cannot carry it.
      if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
      if let n = normalized(text) { names.insert(n) }
    }
    return names
  }
}
