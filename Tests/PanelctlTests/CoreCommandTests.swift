import ForceCore
import Foundation
import PanelFirmware
import Testing

/// `panelctl core export` and `core run`: the host's half of the
/// microcontroller check (scripts/firmware-check.sh runs the other half on
/// an emulated Cortex-M4 and compares the traces).
@Suite(.serialized) struct CoreCommandTests {
  /// A recording of `board`'s demo (or of `scenario`), exported as a core
  /// script (with `extra` export options: regions, control lines).
  static func script(_ board: String, scenario: String? = nil, extra: [String] = [], in dir: URL) throws
    -> (csv: String, script: String)
  {
    let csv = dir.appendingPathComponent("rec.csv").path
    let record = try Panelctl.run(
      ["record", "--board", "boards/\(board).toml", "--out", csv, "--speed", "0"]
        + (scenario.map { ["--scenario", $0] } ?? []))
    #expect(record.status == 0, "\(record.stderr)")
    let export = try Panelctl.run(["core", "export", csv, "--board", "boards/\(board).toml"] + extra)
    #expect(export.status == 0, "\(export.stderr)")
    let script = dir.appendingPathComponent("run.core").path
    try export.stdout.write(toFile: script, atomically: true, encoding: .utf8)
    return (csv, script)
  }

  /// The trace of a script is what the board's own touch stack (the scan
  /// loop's, built from the board, calibration and regions files, the
  /// control lines applied as `replay` applies them) does with the
  /// recording, frame by frame: the core's line and the report's. The
  /// script carries the whole setup and every change.
  @Test(arguments: [
    ("sim-plate4", nil, nil, nil), ("sim-grid", nil, nil, nil),
    ("sim-plate4", "Firmware/scenarios/plate.toml", "Firmware/scenarios/plate.regions.toml",
      "Firmware/scenarios/plate.control"),
    ("sim-grid", "Firmware/scenarios/grid.toml", "Firmware/scenarios/grid.regions.toml",
      "Firmware/scenarios/grid.control"),
  ])
  func theTraceIsTheBoardsTouchStack(_ name: String, _ scenario: String?, _ regions: String?, _ control: String?) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var extra: [String] = []
    if let regions { extra += ["--regions", regions] }
    if let control { extra += ["--control", control] }
    let (csv, script) = try Self.script(name, scenario: scenario, extra: extra, in: dir)
    let run = try Panelctl.run(["core", "run", script])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.isEmpty)

    let board = try Board.load(path: Panelctl.root + "/boards/\(name).toml")
    let calibration = try CalibrationLookup.load(board: board, explicitPath: nil)
    let map = try regions.map { try RegionMap.load(path: Panelctl.root + "/" + $0, board: board) }
    var channel = try control.map { try ControlChannel(path: Panelctl.root + "/" + $0, board: board) }
    defer { channel?.close() }
    let loop = ScanLoop(
      source: try RecordingFrontEnd(path: csv, board: board), board: board, calibration: calibration, regions: map)
    var expected: [String] = []
    var frames = 0
    var events: Set<EventKind> = []
    while try loop.step() {
      let p = loop.pipeline
      let outcome = p.outcome == .seeding ? "s" : p.outcome == .measured ? "m" : "i"
      var hash: UInt32 = 0x811C_9DC5
      for k in 0..<p.cellCount {
        var bits = UInt64(bitPattern: Int64(p.image[k].rawValue))
        for _ in 0..<8 {
          hash = (hash ^ UInt32(bits & 0xFF)) &* 0x0100_0193
          bits >>= 8
        }
      }
      var line = "\(frames) \(loop.frame.time.rawValue) \(outcome) \(p.touched ? 1 : 0) "
        + "\(p.loadAbsorbed ? 1 : 0) \(String(format: "%08x", hash)) \(p.contacts.count)"
      for i in 0..<p.contacts.count {
        let c = p.contacts[i]
        line += " \(c.x.rawValue) \(c.y.rawValue) \(c.force.rawValue) \(c.peakCell) \(c.cellCount)"
      }
      expected.append(line)
      loop.withReport { r in
        guard !r.isEmpty else { return }
        let sensitivity = r.sensitivity == .light ? 0 : r.sensitivity == .medium ? 1 : 2
        var report = "report \(r.frame) \(r.time.rawValue) \(r.capability.state.rawValue) "
          + "\(r.capability.reason.rawValue) \(sensitivity) \(r.touchCount)"
        for i in 0..<r.touchCount {
          let t = r[touch: i]
          report += " \(t.touch.id) \(t.touch.phase.rawValue) \(t.touch.reason.rawValue) \(t.touch.mergedInto)"
          report += " \(t.touch.x.rawValue) \(t.touch.y.rawValue) \(t.touch.force.rawValue) \(t.stage.rawValue)"
          report += " \(t.progress_milli) \(t.item) \(t.degraded ? 1 : 0)"
        }
        report += " \(r.eventCount)"
        for i in 0..<r.eventCount {
          let e = r[event: i]
          report += " \(e.kind.rawValue) \(e.touch) \(e.item) \(e.origin.rawValue)"
          events.insert(e.kind)
        }
        expected.append(report)
      }
      // The control lines due at this frame, for the next (as `replay`).
      if channel != nil {
        for command in channel!.poll(time: loop.reportTime).due { try? loop.interaction.apply(command) }
      }
      frames += 1
    }
    let h = loop.pipeline.health
    expected.append(
      "health \(h.frames) \(h.invalidFrames) \(h.spikes) \(h.saturatedSamples) \(h.reseeds) \(h.absorbedLoads)")
    #expect(run.lines.count == expected.count)
    for (i, (got, want)) in zip(run.lines, expected).enumerated() where got != want {
      Issue.record("line \(i + 1): \(got) != \(want)")
      break
    }
    // The recording has touches: contacts and reports are compared, not
    // only idle frames; with the firmware check's items and control lines,
    // every kind of event that check must see.
    #expect(expected.contains { $0.split(separator: " ").count > 7 && !$0.hasPrefix("report") })
    #expect(expected.contains { $0.hasPrefix("report") })
    if control != nil {
      for kind in [EventKind.peek, .pop, .quickActions, .sensitivity, .regions] {
        #expect(events.contains(kind), "no \(kind.name) event")
      }
    }
  }

  /// Every setting of CoreConfiguration and every field of CellCalibration
  /// is in the script: a field added to the core without a `set` line (or a
  /// calibration number) fails here.
  @Test func theScriptCarriesEveryField() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (_, script) = try Self.script("sim-plate4", in: dir)
    let lines = try String(contentsOfFile: script, encoding: .utf8).split(separator: "\n")
    let settings = Set(lines.filter { $0.hasPrefix("set ") }.map { String($0.split(separator: " ")[1]) })
    let fields = Set(Mirror(reflecting: CoreConfiguration()).children.compactMap(\.label))
    #expect(settings == fields)
    let touch = Set(lines.filter { $0.hasPrefix("touch ") }.map { String($0.split(separator: " ")[1]) })
    let trackerFields = Set(
      Mirror(reflecting: TrackerSettings(board: try Board.load(path: Panelctl.root + "/boards/sim-plate4.toml")))
        .children.compactMap(\.label))
    #expect(touch == trackerFields)
    let interaction = Set(lines.filter { $0.hasPrefix("interaction ") }.map { String($0.split(separator: " ")[1]) })
    #expect(interaction == Set(Mirror(reflecting: InteractionSettings()).children.compactMap(\.label)))
    #expect(lines.filter { $0.hasPrefix("position ") }.count == 4)
    #expect(lines.contains { $0.hasPrefix("frames ") })
    let calibrations = lines.filter { $0.hasPrefix("calibration ") }
    #expect(calibrations.count == 4)
    let calibrationFields = Mirror(reflecting: CellCalibration.unity).children.count
    #expect(calibrations.allSatisfy { $0.split(separator: " ").count - 1 == calibrationFields })
    #expect(lines.first == "forcecore 1")
    #expect(lines.filter { $0.hasPrefix("frame ") }.count > 100)
  }

  /// A bad script is one line naming the file and the line, exit status 1.
  @Test(arguments: [
    ("forcecore 1\nplate 100 100\ncell 0 0\ncalibration 0 1 0 0 0 0 6400\nframe 0 0 1 - 5 6\n", 5, "more raw counts"),
    ("forcecore 1\ngrid 100 100 2 2 50\ncalibration 0 1 0 0 0 0 6400\nframe 0 0 1 - 1 2 3 4\n", 4, "one `calibration` line per cell"),
    ("forcecore 2\n", 1, "not a core script"),
    ("forcecore 1\nplate 100 100\nset touchOn x\n", 3, "not an integer"),
    ("forcecore 1\nplate 100 100\nset nonsense 3\n", 3, "not a setting"),
    ("forcecore 1\nplate 100 100\ncell 0 0\ncalibration 0 1 0 0 0 0 6400\n", 4, "without frames"),
  ])
  func aBadScriptNamesItsLine(_ text: String, _ line: Int, _ message: String) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let script = dir.appendingPathComponent("bad.core").path
    try text.write(toFile: script, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(["core", "run", script])
    #expect(r.status == 1)
    #expect(r.stderr.hasPrefix("panelctl: error: \(script):\(line): "), "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  @Test func aMissingScriptIsAnError() throws {
    let r = try Panelctl.run(["core", "run", "/nonexistent/run.core"])
    #expect(r.status == 1)
    #expect(r.stderr.contains("/nonexistent/run.core"), "\(r.stderr)")
  }
}
