import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware
@testable import PanelStreaming
@testable import PanelTouch

#if canImport(Glibc)
  import Glibc
#endif

/// Frame times anywhere in `Int64` (a recording's `t_us` has any origin):
/// every difference and offset of times saturates instead of trapping.
@Suite struct ExtremeTimeTests {
  static let times: [Int64] = [Int64.min, Int64.min + 1, -1, 0, Int64.max - 1, Int64.max]

  /// One frame of touch `id` at `t_us` through `interaction`; the events.
  static func frame(
    _ interaction: inout Interaction, _ phase: TouchPhase, t_us: Int64, force: Double = 2
  ) -> [EventKind] {
    var report = FrameReport()
    report.time = Time_us(rawValue: t_us)
    let touch = TrackedTouch(
      id: 1, phase: phase, x: Length_um(millimetres: 80), y: Length_um(millimetres: 50), force: Force_mN(newtons: force))
    report.append(TouchReport(touch: touch))
    interaction.update(&report)
    return (0..<report.eventCount).map { report[event: $0].kind }.filter { !$0.isPanelEvent }
  }

  @Test(arguments: times, times)
  func aLongPressAcrossAnyTwoTimes(_ down: Int64, _ later: Int64) {
    var interaction = Interaction(board: InteractionDrive.board { $0.forceTouch = false })
    _ = Self.frame(&interaction, .began, t_us: down)
    let kinds = Self.frame(&interaction, .stationary, t_us: later)
    // Held long enough exactly when the (saturated) elapsed time says so.
    let elapsed = Saturating.subtract(later, down)
    #expect(kinds == (elapsed >= 500_000 ? [.longPress] : []))
    _ = Self.frame(&interaction, .ended, t_us: later)
  }

  @Test(arguments: times, times)
  func hapticClicksAtAnyTwoTimes(_ first: Int64, _ second: Int64) throws {
    let (started, _, bus) = HapticsBench.bench()
    var feedback = started
    try feedback.start()
    feedback.respond(to: HapticsBench.report(.peek, frame: 1, t_us: first))
    bus.clearTrace()
    feedback.respond(to: HapticsBench.report(.pop, frame: 2, t_us: second))
    // The second click cancels the first only when it follows it within a
    // second of frame time.
    let cancels = second >= first && Saturating.subtract(second, first) < 1_000_000
    let stop = bus.trace.contains(.write(0x5A, [0x0C, 0x00]))
    #expect(stop == cancels, "\(bus.trace)")
    #expect(feedback.health.clicks >= 2)
  }

  @Test(arguments: times, times)
  func tuioMotionAtAnyTwoTimes(_ first: Int64, _ second: Int64) throws {
    var encoder = TUIO2Encoder(source: TUIOSource(board: TUIOEncoderTests.board(), serial: "S", address: "h"))
    let out = ByteBuffer(capacity: 4096)
    for (t, x) in [(first, 10.0), (second, 20.0)] {
      var r = FrameReport()
      r.time = Time_us(rawValue: t)
      r.append(TUIOEncoderTests.touch(1, .moved, x: x, y: 10, newtons: 1, .none))
      out.removeAll()
      encoder.encode(&r, time: .immediate, into: out)
    }
    let (_, messages) = try TUIOEncoderTests.parse(out)
    guard case .float32(let vx) = messages[1].arguments[9] else {
      Issue.record("no velocity")
      return
    }
    #expect(vx.isFinite)
    #expect((vx > 0) == (second > first))
  }

  @Test(arguments: times)
  func oscTimeTagsOfAnyTime(_ us: Int64) {
    let tag = OSCTimeTag(unixMicroseconds: us)
    // The fraction is the microseconds after the whole (floored) second.
    let micro = ((us % 1_000_000) + 1_000_000) % 1_000_000
    #expect(UInt64(tag.fraction) == (UInt64(micro) << 32) / 1_000_000)
    #expect(OSCTimeTag(unixMicroseconds: -1) == OSCTimeTag(seconds: 2_208_988_799, fraction: UInt32((999_999 << 32) / 1_000_000)))
  }

  /// A front end of empty frames at the given times.
  struct TimedFrames: FrontEnd {
    var times: [Int64]
    let cellCount = 4
    var health = FrontEndHealth()
    mutating func start() throws(FrontEndError) {}
    mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
      guard !times.isEmpty else { return false }
      frame.time = Time_us(rawValue: times.removeFirst())
      frame.valid = true
      return true
    }
  }

  /// The TUIO sink stamps the first frame with the wall clock and later
  /// ones with their distance from it, whatever the panel's clock reads.
  @Test func tuioBundlesAreStampedFromAnyFrameTime() throws {
    let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(receiver) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    try withUnsafeMutablePointer(to: &a) {
      try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
        try #require(bind(receiver, p, length) == 0 && getsockname(receiver, p, &length) == 0)
      }
    }
    let board = TUIOEncoderTests.board()
    let output = try UDPOutput(to: SocketAddress("127.0.0.1:\(UInt16(bigEndian: a.sin_port))", datagram: true), kind: "tuio")
    var sink = TUIOSink(
      encoder: TUIO2Encoder(source: TUIOSource(board: board, serial: "S", address: "h")), output: output, board: board,
      idle: true)
    let loop = ScanLoop(
      source: TimedFrames(times: [Int64.min, 0, Int64.max]), board: board,
      calibration: .nominal(board: board, gain_counts_per_n: 1000))
    let start = unixMicroseconds()
    var stamps: [OSCTimeTag] = []
    while try loop.step() {
      try sink.consume(loop)
      var packet = [UInt8](repeating: 0, count: 4096)
      let n = packet.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      try #require(n > 0)
      // /tuio2/frm f_id time dim source
      let (_, messages) = try OSCReader.parse(Array(packet[0..<n]))
      guard case .timeTag(let time) = messages.first?.arguments[1] else {
        Issue.record("no frame time in \(messages)")
        return
      }
      stamps.append(time)
    }
    #expect(stamps.count == 3)
    let now = OSCTimeTag(unixMicroseconds: start)
    #expect(stamps[0].seconds >= now.seconds && stamps[0].seconds <= now.seconds + 5, "\(stamps) \(now)")
  }

  @Test func controlLinesAtAnyTwoFrameTimes() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/c.txt"
    try "at 1.0 sensitivity light\n".write(toFile: path, atomically: true, encoding: .utf8)
    for (first, second, due) in [(Int64.max, Int64.min, false), (Int64.min, Int64.max, true)] {
      var channel = try ControlChannel(path: path, board: try Repo.board("sim-plate4"))
      defer { channel.close() }
      #expect(channel.poll(time: Time_us(rawValue: first)).due.isEmpty)
      #expect(channel.poll(time: Time_us(rawValue: second)).due.isEmpty != due)
    }
  }
}
