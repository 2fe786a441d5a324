import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Long runs show progress on a terminal and nothing in a pipe.
@Suite struct ProgressTests {
  /// Runs panelctl with standard error on a pseudo-terminal (a real tty:
  /// `isatty(2)` is true) and standard output to /dev/null; returns what
  /// the terminal showed and the exit status. Paths must be absolute.
  static func onTerminal(_ arguments: [String]) throws -> (status: Int32, terminal: String) {
    // posix_openpt by hand: the multiplexer, unlock (TIOCSPTLCK), number (TIOCGPTN).
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { throw POSIXError(.ENOTTY) }
    defer { close(master) }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
      throw POSIXError(.ENOTTY)
    }
    let slave = "/dev/pts/\(number)"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, slave, O_RDWR | O_NOCTTY, 0)
    let argv = [Panelctl.executable] + arguments
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, Panelctl.executable, &actions, nil, cArgs, environ) == 0 else { throw POSIXError(.ECHILD) }
    // Read the terminal until the child has exited and nothing is left.
    var shown: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var status: Int32 = 0
    var exited = false
    while true {
      var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      if poll(&p, 1, 100) > 0 {
        let n = read(master, &buffer, buffer.count)
        if n > 0 {
          shown += buffer[0..<n]
          continue
        }
      }
      if exited { break }
      if waitpid(pid, &status, WNOHANG) == pid { exited = true }
    }
    return ((status >> 8) & 0xFF, String(decoding: shown, as: UTF8.self))
  }

  @Test func recordWithADurationShowsItsPercentage() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Self.onTerminal([
      "record", "--board", Panelctl.root + "/boards/sim-plate4.toml", "--speed", "2", "--duration", "2", "--out", dir.path + "/r.csv",
    ])
    #expect(r.status == 0, "\(r.terminal)")
    let percents = r.terminal.matches(of: #/recording: \d+ frames \([\d.]+ s\) (\d+)%/#).map { Int($0.1)! }
    #expect(percents.count >= 2, "\(r.terminal)")
    #expect(percents == percents.sorted() && percents.allSatisfy { (0...100).contains($0) }, "\(percents)")
    // The line's last state is the end (not the last redraw, 0.2 s before),
    // and a summary follows it.
    #expect(percents.last == 100, "\(r.terminal)")
    #expect(r.terminal.contains("panelctl: record: 640 frames (2.0 s) written to \(dir.path)/r.csv"), "\(r.terminal)")
    // In a pipe: no progress, only what was written.
    let piped = try Panelctl.run([
      "record", "--board", Panelctl.root + "/boards/sim-plate4.toml", "--speed", "0", "--duration", "2", "--out", dir.path + "/p.csv",
    ])
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stderr == "panelctl: record: 640 frames (2.0 s) written to \(dir.path)/p.csv\n", "\(piped.stderr)")
  }

  /// `--flush frame`: every frame reaches the `.partial` file as it is
  /// recorded, so a kill loses none (the default writes once a second: at
  /// a hundredth of real time, not once in the 20 s this test waits).
  @Test func recordFlushedEveryFrameLosesNothingToAKill() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.path + "/k.csv"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Panelctl.executable)
    process.arguments = [
      "record", "--board", Panelctl.root + "/boards/sim-plate4.toml", "--speed", "0.01", "--duration", "60",
      "--flush", "frame", "--out", csv,
    ]
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Three frames at 3.2 frames a second: about a second.
    let partial = csv + ".partial"
    var rows = 0
    for _ in 0..<2000 where rows < 4 {
      rows = ((try? String(contentsOfFile: partial, encoding: .utf8)) ?? "").split(separator: "\n").count
      if rows < 4 { usleep(10_000) }
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(rows >= 4, "header and three frames in the .partial file before the kill (\(rows) lines)")
    let replay = try Panelctl.run([
      "replay", partial, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml", "--idle",
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.split(separator: "\n").count >= 3)
  }

  @Test func replayOfALongRecordingShowsHowMuchIsRead() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.path + "/long.csv"
    // Five minutes of the plate (96,000 frames): a second or so to replay.
    let recorded = try Panelctl.run(["record", "--board", Panelctl.root + "/boards/sim-plate4.toml", "--speed", "0", "--duration", "300", "--out", csv])
    #expect(recorded.status == 0, "\(recorded.stderr)")
    let arguments = ["replay", csv, "--board", Panelctl.root + "/boards/sim-plate4.toml", "--calibration", Panelctl.root + "/calibration/sim-plate4.toml"]
    let r = try Self.onTerminal(arguments)
    #expect(r.status == 0, "\(r.terminal)")
    let percents = r.terminal.matches(of: #/replaying: \d+ frames \([\d.]+ s\) (\d+)%/#).map { Int($0.1)! }
    #expect(percents.count >= 2, "\(r.terminal)")
    #expect(percents == percents.sorted() && percents.allSatisfy { (0...100).contains($0) }, "\(percents)")
    let piped = try Panelctl.run(arguments)
    #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
  }
}
