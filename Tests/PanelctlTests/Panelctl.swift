import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the built `panelctl` as a separate process, as a user would.
enum Panelctl {
  static let root: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
  }()

  /// The panelctl binary beside the test bundle (the same build).
  static let executable: String = {
    if let path = ProcessInfo.processInfo.environment["PANELCTL"] { return path }
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
    return dir.appendingPathComponent("panelctl").path
  }()

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
  }

  /// How long one run may take before it is killed and the test fails: no
  /// command a test runs takes more than a few seconds, so a panelctl that
  /// hangs fails its test instead of hanging `swift test`.
  static let timeout_s = 120.0

  /// A run that did not end within its time: killed.
  struct Timeout: Error, CustomStringConvertible {
    var arguments: [String]
    var seconds: Double
    var stderr: String
    var description: String {
      "panelctl \(arguments.joined(separator: " ")) did not end within \(seconds) s and was killed; stderr: \(stderr)"
    }
  }

  /// Runs `panelctl arguments...` in the repository root.
  static func run(_ arguments: [String]) throws -> Result { try run(arguments, input: nil) }

  /// Runs `panelctl arguments...` with `input` on its standard input (nil:
  /// /dev/null), killing it (SIGKILL) after `timeout` seconds: then it
  /// throws `Timeout`.
  static func run(_ arguments: [String], input: String?, timeout: Double = timeout_s) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    try process.run()
    // The watchdog: SIGKILL once the time is up (the pipes then close, so
    // the reads below end).
    let killed = Collected()
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem {
      killed.lock.lock()
      killed.data = Data([1])
      killed.lock.unlock()
      kill(pid, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    if let input {
      stdin.fileHandleForWriting.write(Data(input.utf8))
      try stdin.fileHandleForWriting.close()
    }
    // Read both pipes to the end before waiting, so a full pipe cannot stall.
    let errData = Collected()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      errData.data = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    watchdog.cancel()
    killed.lock.lock()
    let timedOut = !killed.data.isEmpty
    killed.lock.unlock()
    if timedOut {
      throw Timeout(arguments: arguments, seconds: timeout, stderr: String(decoding: errData.data, as: UTF8.self))
    }
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData.data, as: UTF8.self))
  }

  /// Bytes filled in by another thread before the group is waited for.
  final class Collected: @unchecked Sendable {
    var data = Data()
    let lock = NSLock()
  }

  /// A fresh temporary directory.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("panelctl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}

/// A report line of the NDJSON stream, decoded.
struct ReportLine: Decodable {
  struct Touch: Decodable {
    var id: Int
    var phase: String
    var x_mm: Double
    var y_mm: Double
    var force_n: Double
    var force: Double
    var max_force: Double
    var stage: String
  }
  struct Event: Decodable {
    var type: String
    var touch: Int
  }
  var t_us: Int64
  var frame: Int
  var touches: [Touch]
  var events: [Event]

  static func decode(_ lines: [String]) throws -> [ReportLine] {
    try lines.map { try JSONDecoder().decode(ReportLine.self, from: Data($0.utf8)) }
  }
}
