import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What `listen` prints from the network is safe on a terminal and whole:
/// escape and control bytes escaped, NDJSON lines never cut or glued, one
/// idle client holding up nobody.
@Suite(.serialized) struct ListenHygieneTests {
  static func connect(_ port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = port.bigEndian
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    let r = withUnsafePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard r == 0 else { throw TestSocketError.setup(errno) }
    return fd
  }

  static func send(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { return }
      offset += n
    }
  }

  @Test func ndjsonClientsAreServedEachOnTheirOwnAndLinesStayWhole() throws {
    let port = ListenTests.freePort(datagram: false)
    let listen = try BackgroundPanelctl(
      ["listen", "--format", "ndjson", "--bind", "127.0.0.1", "\(port)", "--frames", "3", "--duration", "30"])
    #expect(listen.waitForStderr(containing: "ndjson on tcp", timeout: 10))
    // An idle client that sent half a line and nothing more.
    let idle = try Self.connect(port)
    defer { close(idle) }
    Self.send(idle, Array("{\"half\":".utf8))
    #expect(listen.waitForStderr(containing: "connection 1", timeout: 10))
    // Another client: a line with escape sequences, a 300 KiB line, and a
    // line sent in two pieces around it.
    let talker = try Self.connect(port)
    let big = "{\"big\":\"" + String(repeating: "x", count: 300 * 1024) + "\"}"
    Self.send(talker, Array("{\"a\":\"\u{1B}[2Jhi\u{9B}\u{7}\"}\n".utf8) + Array(big.utf8) + [10])
    Self.send(talker, Array("{\"b\":".utf8))
    Self.send(talker, Array("1}\n".utf8))
    close(talker)
    let result = try #require(listen.wait(timeout: 30))
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.count == 4 && lines.last == "", "\(lines.count) lines")
    #expect(lines.first == #"{"a":"\u001b[2Jhi\u009b\u0007"}"#)
    #expect(lines.dropFirst().first == big)
    #expect(lines.dropFirst(2).first == #"{"b":1}"#)
    #expect(!result.stdout.contains("\u{1B}"))
  }

  /// The issue's lock-out: 16 idle TCP connections. A new one takes the
  /// place of the one idle the longest, so the real stream gets through;
  /// and a connection that sends nothing for --idle-timeout is closed.
  @Test func idleConnectionsNeverLockTheStreamOut() throws {
    let port = ListenTests.freePort(datagram: false)
    let listen = try BackgroundPanelctl(
      ["listen", "--format", "ndjson", "--bind", "127.0.0.1", "\(port)", "--frames", "3", "--duration", "30"])
    #expect(listen.waitForStderr(containing: "ndjson on tcp", timeout: 10))
    var idle: [Int32] = []
    defer { for fd in idle { close(fd) } }
    for k in 1...16 {
      idle.append(try Self.connect(port))
      #expect(listen.waitForStderr(containing: "connection \(k)\n", timeout: 10))
    }
    let stream = try Self.connect(port)
    #expect(listen.waitForStderr(containing: "connection 1 closed for connection 17: the quietest of 16", timeout: 10))
    Self.send(stream, Array("{\"frame\":1}\n{\"frame\":2}\n{\"frame\":3}\n".utf8))
    close(stream)
    let result = try #require(listen.wait(timeout: 30))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "{\"frame\":1}\n{\"frame\":2}\n{\"frame\":3}\n", "\(result.stderr)")

    // A connection that sends nothing for --idle-timeout is closed.
    let port2 = ListenTests.freePort(datagram: false)
    let again = try BackgroundPanelctl(
      ["listen", "--format", "ndjson", "--bind", "127.0.0.1", "\(port2)", "--frames", "1", "--duration", "30",
       "--idle-timeout", "1"])
    #expect(again.waitForStderr(containing: "ndjson on tcp", timeout: 10))
    let quiet = try Self.connect(port2)
    defer { close(quiet) }
    #expect(again.waitForStderr(containing: "connection 1 closed: nothing for 1.0 s", timeout: 10))
    let talker = try Self.connect(port2)
    Self.send(talker, Array("{\"frame\":1}\n".utf8))
    close(talker)
    let second = try #require(again.wait(timeout: 30))
    #expect(second.status == 0 && second.stdout == "{\"frame\":1}\n", "\(second.stderr)")
  }

  @Test func tuioStringsAreEscapedInRawOutput() throws {
    let port = ListenTests.freePort(datagram: true)
    let listen = try BackgroundPanelctl(
      ["listen", "--raw", "--bind", "127.0.0.1", "\(port)", "--frames", "1", "--duration", "30"])
    #expect(listen.waitForStderr(containing: "tuio on udp", timeout: 10))
    ListenJSONTests.send(
      ListenJSONTests.bundle([ListenJSONTests.message("/tuio2/frm", [.i(1), .t(0, 1), .i(0), .s("evil\u{1B}]0;title\u{7}")])]),
      to: port)
    let result = try #require(listen.wait(timeout: 30))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{7}"), "\(result.stdout)")
    #expect(result.stdout.contains(#""evil\u{1B}]0;title\u{7}""#), "\(result.stdout)")
  }
}
