import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `panelctl listen` receiving what `panelctl stream` sends, on loopback:
/// the link checked from both ends.
@Suite(.serialized) struct ListenTests {
  /// A port nothing listens on right now (bound, then released).
  static func freePort(datagram: Bool) -> UInt16 {
    let fd = socket(AF_INET, Int32((datagram ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
    defer { close(fd) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Int32 in
        _ = bind(fd, p, length)
        return getsockname(fd, p, &length)
      }
    }
    return UInt16(bigEndian: a.sin_port)
  }

  @Test func ndjsonListenPrintsExactlyWhatStreamSent() throws {
    let port = Self.freePort(datagram: false)
    let listen = try BackgroundPanelctl(["listen", "--format", "ndjson", "--bind", "127.0.0.1", "\(port)", "--frames", "250"])
    #expect(listen.waitForStderr(containing: "ndjson on tcp", timeout: 10))
    let stream = try Panelctl.run([
      "stream", "--board", "boards/sim-plate4.toml", "--speed", "8", "--idle", "--frames", "250",
      "--to", "127.0.0.1:\(port)", "--echo",
    ])
    #expect(stream.status == 0, "\(stream.stderr)")
    let heard = try #require(listen.wait(timeout: 30))
    #expect(heard.status == 0, "\(heard.stderr)")
    #expect(heard.stdout == stream.stdout)
    #expect(heard.stdout.split(separator: "\n").count == 250)
    #expect(heard.stderr.contains("panelctl: listen: 250 lines, 1 connections"), "\(heard.stderr)")
  }

  @Test(arguments: ["tuio", "tuio1"])
  func tuioListenDecodesEveryBundle(_ format: String) throws {
    let port = Self.freePort(datagram: true)
    let listen = try BackgroundPanelctl(["listen", "--bind", "127.0.0.1", "\(port)", "--duration", "30"])
    #expect(listen.waitForStderr(containing: "tuio on udp", timeout: 10))
    let stream = try Panelctl.run([
      "stream", "--board", "boards/sim-grid.toml", "--speed", "4", "--format", format,
      "--to", "127.0.0.1:\(port)", "--echo",
    ])
    #expect(stream.status == 0, "\(stream.stderr)")
    let sent = try #require(stream.stderr.firstMatch(of: #/udp [^:]+:\d+: sent (\d+)/#).map { Int($0.1)! })
    // Ask listen to stop (as Ctrl-C would) and collect what it printed.
    listen.process.interrupt()
    let heard = try #require(listen.wait(timeout: 30))
    #expect(heard.status == 0, "\(heard.stderr)")
    #expect(heard.stderr.contains("\(sent) packets, 0 malformed"), "\(heard.stderr)")
    struct Bundle: Decodable {
      struct Touch: Decodable {
        var id: Int
        var x: Double
        var y: Double
        var press: Double?
        var stage: String?
      }
      var tuio: Int
      var frame: Int
      var source: String
      var touches: [Touch]
      var alive: [Int]
    }
    let bundles = try heard.stdout.split(separator: "\n").map { try JSONDecoder().decode(Bundle.self, from: Data($0.utf8)) }
    #expect(bundles.count == sent)
    let byFrame = Dictionary(bundles.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
    let reports = try ReportLine.decode(stream.lines)
    for report in reports {
      let bundle = try #require(byFrame[report.frame + 1], "frame \(report.frame)")
      #expect(bundle.tuio == (format == "tuio" ? 2 : 1))
      #expect(bundle.source.hasPrefix("sim-grid/SIM-GRID-0001"))
      let live = report.touches.filter { $0.phase != "ended" && $0.phase != "cancelled" }
      #expect(bundle.alive == live.map(\.id))
      for t in live {
        let b = try #require(bundle.touches.first { $0.id == t.id })
        #expect(abs(b.x - t.x_mm / 160) < 1e-4)
        #expect(abs(b.y - t.y_mm / 120) < 1e-4)
        #expect(b.stage == t.stage)
        if format == "tuio" { #expect(abs((b.press ?? -1) - min(1, t.force / t.max_force)) < 1e-3) }
      }
    }
  }

  @Test func aBusyPortIsAnErrorNamingIt() throws {
    let host = try TestTCPHost()
    let r = try Panelctl.run(["listen", "--format", "ndjson", "--bind", "127.0.0.1", "\(host.port)", "--frames", "1"])
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: cannot listen on 127.0.0.1:\(host.port): Address already in use\n", "\(r.stderr)")
  }
}
