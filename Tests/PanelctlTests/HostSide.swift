import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP host on loopback, written with plain sockets: it accepts
/// connections and reads lines, each wait bounded by a timeout.
final class TestTCPHost {
  let listener: Int32
  let port: UInt16

  init() throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    a.sin_port = 0
    let bound = withUnsafePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(listener, 4) == 0 else { throw TestSocketError.setup(errno) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    self.listener = listener
    port = UInt16(bigEndian: a.sin_port)
  }

  deinit { close(listener) }

  /// Waits up to `timeout` seconds for a connection.
  func accept(timeout: Double) throws -> TestConnection {
    var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, Int32(timeout * 1000)) == 1 else { throw TestSocketError.timeout("accept") }
    let fd = Glibc.accept(listener, nil, nil)
    guard fd >= 0 else { throw TestSocketError.setup(errno) }
    return TestConnection(fd: fd)
  }
}

/// One accepted connection.
final class TestConnection {
  var fd: Int32
  var pending: [UInt8] = []

  init(fd: Int32) { self.fd = fd }
  deinit { if fd >= 0 { Glibc.close(fd) } }

  /// Reads lines until `stop` says so, or the peer closes (returns what was
  /// read); throws when nothing arrives for `timeout` seconds.
  func readLines(timeout: Double, until stop: (String) -> Bool = { _ in false }) throws -> [String] {
    var lines: [String] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      while let nl = pending.firstIndex(of: 10) {
        let line = String(decoding: pending[..<nl], as: UTF8.self)
        pending.removeFirst(nl + 1)
        lines.append(line)
        if stop(line) { return lines }
      }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, Int32(timeout * 1000)) == 1 else { throw TestSocketError.timeout("read") }
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { return lines }
      pending.append(contentsOf: buffer[0..<n])
    }
  }

  /// Closes at once; unread bytes make the kernel reset the connection.
  func close() {
    Glibc.close(fd)
    fd = -1
  }
}

enum TestSocketError: Error {
  case setup(Int32)
  case timeout(String)
}

/// panelctl started in the background, its output collected.
final class BackgroundPanelctl {
  let process = Process()
  let out = Pipe()
  let err = Pipe()
  let exited = DispatchSemaphore(value: 0)
  let stdoutData = Panelctl.Collected()
  let stderrData = Panelctl.Collected()
  let readers = DispatchGroup()

  init(_ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: Panelctl.executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: Panelctl.root)
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    let exited = self.exited
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    readers.enter()
    DispatchQueue.global().async { [readers, out, stdoutData] in
      stdoutData.data = out.fileHandleForReading.readDataToEndOfFile()
      readers.leave()
    }
    // Standard error chunk by chunk, so a test can wait for a line.
    readers.enter()
    DispatchQueue.global().async { [readers, err, stderrData, stderrChanged] in
      while true {
        let chunk = err.fileHandleForReading.availableData
        stderrData.lock.lock()
        stderrData.data.append(chunk)
        stderrData.lock.unlock()
        stderrChanged.signal()
        if chunk.isEmpty { break }
      }
      readers.leave()
    }
  }

  let stderrChanged = DispatchSemaphore(value: 0)

  /// Waits up to `timeout` seconds for standard error to contain `text`.
  func waitForStderr(containing text: String, timeout: Double) -> Bool {
    let deadline = DispatchTime.now() + timeout
    while true {
      stderrData.lock.lock()
      let now = String(decoding: stderrData.data, as: UTF8.self)
      stderrData.lock.unlock()
      if now.contains(text) { return true }
      if stderrChanged.wait(timeout: deadline) == .timedOut { return false }
    }
  }

  /// Waits for the exit; kills the process and returns nil after `timeout`.
  func wait(timeout: Double) -> (status: Int32, stdout: String, stderr: String)? {
    guard exited.wait(timeout: .now() + timeout) == .success else {
      process.terminate()
      _ = exited.wait(timeout: .now() + 5)
      return nil
    }
    readers.wait()
    return (
      process.terminationStatus, String(decoding: stdoutData.data, as: UTF8.self),
      String(decoding: stderrData.data, as: UTF8.self)
    )
  }
}

/// The counters of an ndjson-over-TCP summary line on standard error.
struct TCPSummary {
  var frames = 0
  var sent = 0
  var dropped = 0
  var disconnected = 0
  var queueFull = 0
  var cutOff = 0
  var connections = 0

  init?(_ stderr: String) {
    let pattern = #/frames (\d+); ndjson tcp [^:]+:\d+: sent (\d+), dropped (\d+) \(disconnected (\d+), queue full (\d+), cut off (\d+)\), connections (\d+)/#
    guard let m = stderr.firstMatch(of: pattern) else { return nil }
    frames = Int(m.1)!
    sent = Int(m.2)!
    dropped = Int(m.3)!
    disconnected = Int(m.4)!
    queueFull = Int(m.5)!
    cutOff = Int(m.6)!
    connections = Int(m.7)!
  }
}
