import ForceCore
import Foundation
import PanelFirmware
import Testing

/// `panelctl core export` and `core run`: the host's half of the
/// microcontroller check (scripts/firmware-check.sh runs the other half on
/// an emulated Cortex-M4 and compares the traces).
@Suite(.serialized) struct CoreCommandTests {
  /// A recording of `board`'s demo, exported as a core script.
  static func script(_ board: String, in dir: URL) throws -> (csv: String, script: String) {
    let csv = dir.appendingPathComponent("rec.csv").path
    let record = try Panelctl.run(["record", "--board", "boards/\(board).toml", "--out", csv, "--speed", "0"])
    #expect(record.status == 0, "\(record.stderr)")
    let export = try Panelctl.run(["core", "export", csv, "--board", "boards/\(board).toml"])
    #expect(export.status == 0, "\(export.stderr)")
    let script = dir.appendingPathComponent("run.core").path
    try export.stdout.write(toFile: script, atomically: true, encoding: .utf8)
    return (csv, script)
  }

  /// The trace of a script is what the board's own pipeline (the scan
  /// loop's, built from the board and calibration files) does with the
  /// recording, frame by frame: the script carries the whole setup.
  @Test(arguments: ["sim-plate4", "sim-grid"])
  func theTraceIsTheBoardsPipeline(_ name: String) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (csv, script) = try Self.script(name, in: dir)
    let run = try Panelctl.run(["core", "run", script])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.isEmpty)

    let board = try Board.load(path: Panelctl.root + "/boards/\(name).toml")
    let calibration = try CalibrationLookup.load(board: board, explicitPath: nil)
    let loop = ScanLoop(source: try RecordingFrontEnd(path: csv, board: board), board: board, calibration: calibration)
    var expected: [String] = []
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
      var line = "\(expected.count) \(loop.frame.time.rawValue) \(outcome) \(p.touched ? 1 : 0) "
        + "\(p.loadAbsorbed ? 1 : 0) \(String(format: "%08x", hash)) \(p.contacts.count)"
      for i in 0..<p.contacts.count {
        let c = p.contacts[i]
        line += " \(c.x.rawValue) \(c.y.rawValue) \(c.force.rawValue) \(c.peakCell) \(c.cellCount)"
      }
      expected.append(line)
    }
    let h = loop.pipeline.health
    expected.append(
      "health \(h.frames) \(h.invalidFrames) \(h.spikes) \(h.saturatedSamples) \(h.reseeds) \(h.absorbedLoads)")
    #expect(run.lines.count == expected.count)
    for (i, (got, want)) in zip(run.lines, expected).enumerated() where got != want {
      Issue.record("line \(i + 1): \(got) != \(want)")
      break
    }
    // The recording has touches: contacts are compared, not only idle frames.
    #expect(expected.contains { $0.split(separator: " ").count > 7 })
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
