import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `listen` prints valid JSON whatever a sender puts in its OSC arguments:
/// strings escaped, NaN and infinities as null, time tags as seconds,
/// blobs as null.
@Suite(.serialized) struct ListenJSONTests {
  /// OSC 1.0 encoding, enough to craft packets by hand.
  enum Arg {
    case i(Int32), f(Float), s(String), t(UInt32, UInt32), b([UInt8])
  }

  static func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: 4 - bytes.count % 4) }
  static func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

  static func message(_ address: String, _ args: [Arg]) -> [UInt8] {
    var tags = ","
    var data: [UInt8] = []
    for a in args {
      switch a {
      case .i(let v): tags += "i"; data += be(UInt32(bitPattern: v))
      case .f(let v): tags += "f"; data += be(v.bitPattern)
      case .s(let v): tags += "s"; data += padded(Array(v.utf8))
      case .t(let s, let f): tags += "t"; data += be(s) + be(f)
      case .b(let v):
        tags += "b"
        data += be(UInt32(v.count)) + v + [UInt8](repeating: 0, count: (4 - v.count % 4) % 4)
      }
    }
    return padded(Array(address.utf8)) + padded(Array(tags.utf8)) + data
  }

  static func bundle(_ messages: [[UInt8]]) -> [UInt8] {
    var out = Array("#bundle\0".utf8) + be(0) + be(1)
    for m in messages { out += be(UInt32(m.count)) + m }
    return out
  }

  static func send(_ bytes: [UInt8], to port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = port.bigEndian
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
  }

  @Test func craftedArgumentsPrintAsValidJSON() throws {
    let port = ListenTests.freePort(datagram: true)
    let listen = try BackgroundPanelctl(["listen", "--bind", "127.0.0.1", "\(port)", "--frames", "2", "--duration", "30"])
    #expect(listen.waitForStderr(containing: "tuio on udp", timeout: 10))
    let source = "pa\"nel\\one\nline\u{1}"
    Self.send(
      Self.bundle([
        Self.message("/tuio2/frm", [.i(7), .t(3_913_056_000, 2_147_483_648), .i(0), .s(source)]),
        Self.message("/tuio2/ptr", [.i(1), .i(0), .i(0), .f(.nan), .f(.infinity), .f(0), .f(0), .f(0), .b([1, 2, 3])]),
        Self.message("/forcepanel/stage", [.i(1), .s("pe\"ek"), .f(-.infinity)]),
        Self.message("/forcepanel/event", [.s("po\"p"), .t(3_913_056_000, 0)]),
        Self.message("/other\"path", [.f(1.5)]),
      ]), to: port)
    Self.send(Self.bundle([Self.message("/tuio/2Dcur", [.s("set"), .i(3), .f(0.25), .f(.nan), .f(1e30), .f(-0.0), .f(0)])]), to: port)
    let heard = try #require(listen.wait(timeout: 30))
    #expect(heard.status == 0, "\(heard.stderr)")
    let lines = heard.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "\(heard.stdout)")
    let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)") }
    let first = objects[0]
    #expect(first["source"] as? String == source)
    #expect(first["frame"] as? Int == 7)
    #expect(abs((first["time"] as? Double ?? 0) - 1_704_067_200.5) < 1e-6)
    let touch = try #require((first["touches"] as? [[String: Any]])?.first)
    #expect(touch["x"] is NSNull && touch["y"] is NSNull && touch["press"] is NSNull)
    #expect(touch["stage"] as? String == "pe\"ek")
    #expect(touch["force_n"] is NSNull)
    let event = try #require((first["events"] as? [[String: Any]])?.first)
    #expect(event["type"] as? String == "po\"p")
    #expect(event["touch"] as? Double == 1_704_067_200)
    #expect(first["unknown"] as? String == "/other\"path ,f")
    let second = try #require((objects[1]["touches"] as? [[String: Any]])?.first)
    #expect(second["x"] as? Double == 0.25)
    #expect(second["y"] is NSNull)
    #expect(second["vx"] as? Double == 1e30)
  }
}
