import PanelFirmware
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import PanelServe

/// Who may watch and who may control (docs/serve.md, "Security").
@Suite struct ServeAccessTests {
  static func names(
    _ ip: String, hostnames: [String] = [], machine: String? = "kiosk", interfaces: Set<String> = ["192.168.1.5", "fe80::1"]
  ) -> ServerNames {
    ServerNames(listen: ip, hostnames: hostnames, machine: machine, interfaces: { interfaces })
  }

  @Test func onLoopbackOnlyItsNamesAreAnswered() {
    let a = ServeAccess(loopback: true, token: nil, names: Self.names("127.0.0.1"))
    for host in [
      "127.0.0.1:8080", "localhost:8080", "LOCALHOST", "localhost.:8080", "[::1]:8080", "[0:0:0:0:0:0:0:1]:80",
      "127.1.2.3", "app.localhost:80", "kiosk:8080", "kiosk.local",
    ] {
      #expect(a.check(host: host) == nil, "\(host)")
    }
    for host in ["evil.example:8080", "192.168.1.5:8080", "127.0.0.1.evil.example", "[::2]:80", "", "kiosk.evil.example"] {
      #expect(a.check(host: host) != nil, "\(host)")
    }
    #expect(a.check(host: nil) != nil)
  }

  /// DNS rebinding off loopback: a page of evil.example whose name now
  /// points at the panel sends `Host: evil.example`, refused; the panel's
  /// addresses and names are answered.
  @Test func offLoopbackOnlyTheServersNamesAreAnswered() {
    let everywhere = ServeAccess(
      loopback: false, token: "t", names: Self.names("0.0.0.0", hostnames: ["Panel.Example.org."]))
    for host in ["192.168.1.5:8080", "[fe80::1]:8080", "panel.example.org", "kiosk.local:8080", "localhost:8080"] {
      #expect(everywhere.check(host: host) == nil, "\(host)")
    }
    for host in ["evil.example:8080", "192.168.1.6:8080", "example.org", "[fe80::2]:8080", ""] {
      #expect(everywhere.check(host: host) == .host(host), "\(host)")
    }
    // Listening on one address: that address, not the machine's others.
    let one = ServeAccess(loopback: false, token: "t", names: Self.names("10.0.0.7"))
    #expect(one.check(host: "10.0.0.7:8080") == nil)
    #expect(one.check(host: "192.168.1.5:8080") != nil)
  }

  @Test func anAddressTheMachineGotLaterIsAnsweredOnceKnown() {
    let interfaces = Locked<Set<String>>(["192.168.1.5"])
    let names = ServerNames(listen: "::", hostnames: [], machine: nil, interfaces: { interfaces.withLock { $0 } })
    #expect(!names.contains("10.1.1.1"))
    _ = interfaces.withLock { $0.insert("10.1.1.1") }
    // Read again at most once a second: a second later it is there.
    var known = false
    let deadline = monotonicMicroseconds() + 3_000_000
    while !known && monotonicMicroseconds() < deadline {
      known = names.contains("10.1.1.1")
      if !known { usleep(50_000) }
    }
    #expect(known)
  }

  @Test func aWebSocketFromAnotherOriginIsRefused() {
    let a = ServeAccess(loopback: true, token: nil, allowedOrigins: ["http://localhost:3000/"], names: Self.names("127.0.0.1"))
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", port: 8080) == nil)
    #expect(a.check(host: "localhost:8080", origin: "http://localhost:8080", port: 8080) == nil)
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://kiosk.local:8080", port: 8080) == nil)
    #expect(a.check(host: "127.0.0.1:8080", origin: nil, port: 8080) == nil)  // not a browser
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://LOCALHOST:3000", port: 8080) == nil)  // allowed
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://evil.example", port: 8080) == .origin("http://evil.example"))
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:9999", port: 8080) != nil)
    #expect(a.check(host: "127.0.0.1:80", origin: "http://127.0.0.1", port: 80) == nil)
    #expect(a.check(host: "127.0.0.1:8080", origin: "null", port: 8080) != nil)
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://user@127.0.0.1:8080", port: 8080) != nil)
  }

  /// The Origin is checked against the server's names, not against the
  /// request's own Host: a rebound page sends Host and Origin that agree.
  @Test func anOriginEqualToItsOwnHostIsNotEnough() {
    let a = ServeAccess(loopback: false, token: "t", names: Self.names("0.0.0.0"))
    #expect(a.check(host: "evil.example:8080", origin: "http://evil.example:8080", port: 8080) == .host("evil.example:8080"))
    #expect(a.check(host: "192.168.1.5:8080", origin: "http://evil.example:8080", port: 8080) == .origin("http://evil.example:8080"))
    #expect(a.check(host: "192.168.1.5:8080", origin: "http://192.168.1.5:8080", port: 8080) == nil)
  }

  @Test func offLoopbackControlNeedsTheToken() {
    let a = ServeAccess(loopback: false, token: "0123456789abcdef", names: Self.names("0.0.0.0"))
    #expect(a.grantsControl(token: "0123456789abcdef"))
    #expect(!a.grantsControl(token: nil))
    #expect(!a.grantsControl(token: "0123456789abcdeF"))
    #expect(!a.grantsControl(token: "0123456789abcdef0"))
    #expect(!a.grantsControl(token: ""))
    #expect(ServeAccess(loopback: true, token: nil, names: Self.names("127.0.0.1")).grantsControl(token: nil))
    let t = ServeAccess.generateToken()
    #expect(t.count == 32 && t.allSatisfy(\.isHexDigit))
    #expect(t != ServeAccess.generateToken())
  }

  @Test func listenAddressesKnowWhetherTheyAreLoopback() throws {
    #expect(try ListenAddress("127.0.0.1:0").loopback)
    #expect(try ListenAddress("127.0.0.1:0").port == 0)
    #expect(try ListenAddress("localhost:8080").loopback)
    #expect(try ListenAddress("[::1]:8080").loopback)
    #expect(try !ListenAddress("0.0.0.0:8080").loopback)
    #expect(try ListenAddress("[::1]:8080").url(port: 8080) == "http://[::1]:8080")
    #expect(throws: (any Error).self) { try ListenAddress("127.0.0.1:70000") }
    #expect(throws: (any Error).self) { try ListenAddress("127.0.0.1") }
  }

  /// The real machine: its interfaces' addresses include loopback's.
  @Test func theMachinesAddressesAreRead() {
    #expect(ServerNames.interfaceAddresses().contains("127.0.0.1"))
  }
}
