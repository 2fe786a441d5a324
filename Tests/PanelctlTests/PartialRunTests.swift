import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Runs that end badly part-way: what was begun is ended, what was
/// recorded is on disk.
@Suite struct PartialRunTests {
  /// `record` (and `stream --record`) flush every `rate_hz` frames (about
  /// once a second): while the run goes on, the `.partial` file holds
  /// whole seconds of rows long before the writer's 64 KiB buffer would
  /// fill (about 5 s of the plate), and a `kill -9` keeps them.
  @Test(arguments: [
    ["record", "--board", "boards/sim-plate4.toml", "--speed", "1", "--duration", "60", "--out"],
    ["stream", "--board", "boards/sim-plate4.toml", "--speed", "1", "--duration", "60", "--record"],
  ])
  func aRecordingGrowsOnDiskWhileItRuns(_ command: [String]) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("live.csv").path
    let run = try BackgroundPanelctl(command + [csv])
    defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
    let header = "t_us,raw_0,raw_1,raw_2,raw_3,temp_c\n"
    // Wait (up to 20 s) for a second's rows to reach the file.
    let deadline = Date().addingTimeInterval(20)
    var size = 0
    while Date() < deadline {
      size = ((try? FileManager.default.attributesOfItem(atPath: csv + ".partial"))?[.size] as? Int) ?? 0
      if size > header.utf8.count { break }
      Thread.sleep(forTimeInterval: 0.05)  // polling the file's size, not waiting for a result
    }
    #expect(size > header.utf8.count, "the .partial file stayed at \(size) bytes")
    // A flush is a second of rows (about 13 KB); a full buffer would be 64 KiB.
    #expect(size < 48 * 1024, "the first rows reached the file only with a full buffer (\(size) bytes)")
    #expect(run.process.isRunning, "the run ended before the file grew")
    kill(run.process.processIdentifier, SIGKILL)
    _ = run.wait(timeout: 10)
    let text = try String(contentsOfFile: csv + ".partial", encoding: .utf8)
    #expect(text.hasPrefix(header))
    let rows = text.dropFirst(header.count).split(separator: "\n")
    // Whole seconds of the plate's 320 Hz.
    #expect(rows.count >= 320 && rows.count % 320 == 0, "\(rows.count) rows")
    #expect(rows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 6 })
    #expect(text.hasSuffix("\n"))
  }
}
