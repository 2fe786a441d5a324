import Foundation
import Testing

/// NDJSON over TCP against a real host socket: the host going away and
/// coming back, a host that stops reading, no host at all. The sensing loop
/// must never wait on the network: reports are dropped and counted instead,
/// and every frame is still processed.
@Suite(.serialized) struct StreamNetworkTests {
  /// Frame k of a simulated panel at `rate` Hz is stamped k * 1e6 / rate us.
  static func checkPanelClock(_ lines: [ReportLine], rate: Int64) {
    for l in lines { #expect(l.t_us == Int64(l.frame) * 1_000_000 / rate, "frame \(l.frame)") }
  }

  static func contiguous(_ lines: [ReportLine]) -> Bool {
    zip(lines, lines.dropFirst()).allSatisfy { $1.frame == $0.frame + 1 }
  }

  @Test func aHostThatDisconnectsAndReconnectsLosesNoFrames() throws {
    let host = try TestTCPHost()
    let frames = 480  // 1.5 s at 320 Hz in real time, ending with no touch down
    let run = try BackgroundPanelctl([
      "stream", "--board", "boards/sim-plate4.toml", "--speed", "1", "--idle",
      "--frames", "\(frames)", "--to", "127.0.0.1:\(host.port)",
    ])
    // First connection: read about a second of reports, then hang up with
    // reports still unread (the kernel resets the connection).
    let first = try host.accept(timeout: 10)
    let a = try ReportLine.decode(first.readLines(timeout: 10) { $0.contains("\"frame\":200,") })
    first.close()
    // The stream reconnects by itself; read the rest.
    let second = try host.accept(timeout: 10)
    let b = try ReportLine.decode(second.readLines(timeout: 10))
    let result = try #require(run.wait(timeout: 30))
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try #require(TCPSummary(result.stderr), "\(result.stderr)")

    // Every sensing frame was processed, and each was offered to the host
    // exactly once: sent or counted as dropped.
    #expect(summary.frames == frames)
    #expect(summary.sent + summary.dropped == frames)
    #expect(summary.connections == 2)
    #expect(summary.queueFull == 0)
    #expect(summary.dropped > 0)  // while away
    #expect(a.count + b.count <= summary.sent)
    // Within a connection nothing is missing; after it the stream resumes
    // and runs to the last frame.
    #expect(a.last?.frame == 200)
    #expect(Self.contiguous(a) && Self.contiguous(b))
    #expect((b.first?.frame ?? 0) > 200)
    #expect(b.last?.frame == frames - 1)
    Self.checkPanelClock(a + b, rate: 320)
  }

  @Test func aHostThatStopsReadingDoesNotStallTheLoop() throws {
    let host = try TestTCPHost()
    let frames = 3000
    // As fast as the panel simulates, with the force image on every line:
    // far more than the socket buffers and the queue can hold.
    let run = try BackgroundPanelctl([
      "stream", "--board", "boards/sim-grid.toml", "--speed", "0", "--idle", "--image",
      "--frames", "\(frames)", "--to", "127.0.0.1:\(host.port)",
    ])
    let connection = try host.accept(timeout: 10)
    // The host reads nothing until the stream has ended: were any write to
    // wait for it, the run would never end.
    let result = try #require(run.wait(timeout: 60), "panelctl stalled on a host that does not read")
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try #require(TCPSummary(result.stderr), "\(result.stderr)")
    #expect(summary.frames == frames)
    #expect(summary.queueFull > 0)
    #expect(summary.sent + summary.dropped == frames)
    #expect(summary.connections == 1)
    // What did arrive is whole lines, in order, each with the image.
    let lines = try connection.readLines(timeout: 10)
    #expect(lines.count == summary.sent)
    let reports = try ReportLine.decode(lines)
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.frame < $1.frame })
    for line in lines.prefix(50) {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect((object?["image_n"] as? [Double])?.count == 48)
    }
  }

  @Test func noHostAtAllCostsReportsNotFrames() throws {
    let host = try TestTCPHost()
    let port = host.port
    _ = consume host  // closed: nothing listens on the port any more
    let r = try Panelctl.run([
      "stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--idle", "--frames", "500",
      "--to", "127.0.0.1:\(port)",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let summary = try #require(TCPSummary(r.stderr), "\(r.stderr)")
    #expect(summary.frames == 500)
    #expect(summary.sent == 0)
    #expect(summary.disconnected == 500)
    #expect(summary.connections == 0)
    #expect(r.stderr.contains("cannot connect, retrying: Connection refused"))
  }

  @Test func echoWritesTheSameReportsOnStandardOutput() throws {
    let host = try TestTCPHost()
    let run = try BackgroundPanelctl([
      "stream", "--board", "boards/sim-plate4.toml", "--speed", "4", "--to", "127.0.0.1:\(host.port)", "--echo",
    ])
    let connection = try host.accept(timeout: 10)
    let received = try connection.readLines(timeout: 20)
    let result = try #require(run.wait(timeout: 30))
    #expect(result.status == 0, "\(result.stderr)")
    let echoed = result.stdout.split(separator: "\n").map(String.init)
    #expect(echoed.count > 100)
    #expect(received == echoed)
  }

  @Test(arguments: [
    (["--to", "localhost:70000"], "the port must be a number from 1 to 65535"),
    (["--to", ":3333"], "no host"),
    (["--format", "tuio", "--image"], "--image needs --format ndjson"),
    (["--echo"], "--echo needs --to"),
  ])
  func badOutputOptionsAreUsageErrors(_ extra: [String], _ message: String) throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--frames", "1"] + extra)
    #expect(r.status == 64, "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
  }

  @Test func anUnresolvableHostIsAnError() throws {
    let r = try Panelctl.run([
      "stream", "--board", "boards/sim-plate4.toml", "--frames", "1", "--to", "no-such-host.invalid:4000",
    ])
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("panelctl: error: cannot resolve \"no-such-host.invalid\""), "\(r.stderr)")
  }
}

/// `stream --record`: the raw frames recorded while streaming replay into
/// the same reports.
@Suite struct StreamRecordTests {
  @Test func recordingWhileStreamingReplaysToTheSameReports() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("live.csv").path
    // 3 s: the firm press is still down at the end, so the run's last
    // report cancels it without a new frame (and adds no row).
    let live = try Panelctl.run([
      "stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--frames", "960", "--record", csv,
    ])
    #expect(live.status == 0, "\(live.stderr)")
    let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
    #expect(rows.count == 1 + 960)
    let replay = try Panelctl.run([
      "replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml",
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout == live.stdout)
    #expect(live.lines.last?.contains("\"phase\":\"cancelled\"") == true)
  }
}
