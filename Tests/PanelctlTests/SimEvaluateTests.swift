import Foundation
import Testing

/// `panelctl sim evaluate` as a user runs it: the table on standard output
/// and nothing else in a pipe, every file behind it, and each step re-run
/// by hand with the ordinary commands giving the same bytes.
@Suite struct SimEvaluateTests {
  @Test func oneQuickPanelRerunsByHandAndTheCheckFailsOnItsMisses() throws {
    let dir = try Panelctl.temporaryDirectory().path
    let out = dir + "/eval"
    let r = try Panelctl.run(["sim", "evaluate", "--quick", "--panels", "1", "--out", out, "--json", dir + "/e.json"])
    #expect(r.status == 0, "\(r.stderr)")
    // A pipe gets no progress, only the closing line: what was written, and where.
    let closing = r.stderr.split(separator: "\n").map(String.init)
    #expect(closing.count == 1 && closing[0].hasPrefix("panelctl: sim evaluate: 1 panel, "), "\(r.stderr)")
    #expect(closing.first?.contains(" written to \(out)/ in ") == true, "\(r.stderr)")
    let said = closing.first.flatMap { line in
      line.firstMatch(of: /scenario frames, ([0-9.]+) (KB|MB|GB) written/).map { m in
        Double(m.1)! * ["KB": 1e3, "MB": 1e6, "GB": 1e9][String(m.2)]!
      }
    }
    let files = FileManager.default.enumerator(atPath: out)!.compactMap { $0 as? String }
    let onDisk = try files.reduce(0.0) { total, name in
      let a = try FileManager.default.attributesOfItem(atPath: out + "/" + name)
      return total + (a[.type] as? FileAttributeType == .typeRegular ? Double((a[.size] as? Int) ?? 0) : 0)
    }
    #expect(said.map { abs($0 - onDisk) <= 0.06 * onDisk } == true, "said \(said ?? -1) B, on disk \(onDisk) B")
    let rows = r.lines.filter { $0.hasPrefix("sim-plate4 ") }
    #expect(rows.count == 9, "calibration and eight scenarios: \(r.stdout)")
    #expect(r.lines.first?.hasPrefix("panel") == true)
    #expect(try String(contentsOfFile: out + "/evaluation.txt", encoding: .utf8) == r.stdout)
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/e.json")) == Data(contentsOf: URL(fileURLWithPath: out + "/evaluation.json")))

    let panel = out + "/01-sim-plate4"
    // Replayed by hand: the same report stream, byte for byte.
    for scenario in ["taps", "presses", "parked"] {
      let replay = try Panelctl.run([
        "replay", "\(panel)/\(scenario).csv", "--board", "boards/sim-plate4.toml", "--calibration", "\(panel)/calibration.toml",
      ])
      #expect(replay.status == 0, "\(replay.stderr)")
      #expect(replay.stdout == (try String(contentsOfFile: "\(panel)/\(scenario).ndjson", encoding: .utf8)), "\(scenario)")
    }
    // Recorded by hand from the scenario file: the same recording (the held
    // fingers' tremor included).
    for scenario in ["taps", "held"] {
      let recorded = dir + "/\(scenario).csv"
      let record = try Panelctl.run([
        "record", "--board", "boards/sim-plate4.toml", "--scenario", "\(panel)/\(scenario).toml", "--speed", "0", "--out",
        recorded,
      ])
      #expect(record.status == 0, "\(record.stderr)")
      #expect(
        try Data(contentsOf: URL(fileURLWithPath: recorded)) == Data(contentsOf: URL(fileURLWithPath: "\(panel)/\(scenario).csv")),
        "\(scenario)")
    }
    // Calibrated by hand from the session: the same record.
    let cal = dir + "/cal.toml"
    let calibrate = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", "\(panel)/session", "--out", cal])
    #expect(calibrate.status == 0, "\(calibrate.stderr)")
    #expect(try String(contentsOfFile: cal, encoding: .utf8) == String(contentsOfFile: "\(panel)/calibration.toml", encoding: .utf8))

    // The same folder again is refused (no session over another).
    let again = try Panelctl.run(["sim", "evaluate", "--quick", "--panels", "1", "--out", out])
    #expect(again.status == 1)
    #expect(again.stderr.contains("01-sim-plate4") && again.stderr.contains("already exists"), "\(again.stderr)")

    // With --check, a figure that misses its bar exits 2: sim-plate4's
    // latency at 320 frames/s, and the scenarios where users go that the
    // product does not meet yet (docs/robustness.md).
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/e.json"))) as! [String: Any]
    let misses = json["misses"] as! [[String: Any]]
    let issue10 = ["taps", "presses", "ramp", "cooling", "parked"]
    let old = misses.filter { issue10.contains($0["scenario"] as? String ?? "") }
    #expect(!old.isEmpty && old.allSatisfy { $0["metric"] as? String == "latency_ms" }, "\(misses)")
    #expect(r.stdout.contains("!"))
    let checked = try Panelctl.run(["sim", "evaluate", "--quick", "--panels", "1", "--out", dir + "/eval2", "--check"])
    #expect(checked.status == 2, "\(checked.stderr)")
    #expect(checked.stderr.contains("figures miss their bars"))
  }
}
