import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Nothing from outside holds up the panel: a TCP host that talks back and
/// a control channel flooded with lines (good, bad, timed, or one endless
/// line) cost the frame loop a bounded amount of work per frame. Measured on
/// a real-time simulated panel at 20 Hz: each report's arrival against its
/// `t_us` never falls behind by more than two frame periods, and SIGTERM
/// ends the run within 100 ms while the flood goes on.
@Suite(.serialized) struct HoldUpTests {
  static let rate_hz = 20
  static let period_us = Int64(1_000_000 / rate_hz)

  /// Streams the 20 Hz panel with `extra` arguments for `seconds`, then
  /// stops it with SIGTERM; checks the hold-up and the stop.
  static func streamThenStop(
    _ extra: [String], board: String, seconds: Double, _ comment: Comment
  ) throws -> TimedRun {
    let run = try TimedRun(
      ["stream", "--board", board, "--calibration", Panelctl.root + "/calibration/sim-plate4.toml", "--idle"] + extra)
    let frames = Int(seconds * Double(rate_hz))
    #expect(run.waitForLines(frames, timeout: seconds * 4 + 5), "\(comment): \(run.received.count) lines; \(run.stderr)")
    let sent = run.send(SIGTERM)
    let exit = try #require(run.waitForExit(timeout: 10), "\(comment): no exit after SIGTERM")
    #expect(exit.status == 0, "\(comment): \(run.stderr)")
    let stop_ms = Double(exit.at_ns - sent) / 1e6
    #expect(stop_ms <= 100, "\(comment): SIGTERM answered after \(stop_ms) ms")
    let holdUp = run.worstHoldUp_us()
    #expect(holdUp <= 2 * period_us, "\(comment): held up \(holdUp) us (a frame is \(period_us) us)")
    return run
  }

  /// A host on 127.0.0.1 that accepts and sends random bytes as fast as it
  /// can, never reading.
  final class TalkativeHost: @unchecked Sendable {
    let host: TestTCPHost
    let stop = Panelctl.Collected()
    let done = DispatchSemaphore(value: 0)
    var bytesSent = 0

    init() throws {
      host = try TestTCPHost()
      Thread.detachNewThread { [self] in
        defer { done.signal() }
        guard let connection = try? host.accept(timeout: 10) else { return }
        var noise = [UInt8](repeating: 0, count: 65536)
        while !stopped {
          for i in noise.indices { noise[i] = UInt8.random(in: 0...255) }
          let n = Glibc.send(connection.fd, &noise, noise.count, Int32(MSG_NOSIGNAL))
          if n <= 0 { break }
          bytesSent += n
        }
        connection.close()
      }
    }

    var stopped: Bool {
      stop.lock.lock()
      defer { stop.lock.unlock() }
      return !stop.data.isEmpty
    }

    func finish() {
      stop.lock.lock()
      stop.data = Data([1])
      stop.lock.unlock()
      _ = done.wait(timeout: .now() + 10)
    }
  }

  @Test func aTCPHostThatTalksBackNeverHoldsUpThePanel() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let board = try TimedRun.board(rate_hz: Self.rate_hz, in: dir)
    let host = try TalkativeHost()
    let run = try Self.streamThenStop(
      ["--to", "127.0.0.1:\(host.host.port)", "--echo"], board: board, seconds: 3, "talkative host")
    host.finish()
    #expect(run.stderr.contains("127.0.0.1:\(host.host.port): connected"), "\(run.stderr)")
    // The host did talk: more than the socket buffers hold.
    #expect(host.bytesSent > 1 << 20, "the host sent \(host.bytesSent) bytes")
  }

  /// What a flooding writer sends to the control pipe, over and over.
  enum Flood: String, CaseIterable, CustomStringConvertible {
    case goodLines = "sensitivity firm\n"
    case badLines = "volume 11\n"
    case timedLines = "at 100 sensitivity firm\n"
    case oneEndlessLine = "xxxxxxxxxxxxxxxx"
    /// A regions file within every documented limit (1024 items, about
    /// 150 KB: tens of milliseconds to load and compile), over and over.
    case regionsFile = "regions big.toml\n"

    var description: String {
      switch self {
      case .goodLines: "good lines"
      case .badLines: "bad lines"
      case .timedLines: "timed lines"
      case .oneEndlessLine: "one endless line"
      case .regionsFile: "a regions file"
      }
    }
  }

  @Test(arguments: Flood.allCases)
  func aFloodedControlPipeNeverHoldsUpThePanel(_ flood: Flood) throws {
    signal(SIGPIPE, SIG_IGN)
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let board = try TimedRun.board(rate_hz: Self.rate_hz, in: dir)
    try Self.bigRegions().write(to: dir.appendingPathComponent("big.toml"), atomically: true, encoding: .utf8)
    let fifo = dir.appendingPathComponent("control").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let writer = DispatchSemaphore(value: 0)
    let written = Panelctl.Collected()
    Thread.detachNewThread {
      defer { writer.signal() }
      let fd = open(fifo, O_WRONLY)  // waits for panelctl to open its end
      guard fd >= 0 else { return }
      let chunk = Array(String(repeating: flood.rawValue, count: 65536 / flood.rawValue.utf8.count).utf8)
      var total = 0
      while true {
        let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }  // panelctl went away (EPIPE)
        total += n
      }
      close(fd)
      written.lock.lock()
      written.data = Data(String(total).utf8)
      written.lock.unlock()
    }
    // Timed lines: long enough for more than 1024 of them (16 a frame).
    let seconds = flood == .timedLines ? 4.0 : 2.0
    let run = try Self.streamThenStop(["--control", fifo], board: board, seconds: seconds, "\(flood)")
    #expect(writer.wait(timeout: .now() + 10) == .success)
    let total = Int(String(decoding: written.data, as: UTF8.self)) ?? 0
    #expect(total > 1 << 16, "the writer wrote \(total) bytes")
    // What the flood is told, a few lines at most, the rest counted.
    let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("panelctl: warning:") }
    #expect(warnings.count <= 10, "\(run.stderr)")
    switch flood {
    case .goodLines, .regionsFile:
      #expect(warnings.isEmpty, "\(run.stderr)")
    case .badLines:
      #expect(warnings.first?.contains("\(fifo):1: unknown command \"volume\"") == true, "\(run.stderr)")
      #expect(run.stderr.contains("control line warnings not shown (at most 10 a minute)"), "\(run.stderr)")
    case .timedLines:
      #expect(warnings.first?.contains("\(fifo):1025: 1024 timed lines are already waiting (the limit): refused") == true, "\(run.stderr)")
    case .oneEndlessLine:
      #expect(warnings == ["panelctl: warning: \(fifo):1: longer than 16 KiB (the limit for a control line): refused"], "\(run.stderr)")
    }
  }

  /// 1024 items over the 160 x 100 mm plate, each with a quick action.
  static func bigRegions() -> String {
    var text = "[regions]\nname = \"big\"\n"
    for k in 0..<1024 {
      let (col, row) = (k % 32, k / 32)
      text += "\n[[item]]\nname = \"item-\(k)\"\nx_mm = \(Double(col) * 5.0)\ny_mm = \(Double(row) * 3.125)\n"
      text += "width_mm = 5.0\nheight_mm = 3.125\npeek = true\npop = true\n"
      text += "\n[[item.quick_action]]\ntitle = \"Action \(k)\"\n"
    }
    return text
  }

  /// A 10 MB control line is refused with one line quoting none of it, and
  /// the lines after it are read and numbered as they are in the file.
  @Test func anOverlongControlLineIsRefusedNotCut() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let control = dir.appendingPathComponent("c.control").path
    let text = "sensitivity " + String(repeating: "x", count: 10_000_000) + "\nforce_touch maybe\n"
    try text.write(toFile: control, atomically: true, encoding: .utf8)
    let frames = 10_000_000 / 4096 + 100
    let r = try Panelctl.run(
      ["stream", "--board", "boards/sim-plate4.toml", "--control", control, "--frames", "\(frames)", "--speed", "0"],
      input: nil, timeout: 60)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr == """
        panelctl: warning: \(control):1: longer than 16 KiB (the limit for a control line): refused
        panelctl: warning: \(control):2: force_touch: "maybe" is not one of on, off

        """, "\(r.stderr.prefix(1000))")
  }

  /// A hundred thousand bad control lines: ten warnings and a count, not a
  /// hundred thousand lines.
  @Test func warningsOfOneKindAreRateLimited() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let control = dir.appendingPathComponent("c.control").path
    try String(repeating: "volume 11\n", count: 100_000).write(toFile: control, atomically: true, encoding: .utf8)
    let frames = 100_000 / 16 + 10
    let r = try Panelctl.run(
      ["stream", "--board", "boards/sim-plate4.toml", "--control", control, "--frames", "\(frames)", "--speed", "0"],
      input: nil, timeout: 120)
    #expect(r.status == 0, "\(r.stderr.prefix(2000))")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 11, "\(r.stderr.prefix(2000))")
    #expect(lines.prefix(10).allSatisfy { $0.contains("unknown command \"volume\"") })
    #expect(lines.last == "panelctl: stream: 99990 control line warnings not shown (at most 10 a minute)")
  }
}
