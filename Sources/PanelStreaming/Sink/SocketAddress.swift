import PanelFormats
import PanelHardware

#if canImport(Glibc)
  import Glibc
#endif

/// A network endpoint parsed from `HOST:PORT` (`[v6]:PORT` for an IPv6
/// literal) and resolved once, at setup (getaddrinfo).
public struct SocketAddress: Sendable {
  /// As the user wrote it, for messages.
  public let text: String
  public let host: String
  public let port: UInt16
  var storage = sockaddr_storage()
  var length: socklen_t = 0
  var family: Int32 { Int32(storage.ss_family) }

  /// Parses `HOST:PORT`, `[v6]:PORT` or `HOST` (with `defaultPort`);
  /// `ports` are the ports allowed (a server may take 0, any free port).
  public static func parse(
    _ text: String, defaultPort: UInt16?, ports: ClosedRange<Int> = 1...65535
  ) throws(SocketError) -> (host: String, port: UInt16) {
    var host = Substring(text)
    var portText: Substring?
    if host.hasPrefix("[") {
      guard let close = host.firstIndex(of: "]") else {
        throw SocketError("\"\(text)\": missing ] after the IPv6 address")
      }
      let rest = host[host.index(after: close)...]
      host = host[host.index(after: host.startIndex)..<close]
      if !rest.isEmpty {
        guard rest.hasPrefix(":") else { throw SocketError("\"\(text)\": expected :PORT after ]") }
        portText = rest.dropFirst()
      }
    } else if let colon = host.lastIndex(of: ":") {
      if host[..<colon].contains(":") {
        throw SocketError("\"\(text)\": write an IPv6 address as [ADDRESS]:PORT")
      }
      portText = host[host.index(after: colon)...]
      host = host[..<colon]
    }
    guard !host.isEmpty else { throw SocketError("\"\(text)\": no host (expected HOST:PORT)") }
    let port: UInt16
    if let portText {
      guard let p = Int(portText), ports.contains(p) else {
        throw SocketError("\"\(text)\": the port must be a number from \(ports.lowerBound) to \(ports.upperBound)")
      }
      port = UInt16(p)
    } else if let defaultPort {
      port = defaultPort
    } else {
      throw SocketError("\"\(text)\": no port (expected HOST:PORT)")
    }
    return (String(host), port)
  }

  /// Parses and resolves `text` for a datagram (UDP) or stream (TCP) socket.
  public init(_ text: String, defaultPort: UInt16? = nil, datagram: Bool) throws(SocketError) {
    let (host, port) = try SocketAddress.parse(text, defaultPort: defaultPort)
    self.text = text
    self.host = host
    self.port = port
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let first = list else {
      let why = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
      throw SocketError("cannot resolve \"\(host)\": \(why)")
    }
    defer { freeaddrinfo(list) }
    length = first.pointee.ai_addrlen
    withUnsafeMutableBytes(of: &storage) { dst in
      dst.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
    }
  }

  /// The wildcard address of `port` (IPv4 0.0.0.0), for servers.
  public init(anyPort port: UInt16) {
    text = "0.0.0.0:\(port)"
    host = "0.0.0.0"
    self.port = port
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = port.bigEndian
    a.sin_addr.s_addr = INADDR_ANY
    withUnsafeMutableBytes(of: &storage) { dst in
      withUnsafeBytes(of: &a) { dst.copyMemory(from: $0) }
    }
    length = socklen_t(MemoryLayout<sockaddr_in>.size)
  }

  /// Calls `body` with the address as a `sockaddr`.
  func withSockaddr<R, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
    let result: Result<R, E> = withUnsafeBytes(of: storage) { raw in
      do throws(E) {
        return .success(try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}

/// A socket could not be set up: the message names the address and why.
public struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Small socket helpers shared by the outputs and `listen`.
enum Sockets {
  /// The local IPv4 address of a connected socket in TUIO's hex form
  /// (`0x7F000001`), or the host name for other families.
  static func localAddressForTUIO(_ socket: FileDescriptor) -> String {
    let storage = try? socket.localAddress()
    if let storage, Int32(storage.ss_family) == AF_INET {
      let a = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
      let v = UInt32(bigEndian: a.sin_addr.s_addr)
      let digits = Array("0123456789ABCDEF")
      var s = "0x"
      for shift in stride(from: 28, through: 0, by: -4) { s.append(digits[Int((v >> UInt32(shift)) & 0xF)]) }
      return s
    }
    var name = [CChar](repeating: 0, count: 256)
    if gethostname(&name, name.count - 1) == 0 {
      return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return "localhost"
  }
}

extension SocketAddress {
  /// A socket bound to this address (SO_REUSEADDR), for receiving: UDP, or
  /// TCP (not yet listening). The caller closes it. A UDP socket asks for
  /// a 4 MiB receive buffer (SO_RCVBUF; the kernel caps it at
  /// `net.core.rmem_max`, 208 KiB by default), so a listener that is
  /// descheduled for a moment does not lose a burst of 2000 bundles a
  /// second.
  public func boundSocket(datagram: Bool) throws(SocketError) -> FileDescriptor {
    let type = datagram ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
    let socket: FileDescriptor
    do {
      socket = try .socket(family: family, type: type)
    } catch {
      throw SocketError("socket for \(text): \(error)")
    }
    socket.setOption(level: SOL_SOCKET, SO_REUSEADDR, 1)
    if datagram { socket.setOption(level: SOL_SOCKET, SO_RCVBUF, 4 << 20) }
    do throws(Errno) {
      try withSockaddr { (a, n) throws(Errno) in try socket.bind(a, n) }
    } catch {
      socket.close()
      throw SocketError("cannot listen on \(text): \(error)")
    }
    return socket
  }
}
