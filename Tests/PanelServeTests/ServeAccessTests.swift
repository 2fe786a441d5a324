import Testing

@testable import PanelServe

/// Who may watch and who may control (docs/serve.md, "Security").
@Suite struct ServeAccessTests {
  @Test func onLoopbackOnlyLoopbackHostNamesAreAnswered() {
    let a = ServeAccess(loopback: true, token: nil)
    for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "127.1.2.3", "app.localhost:80"] {
      #expect(a.check(host: host) == nil, "\(host)")
    }
    for host in ["evil.example:8080", "192.168.1.5:8080", "127.0.0.1.evil.example", "[::2]:80", ""] {
      #expect(a.check(host: host) != nil, "\(host)")
    }
    #expect(a.check(host: nil) != nil)
    // Elsewhere, any name (the token guards control).
    #expect(ServeAccess(loopback: false, token: "t").check(host: "kiosk.local:8080") == nil)
  }

  @Test func aWebSocketFromAnotherOriginIsRefused() {
    let a = ServeAccess(loopback: true, token: nil, allowedOrigins: ["http://localhost:3000/"])
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080") == nil)
    #expect(a.check(host: "localhost:8080", origin: "http://localhost:8080") == nil)
    #expect(a.check(host: "127.0.0.1:8080", origin: nil) == nil)  // not a browser
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://LOCALHOST:3000") == nil)  // allowed
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://evil.example") == .origin("http://evil.example"))
    #expect(a.check(host: "127.0.0.1:8080", origin: "http://127.0.0.1:9999") != nil)
    #expect(a.check(host: "127.0.0.1:8080", origin: "null") != nil)
  }

  @Test func offLoopbackControlNeedsTheToken() {
    let a = ServeAccess(loopback: false, token: "0123456789abcdef")
    #expect(a.grantsControl(token: "0123456789abcdef"))
    #expect(!a.grantsControl(token: nil))
    #expect(!a.grantsControl(token: "0123456789abcdeF"))
    #expect(!a.grantsControl(token: "0123456789abcdef0"))
    #expect(!a.grantsControl(token: ""))
    #expect(ServeAccess(loopback: true, token: nil).grantsControl(token: nil))
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
}
