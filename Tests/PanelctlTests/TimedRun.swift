import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// panelctl started with posix_spawn, each line of its standard output
/// stamped with the monotonic time it arrived, so a test can hold the
/// reports' `t_us` against the wall clock; stopped with a real signal and
/// waited for with waitpid, so the time from the signal to the exit is
/// measured, not guessed.
final class TimedRun: @unchecked Sendable {
  let pid: pid_t
  private let lock = NSLock()
  private var lines: [(arrival_ns: Int64, text: String)] = []
  private var errorBytes: [UInt8] = []
  private let readers = DispatchGroup()

  /// Starts `panelctl arguments...` (paths in them absolute: it runs in the
  /// test runner's directory).
  init(_ arguments: [String]) throws {
    var out: [Int32] = [0, 0]
    var err: [Int32] = [0, 0]
    guard pipe(&out) == 0, pipe(&err) == 0 else { throw TestSocketError.setup(errno) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, out[1], 1)
    posix_spawn_file_actions_adddup2(&actions, err[1], 2)
    posix_spawn_file_actions_addclose(&actions, out[0])
    posix_spawn_file_actions_addclose(&actions, err[0])
    let argv = ([Panelctl.executable] + arguments).map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var child: pid_t = 0
    let status = posix_spawn(&child, Panelctl.executable, &actions, nil, argv, environ)
    close(out[1])
    close(err[1])
    guard status == 0 else { throw TestSocketError.setup(status) }
    pid = child
    let stdoutFD = out[0]
    let stderrFD = err[0]
    readers.enter()
    Thread.detachNewThread { [self] in
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let n = read(stdoutFD, &buffer, buffer.count)
        if n <= 0 { break }
        let now = TimedRun.now_ns()
        pending.append(contentsOf: buffer[0..<n])
        while let newline = pending.firstIndex(of: 10) {
          let text = String(decoding: pending[..<newline], as: UTF8.self)
          pending.removeFirst(newline + 1)
          lock.lock()
          lines.append((now, text))
          lock.unlock()
        }
      }
      close(stdoutFD)
      readers.leave()
    }
    readers.enter()
    Thread.detachNewThread { [self] in
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let n = read(stderrFD, &buffer, buffer.count)
        if n <= 0 { break }
        lock.lock()
        errorBytes.append(contentsOf: buffer[0..<n])
        lock.unlock()
      }
      close(stderrFD)
      readers.leave()
    }
  }

  static func now_ns() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
  }

  /// The lines so far, with their arrival times.
  var received: [(arrival_ns: Int64, text: String)] {
    lock.lock()
    defer { lock.unlock() }
    return lines
  }

  /// Standard error so far.
  var stderr: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: errorBytes, as: UTF8.self)
  }

  /// Waits (polling the pipe's progress, at most `timeout` seconds) until
  /// `count` lines have arrived.
  func waitForLines(_ count: Int, timeout: Double) -> Bool {
    let deadline = TimedRun.now_ns() + Int64(timeout * 1e9)
    while TimedRun.now_ns() < deadline {
      if received.count >= count { return true }
      usleep(1000)
    }
    return false
  }

  /// Sends `signal`; returns when it was sent.
  @discardableResult
  func send(_ signal: Int32) -> Int64 {
    let t = TimedRun.now_ns()
    kill(pid, signal)
    return t
  }

  /// Waits for the exit (SIGKILL after `timeout` seconds: then nil); returns
  /// the exit status (128 + signal when killed by one) and when it was seen.
  func waitForExit(timeout: Double) -> (status: Int32, at_ns: Int64)? {
    let deadline = TimedRun.now_ns() + Int64(timeout * 1e9)
    var status: Int32 = 0
    while true {
      let r = waitpid(pid, &status, WNOHANG)
      let now = TimedRun.now_ns()
      if r == pid {
        readers.wait()
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, now)
      }
      if now > deadline {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        readers.wait()
        return nil
      }
      usleep(200)
    }
  }

  /// How far the reports fell behind the wall clock at worst: for each
  /// report line, its arrival minus its `t_us`; the spread of that is the
  /// longest the panel was held up beyond its own frame times (0 for a
  /// panel that was never held up). Lines before `skip` (start-up) are left
  /// out, and so is the last: after a stop it comes at once, early.
  func worstHoldUp_us(skip: Int = 5) -> Int64 {
    let lags = received.dropFirst(skip).dropLast().compactMap { line -> Int64? in
      guard let t = TimedRun.tUs(line.text) else { return nil }
      return line.arrival_ns / 1000 - t
    }
    guard let low = lags.min(), let high = lags.max() else { return 0 }
    return high - low
  }

  /// The `t_us` of a report line.
  static func tUs(_ line: String) -> Int64? {
    guard let m = line.firstMatch(of: /"t_us":\s*(-?\d+)/) else { return nil }
    return Int64(m.1)
  }

  /// A copy of boards/sim-plate4.toml at `rate_hz` in `dir`: a slower
  /// panel makes two frame periods a bound that a busy test machine meets.
  static func board(rate_hz: Int, in dir: URL) throws -> String {
    let text = try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4.toml", encoding: .utf8)
      .replacingOccurrences(of: "rate_hz = 320", with: "rate_hz = \(rate_hz)")
      .replacingOccurrences(of: "\"../scenarios/", with: "\"\(Panelctl.root)/scenarios/")
    let path = dir.appendingPathComponent("sim-plate4.toml").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
}
