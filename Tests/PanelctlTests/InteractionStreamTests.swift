import Foundation
import Testing

/// A report line with the interaction fields (docs/formats.md).
struct InteractionLine: Decodable {
  struct Touch: Decodable {
    var id: Int
    var phase: String
    var force: Double
    var stage: String
    var progress: Double
    var item: String?
  }
  struct Action: Decodable, Equatable {
    var title: String
    var subtitle: String?
    var icon: String?
  }
  struct Event: Decodable {
    var type: String
    var touch: Int
    var item: String?
    var side: String?
    var align: String?
    var actions: [Action]?
    var capability: String?
    var reason: String?
    var cell: Int?
    var sensitivity: String?
  }
  var t_us: Int64
  var frame: Int
  var touches: [Touch]
  var events: [Event]
  var force_capability: String

  static func decode(_ r: Panelctl.Result) throws -> [InteractionLine] {
    try r.lines.map { try JSONDecoder().decode(InteractionLine.self, from: Data($0.utf8)) }
  }
}

/// The interaction model end to end: the real panelctl on the simulated
/// plate, with the host's regions and control lines, checked event by event.
@Suite(.serialized) struct InteractionStreamTests {
  static let home = [
    "--board", "boards/sim-plate4.toml", "--scenario", "scenarios/demo-home.toml", "--regions", "regions/home.toml",
    "--control", "scenarios/demo-home.control",
  ]

  /// One event as the tests compare it.
  struct Seen: Equatable, CustomStringConvertible {
    var type: String
    var touch: Int
    var item: String?
    var extra: String = ""
    var description: String { "\(type) touch \(touch) \(item ?? "-") \(extra)" }
  }

  static func seen(_ lines: [InteractionLine]) -> [Seen] {
    lines.flatMap { line in
      line.events.map { e in
        var extra = ""
        if let side = e.side { extra += "\(side)/\(e.align ?? "?") " }
        if let a = e.actions { extra += a.map(\.title).joined(separator: "|") }
        if let c = e.capability { extra += "\(c) \(e.reason ?? "")" }
        if let c = e.cell { extra += " cell \(c)" }
        return Seen(type: e.type, touch: e.touch, item: e.item, extra: extra)
      }
    }
  }

  static let homeEvents: [Seen] = [
    // 1: a tap on the message raises nothing.
    // 2: peek and lift.
    Seen(type: "peek", touch: 2, item: "message"),
    Seen(type: "peek_cancelled", touch: 2, item: "message"),
    // 3: peek and pop.
    Seen(type: "peek", touch: 3, item: "message"),
    Seen(type: "pop", touch: 3, item: "message"),
    // 4: peek and swipe up: the message's quick actions.
    Seen(type: "peek", touch: 4, item: "message"),
    Seen(type: "quick_actions", touch: 4, item: "message", extra: "below/center Reply|Mark as Read"),
    // Lifting with the actions shown keeps them: not cancelled.
    Seen(type: "peek_actions_kept", touch: 4, item: "message"),
    // 5, 6: home-screen icons, the menu on the side with room.
    Seen(type: "quick_actions", touch: 5, item: "mail", extra: "below/left New Message|Inbox|Search"),
    Seen(type: "quick_actions", touch: 6, item: "camera", extra: "above/right Take Selfie|Record Video"),
    // Force off (control line at 7.0 s).
    Seen(type: "capability", touch: 0, item: nil, extra: "off switched_off"),
    // 7: touch and hold offers the same actions; 8: a hard press does nothing.
    Seen(type: "long_press", touch: 7, item: "message", extra: "below/center Reply|Mark as Read"),
    // Force on again (9.5 s).
    Seen(type: "capability", touch: 0, item: nil, extra: "available none"),
    // 9: peek again.
    Seen(type: "peek", touch: 9, item: "message"),
    Seen(type: "peek_cancelled", touch: 9, item: "message"),
  ]

  static func checkHome(_ lines: [InteractionLine]) {
    let events = seen(lines)
    #expect(events == homeEvents, "events:\n\(events.map(\.description).joined(separator: "\n"))")
    // Nine touches, each on the item under it.
    var items: [Int: String?] = [:]
    for line in lines { for t in line.touches where items[t.id] == nil { items[t.id] = t.item } }
    #expect(items.keys.sorted() == Array(1...9))
    #expect(items[5]! == "mail" && items[6]! == "camera" && items[2]! == "message")
    // The stage in the event's own line is the event's stage.
    for line in lines {
      for e in line.events where e.type == "peek" || e.type == "pop" {
        #expect(line.touches.first { $0.id == e.touch }?.stage == e.type, "frame \(line.frame)")
      }
    }
    // The capability field follows the announcements; with force off no
    // touch leaves stage none.
    for line in lines {
      let t = Double(line.t_us) / 1e6
      if t > 7.01 && t < 9.5 {
        #expect(line.force_capability == "off", "frame \(line.frame)")
        #expect(line.touches.allSatisfy { $0.stage == "none" })
      } else if t < 6.99 || t > 9.52 {
        #expect(line.force_capability == "available", "frame \(line.frame)")
      }
    }
    // Touch 8 pressed hard with force off: no stage, no event.
    #expect(lines.flatMap(\.touches).filter { $0.id == 8 }.map(\.force).max()! > 4)
    // Icon presses reach peek and no further; the tap reaches hint at most.
    #expect(lines.flatMap(\.touches).filter { $0.id == 5 }.map(\.stage).contains("peek"))
    #expect(!lines.flatMap(\.touches).filter { $0.id == 5 || $0.id == 1 }.map(\.stage).contains("pop"))
    #expect(!lines.flatMap(\.touches).filter { $0.id == 1 }.map(\.stage).contains("peek"))
  }

  @Test func theHomeScenarioEventByEvent() throws {
    let r = try Panelctl.run(["stream"] + Self.home + ["--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty, "\(r.stderr)")
    Self.checkHome(try InteractionLine.decode(r))
  }

  @Test func replayTakesTheSameRegionsAndControlLines() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("home.csv").path
    let record = try Panelctl.run([
      "record", "--board", "boards/sim-plate4.toml", "--scenario", "scenarios/demo-home.toml", "--out", csv,
      "--speed", "0",
    ])
    #expect(record.status == 0, "\(record.stderr)")
    let r = try Panelctl.run([
      "replay", csv, "--board", "boards/sim-plate4.toml", "--regions", "regions/home.toml", "--control",
      "scenarios/demo-home.control",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    Self.checkHome(try InteractionLine.decode(r))
  }

  @Test func progressRunsFromZeroToOneWithinEachStage() throws {
    let r = try Panelctl.run(["stream"] + Self.home + ["--speed", "0"])
    let lines = try InteractionLine.decode(r)
    let three = lines.flatMap(\.touches).filter { $0.id == 3 }
    #expect(three.allSatisfy { $0.progress >= 0 && $0.progress <= 1 })
    // Just before peek the preview transition is nearly complete; just
    // after, the commit transition starts near zero; pop is complete.
    let peekAt = three.firstIndex { $0.stage == "peek" }!
    #expect(three[peekAt - 1].progress > 0.9)
    #expect(three[peekAt].progress < 0.2)
    #expect(three.filter { $0.stage == "pop" }.allSatisfy { $0.progress == 1 })
  }

  @Test func aFaultyCellMakesForceUnavailableAndTheFallbackTakesOver() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let scenario = try BadInputTests.write(
      """
      [[touch]]
      start_s = 1.5
      x_mm = 80.0
      y_mm = 50.0
      force_n = 0.8
      hold_s = 0.8

      [[touch]]
      start_s = 4.0
      x_mm = 80.0
      y_mm = 50.0
      force = [[0.0, 0.0], [0.25, 1.5], [0.6, 1.5], [0.7, 0.0]]

      [[fault]]
      cell = 2
      start_s = 1.0
      end_s = 3.0
      """, "fault.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--scenario", scenario, "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = try InteractionLine.decode(r)
    #expect(
      Self.seen(lines) == [
        Seen(type: "capability", touch: 0, item: nil, extra: "unavailable cell_fault cell 2"),
        Seen(type: "long_press", touch: 1, item: nil, extra: ""),
        Seen(type: "capability", touch: 0, item: nil, extra: "available none"),
        Seen(type: "peek", touch: 2, item: nil),
        Seen(type: "peek_cancelled", touch: 2, item: nil),
      ], "\(Self.seen(lines))")
    // Announced a quarter of a second after the cell failed, cleared half a
    // second after it recovered; no false touch from the failed cell.
    let down = lines.first { $0.events.contains { $0.capability == "unavailable" } }!
    #expect(abs(Double(down.t_us) / 1e6 - 1.25) < 0.01)
    let up = lines.first { $0.events.contains { $0.capability == "available" } }!
    #expect(abs(Double(up.t_us) / 1e6 - 3.5) < 0.01)
    #expect(Set(lines.flatMap(\.touches).map(\.id)) == [1, 2])
  }

  @Test func withoutACalibrationForceIsUnavailable() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--uncalibrated"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = try InteractionLine.decode(r)
    let events = Self.seen(lines)
    #expect(events.first == Seen(type: "capability", touch: 0, item: nil, extra: "unavailable no_calibration"))
    #expect(lines[0].frame == 0)
    #expect(!events.contains { $0.type == "peek" || $0.type == "pop" })
    // The demo's firm press is held long enough for a long press.
    #expect(events.contains { $0.type == "long_press" })
    #expect(lines.allSatisfy { $0.force_capability == "unavailable" })
  }

  @Test func startupSwitchesOverrideTheBoard() throws {
    let off = try InteractionLine.decode(
      try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--force-touch", "off"]))
    #expect(Self.seen(off).map(\.type) == ["capability", "long_press"])
    // At Firm the demo's 1.4 N press still peeks (1.28 N) but its 4.6 N
    // press no longer pops (4.8 N).
    let firm = try InteractionLine.decode(
      try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--sensitivity", "firm"]))
    #expect(Self.seen(firm).map(\.type) == ["peek", "peek_cancelled"])
  }

  @Test func aBadRegionsFileIsOneLineNamingFileLineAndField() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let regions = try BadInputTests.write(
      """
      [[item]]
      name = "doc"
      x_mm = 10.0
      y_mm = 10.0
      width_mm = 20.0
      height_mm = 20.0
      peek = true
      pop = true
      edit_menu = true
      """, "r.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--regions", regions, "--frames", "5"])
    BadInputTests.expectOneLineError(r, contains: [regions + ":9:", "item[1] edit_menu", "peek and an edit menu"])
    let replay = try Panelctl.run(["replay", "/dev/null", "--board", "boards/sim-plate4.toml", "--regions", regions])
    BadInputTests.expectOneLineError(replay, contains: [regions + ":9:", "item[1] edit_menu"])
  }

  @Test func hapticsOnAMissingBusAreAClearError() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try BadInputTests.boardText().replacingOccurrences(of: "bus = \"sim\"", with: "bus = \"/dev/i2c-9\"")
    let board = try BadInputTests.write(text, "b.toml", in: dir)
    let r = try Panelctl.run([
      "stream", "--board", board, "--calibration", "calibration/sim-plate4.toml", "--scenario", "scenarios/demo-plate4.toml",
      "--frames", "5",
    ])
    BadInputTests.expectOneLineError(r, contains: [board + ":", "[haptics] bus", "/dev/i2c-9", "does not exist"])
  }

  @Test func aBadControlLineIsAWarningAndTheRunGoesOn() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let control = try BadInputTests.write(
      "sensitivity firm\nsensitivity very\nat 0.5 quick_actions message [{title = \"\"}]\n", "c.txt", in: dir)
    let r = try Panelctl.run([
      "stream", "--board", "boards/sim-plate4.toml", "--regions", "regions/home.toml", "--control", control,
      "--speed", "0",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let warnings = r.stderr.split(separator: "\n")
    #expect(warnings.count == 2, "\(r.stderr)")
    #expect(warnings[0] == "panelctl: warning: \(control):2: sensitivity: \"very\" is not one of light, medium, firm")
    #expect(warnings[1].hasPrefix("panelctl: warning: \(control):3: item[1].quick_action[1] title: must not be empty"))
    let lines = try InteractionLine.decode(r)
    #expect(lines.first?.events.first?.sensitivity == "firm")
  }

  /// A host changing settings through a named pipe while the panel runs in
  /// real time: each change is announced in the stream.
  @Test func controlThroughANamedPipeWhileStreaming() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let fifo = dir.appendingPathComponent("control").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let live = try LiveProcess([
      "stream", "--board", "boards/sim-plate4.toml", "--scenario", "scenarios/demo-plate4.toml", "--control", fifo,
      "--speed", "1", "--duration", "20",
    ])
    defer { live.stop() }
    let writer = try #require(LiveProcess.openWriter(fifo, timeout: 10), "panelctl never opened the pipe")
    defer { close(writer) }
    LiveProcess.write(writer, "sensitivity light\n")
    let light = live.waitForLine(timeout: 10) { $0.contains("\"sensitivity\":\"light\"") }
    #expect(light != nil, "no sensitivity event; stderr: \(live.stderr)")
    LiveProcess.write(writer, "force_touch off\n")
    let off = live.waitForLine(timeout: 10) { $0.contains("\"capability\":\"off\"") }
    #expect(off != nil, "no capability event; stderr: \(live.stderr)")
    // The second announcement comes after the first.
    if let light, let off { #expect(light < off) }
    // SIGTERM ends the run cleanly, long before its 20 s.
    let started = Date()
    live.stop()
    #expect(live.process.terminationStatus == 0)
    #expect(Date().timeIntervalSince(started) < 5)
  }
}

/// panelctl running while a test talks to it: stdout read line by line on
/// a background thread; waits are on the lines themselves, with a timeout.
final class LiveProcess: @unchecked Sendable {
  let process = Process()
  let out = Pipe()
  let err = Pipe()
  let lock = NSCondition()
  var lines: [String] = []
  var ended = false
  var errText = Data()

  init(_ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: Panelctl.executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: Panelctl.root)
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let handle = out.fileHandleForReading
    Thread.detachNewThread { [self] in
      var pending = Data()
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let nl = pending.firstIndex(of: 10) {
          let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
          pending = Data(pending[(nl + 1)...])
          lock.lock()
          lines.append(line)
          lock.broadcast()
          lock.unlock()
        }
      }
      lock.lock()
      ended = true
      lock.broadcast()
      lock.unlock()
    }
    let errHandle = err.fileHandleForReading
    Thread.detachNewThread { [self] in
      let data = errHandle.readDataToEndOfFile()
      lock.lock()
      errText = data
      lock.unlock()
    }
  }

  var stderr: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: errText, as: UTF8.self)
  }

  /// The index of the first line matching `predicate`, waiting up to
  /// `timeout` seconds for it to arrive.
  func waitForLine(timeout: Double, _ predicate: (String) -> Bool) -> Int? {
    let deadline = Date().addingTimeInterval(timeout)
    lock.lock()
    defer { lock.unlock() }
    var checked = 0
    while true {
      while checked < lines.count {
        if predicate(lines[checked]) { return checked }
        checked += 1
      }
      if ended || !lock.wait(until: deadline) { return nil }
    }
  }

  /// SIGTERM, as a host would: panelctl stops cleanly at the next frame.
  func stop() {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }

  /// Opens a FIFO for writing: the open blocks until its reader (panelctl)
  /// has opened it; after `timeout` seconds the test opens it for reading
  /// itself to release the writer, and gives up.
  static func openWriter(_ path: String, timeout: Double) -> Int32? {
    final class Box: @unchecked Sendable { var fd: Int32 = -1 }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      box.fd = open(path, O_WRONLY)
      done.signal()
    }
    if done.wait(timeout: .now() + timeout) == .success { return box.fd >= 0 ? box.fd : nil }
    let release = open(path, O_RDONLY | O_NONBLOCK)
    done.wait()
    close(release)
    close(box.fd)
    return nil
  }

  static func write(_ fd: Int32, _ text: String) {
    var text = text
    text.withUTF8 { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
  }
}
