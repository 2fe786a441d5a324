import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `panelctl monitor` on a real terminal (tmux, 80x24) while two fingers
/// press and slide on the simulated grid, and in a pipe.
@Suite(.serialized) struct MonitorTests {
  /// Runs a tmux command on the test's own server and returns what it
  /// printed. Spawned with posix_spawn and waited for with waitpid:
  /// Foundation's Process would also wait for the tmux server that
  /// new-session leaves running.
  static func tmux(_ arguments: [String]) throws -> String {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let argv = ["tmux", "-L", "panelctl-monitor-test-\(getpid())"] + arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    guard posix_spawnp(&pid, "tmux", &actions, nil, cArgs, environ) == 0 else {
      throw MonitorTestError.tmux(arguments, -1)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exit = (status >> 8) & 0xFF
    guard status & 0x7F == 0, exit == 0 else { throw MonitorTestError.tmux(arguments, exit) }
    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
  }

  enum MonitorTestError: Error { case tmux([String], Int32) }

  @Test func drawsTheHeatmapTouchesAndHealthOn80x24() throws {
    _ = try? Self.tmux(["kill-server"])
    let command = [
      Panelctl.executable, "monitor", "--board", "boards/sim-grid.toml",
      "--scenario", "scenarios/two-finger-press.toml", "--speed", "1", "--refresh", "20",
    ].joined(separator: " ")
    _ = try Self.tmux(["new-session", "-d", "-x", "80", "-y", "24", "-s", "m", "-c", Panelctl.root, command])
    defer { _ = try? Self.tmux(["kill-server"]) }
    // Wait (up to 30 s) for the screen to show the pressing finger at peek
    // while the other one is down.
    var screen = ""
    let deadline = Date().addingTimeInterval(30)
    repeat {
      guard let now = try? Self.tmux(["capture-pane", "-p", "-t", "m"]) else { break }
      screen = now
      let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
      if rows.contains(where: { $0.hasPrefix("    1 ") && $0.hasSuffix("peek") }) && rows.contains(where: { $0.hasPrefix("    2 ") }) {
        break
      }
      Thread.sleep(forTimeInterval: 0.05)  // polling the screen, not waiting for a result
    } while Date() < deadline
    let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    try #require(rows.count >= 24, "\(screen)")
    #expect(rows.contains { $0.hasPrefix("    1 ") && $0.hasSuffix("peek") }, "\(screen)")
    #expect(rows.count <= 25)
    #expect(rows.allSatisfy { $0.count <= 80 }, "\(screen)")
    #expect(rows[0].hasPrefix("panelctl monitor  sim-grid  SIM-GRID-0001"))
    #expect(rows[0].contains(" Hz  frame "))
    #expect(rows[1].contains("touched"))
    // The heatmap: a bordered field with the pressing finger (1) on dense
    // shades and the sliding one (2) on lighter ones.
    #expect(rows[2].hasPrefix("+---") && rows[2].contains("+ "))
    #expect(rows.contains { $0.contains("\u{2588}1\u{2588}") || $0.contains("\u{2593}1\u{2593}") }, "\(screen)")
    #expect(rows.contains { $0.contains("2") && $0.contains("\u{2591}") })
    for label in ["total N", "peak cell N", "touch on N", "Health", "invalid", "missed", "bus errors", "spikes", "absorbed"] {
      #expect(screen.contains(label), "\(label)")
    }
    #expect(rows.contains { $0.hasPrefix("   id  phase") })
    #expect(rows.last(where: { !$0.isEmpty })?.hasPrefix("events: peek #1") == true, "\(screen)")
  }

  @Test func quietInAPipe() throws {
    let r = try Panelctl.run([
      "monitor", "--board", "boards/sim-plate4.toml", "--speed", "0",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(r.stderr == "panelctl: monitor: frames 1728; monitor: 4 touches, 2 events\n")
  }
}
