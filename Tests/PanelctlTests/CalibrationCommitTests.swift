import Foundation
import PanelFirmware
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One commit point for a calibration: the record and its certificates
/// become visible together. `calibrate --session ... --out` killed with
/// SIGKILL at 50 random moments always leaves a record and certificates of
/// the same run; a full disk replaces nothing; leftovers are swept.
@Suite(.serialized) struct CalibrationCommitTests {
  /// Two sessions whose runs are told apart by the panel's serial.
  struct Sessions {
    var a: String
    var b: String
  }

  static func sessions(in dir: URL) throws -> Sessions {
    let live = try CalibrateTests.run("sim-plate4")
    #expect(live.result.status == 0, "\(live.result.stderr)")
    let b = dir.appendingPathComponent("session-b").path
    try FileManager.default.copyItem(atPath: live.session, toPath: b)
    let plan = try String(contentsOfFile: b + "/plan.toml", encoding: .utf8)
    let serial = try #require(plan.firstMatch(of: /serial = "([^"]*)"/)).1
    try plan.replacingOccurrences(of: "serial = \"\(serial)\"", with: "serial = \"B-\(serial)\"")
      .write(toFile: b + "/plan.toml", atomically: true, encoding: .utf8)
    return Sessions(a: live.session, b: b)
  }

  static func calibrate(_ session: String, out: String) -> [String] {
    ["calibrate", "--board", Panelctl.root + "/boards/sim-plate4.toml", "--session", session, "--out", out]
  }

  /// What the record and the certificates say about the run they are of.
  struct Visible: Equatable {
    var recordSerial: String
    var recordCRC: String
    var jsonSerial: String
    var jsonCRC: String
    var htmlHasSerial: Bool

    var isOneRun: Bool { recordSerial == jsonSerial && recordCRC == jsonCRC && htmlHasSerial }
  }

  static func visible(_ cal: String) throws -> Visible {
    let stem = String(cal.dropLast(5))
    let record = try Data(contentsOf: URL(fileURLWithPath: cal))
    let text = String(decoding: record, as: UTF8.self)
    let serial = String(try #require(text.firstMatch(of: /serial = "([^"]*)"/)).1)
    let json = try String(contentsOfFile: stem + ".certificate.json", encoding: .utf8)
    let jsonSerial = String(try #require(json.firstMatch(of: /"serial":"([^"]*)"/)).1)
    let jsonCRC = String(try #require(json.firstMatch(of: /"record_crc32":"([^"]*)"/)).1)
    let html = try String(contentsOfFile: stem + ".certificate.html", encoding: .utf8)
    let crc = "0x" + String(CRC32.checksum(record), radix: 16).leftPadded(8)
    return Visible(
      recordSerial: serial, recordCRC: crc, jsonSerial: jsonSerial, jsonCRC: jsonCRC,
      htmlHasSerial: html.contains(serial))
  }

  /// Everything in `dir` and in its runs folder that is not the set itself
  /// (nor the factory database and its queue beside the record).
  static func leftovers(_ dir: URL) throws -> [String] {
    let fm = FileManager.default
    let top = try fm.contentsOfDirectory(atPath: dir.path).filter {
      !["c.toml", "c.certificate.html", "c.certificate.json", "c.runs"].contains($0) && !$0.hasPrefix("session")
        && !$0.hasPrefix("factory.")
    }
    let runs = try fm.contentsOfDirectory(atPath: dir.path + "/c.runs").filter { $0 != "current" }
    let current = try fm.destinationOfSymbolicLink(atPath: dir.path + "/c.runs/current")
    return top + runs.filter { $0 != current }
  }

  @Test func killedAtFiftyMomentsTheRecordAndCertificatesAreAlwaysOfOneRun() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let sessions = try Self.sessions(in: dir)
    let cal = dir.path + "/c.toml"
    // Before every ten kills, a whole run, timed (the machine's load
    // changes): the kills fall anywhere in 1.3 times that.
    var whole_us: Int64 = 0
    var committedBeforeTheKill = 0
    for i in 0..<50 {
      if i % 10 == 0 {
        let start = TimedRun.now_ns()
        let run = try TimedRun(Self.calibrate(i % 20 == 0 ? sessions.a : sessions.b, out: cal))
        #expect(try #require(run.waitForExit(timeout: 120)).status == 0, "\(run.stderr)")
        whole_us = (TimedRun.now_ns() - start) / 1000
      }
      let before = try Self.visible(cal)
      let run = try TimedRun(Self.calibrate(i % 2 == 0 ? sessions.b : sessions.a, out: cal))
      usleep(useconds_t(Int64.random(in: 0...(whole_us * 13 / 10))))
      run.send(SIGKILL)
      _ = run.waitForExit(timeout: 60)
      let v = try Self.visible(cal)
      #expect(v.isOneRun, "kill \(i): \(v)")
      if v != before { committedBeforeTheKill += 1 }
    }
    // How many of the 50 runs got as far as their commit (information: it
    // depends on where the random moments fell).
    print("CalibrationCommitTests: \(committedBeforeTheKill) of 50 killed runs had committed")
    // The next run sweeps what the kills left.
    let last = try Panelctl.run(Self.calibrate(sessions.a, out: cal))
    #expect(last.status == 0, "\(last.stderr)")
    #expect(try Self.leftovers(dir) == [])
    #expect(try Self.visible(cal).isOneRun)
  }

  /// The set's files before and after a failed run, byte for byte.
  static func snapshot(_ cal: String) throws -> [Data] {
    let stem = String(cal.dropLast(5))
    return try [cal, stem + ".certificate.html", stem + ".certificate.json"].map {
      try Data(contentsOf: URL(fileURLWithPath: $0))
    }
  }

  /// A file size limit (`ulimit -f`, what a nearly full disk does to the
  /// certificate, the largest file): exit 1 with one line, nothing replaced,
  /// nothing left behind.
  @Test func aWriteThatFailsReplacesNothing() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let sessions = try Self.sessions(in: dir)
    let cal = dir.path + "/c.toml"
    #expect(try Panelctl.run(Self.calibrate(sessions.a, out: cal)).status == 0)
    let before = try Self.snapshot(cal)
    let command = ([Panelctl.executable] + Self.calibrate(sessions.b, out: cal)).map { "'\($0)'" }.joined(separator: " ")
    let r = try Shell.run("ulimit -f 64; exec \(command)")
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("panelctl: error: ") && r.stderr.contains("File too large"), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(try Self.snapshot(cal) == before)
    #expect(try Self.leftovers(dir) == [])
  }

  /// A real full disk (a 1 MiB tmpfs with 4 KiB free), where the test may
  /// mount one (root): the same.
  @Test(.enabled(if: SmallDisk.available)) func aFullDiskReplacesNothing() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let sessions = try Self.sessions(in: dir)
    let disk = try SmallDisk(kib: 1024)
    defer { disk.unmount() }
    let cal = disk.path + "/c.toml"
    #expect(try Panelctl.run(Self.calibrate(sessions.a, out: cal)).status == 0)
    let before = try Self.snapshot(cal)
    try disk.fill(leavingKiB: 4)
    let r = try Panelctl.run(Self.calibrate(sessions.b, out: cal))
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("panelctl: error: ") && r.stderr.contains("No space left on device"), "\(r.stderr)")
    #expect(try Self.snapshot(cal) == before)
    try disk.unfill()
    #expect(try Self.leftovers(URL(fileURLWithPath: disk.path)) == [])
  }

  /// A record and certificates written before (plain files) are moved
  /// into the set, content unchanged, at the first commit.
  @Test func plainFilesFromBeforeAreTakenIntoTheSet() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let sessions = try Self.sessions(in: dir)
    let cal = dir.path + "/c.toml"
    for (name, text) in [("c.toml", "old record"), ("c.certificate.html", "old html"), ("c.certificate.json", "old json")] {
      try text.write(toFile: dir.path + "/" + name, atomically: true, encoding: .utf8)
    }
    #expect(try Panelctl.run(Self.calibrate(sessions.a, out: cal)).status == 0)
    #expect(try Self.visible(cal).isOneRun)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: cal) == "c.runs/current/c.toml")
    #expect(try Self.leftovers(dir) == [])
  }

  /// `sim truth` over a committed record replaces it through the set: the
  /// previous run's certificates do not stay beside a record they are not of.
  @Test func simTruthOverACommittedRecordLeavesNoStaleCertificate() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let sessions = try Self.sessions(in: dir)
    let cal = dir.path + "/c.toml"
    #expect(try Panelctl.run(Self.calibrate(sessions.a, out: cal)).status == 0)
    let r = try Panelctl.run(["sim", "truth", "--board", "boards/sim-plate4.toml", "--out", cal])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try String(contentsOfFile: cal, encoding: .utf8).contains("source = \"simulator\""))
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/c.certificate.json"))
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/c.certificate.html"))
  }
}

extension String {
  func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// `bash -c SCRIPT` in the repository root.
enum Shell {
  static func run(_ script: String) throws -> Panelctl.Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: Panelctl.root)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let errData = Panelctl.Collected()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      errData.data = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Panelctl.Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData.data, as: UTF8.self))
  }
}

/// A small tmpfs, for a real full disk (needs root and mount(2)).
struct SmallDisk {
  let path: String

  static let available: Bool = {
    guard geteuid() == 0, let disk = try? SmallDisk(kib: 64) else { return false }
    disk.unmount()
    return true
  }()

  init(kib: Int) throws {
    path = try Panelctl.temporaryDirectory().path
    guard mount("tmpfs", path, "tmpfs", 0, "size=\(kib)k") == 0 else { throw TestSocketError.setup(errno) }
  }

  /// Fills the disk with a file until `leavingKiB` are free.
  func fill(leavingKiB: Int) throws {
    var s = statvfs()
    statvfs(path, &s)
    let free = Int(s.f_bavail) * Int(s.f_frsize)
    let size = free - leavingKiB * 1024
    #expect(FileManager.default.createFile(atPath: path + "/.filler", contents: Data(count: max(0, size))))
  }

  func unfill() throws { try FileManager.default.removeItem(atPath: path + "/.filler") }

  func unmount() {
    umount(path)
    rmdir(path)
  }
}
