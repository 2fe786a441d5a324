import Foundation
import PanelEvaluationHarness
import PanelFirmware
import Testing

/// Byte identity of what the product writes: every report stream, recording,
/// calibration record, certificate and evaluation table the repository's
/// scenarios and the evaluation's quick set give, against the SHA-256 of
/// each in `Tests/Golden/outputs.sha256`. A refactor keeps every line; a
/// change of behaviour changes lines on purpose:
///
///     bash scripts/golden.sh update      # rewrite the golden file
///     bash scripts/golden.sh dump DIR    # write every output to DIR (diff -r two commits' dumps)
///
/// Everything is seeded and dated by the test (no wall clock), so the bytes
/// are the same on every run and machine.
@Suite(.serialized) struct GoldenOutputTests {
  /// One run: a board, its scenario (nil: the board's own demo), how long
  /// (nil: to the scenario's end) and the stream's interaction options.
  struct Run {
    var name: String
    var board: String
    var scenario: String? = nil
    var seconds: Int? = nil
    var interaction: [String] = []

    var source: [String] {
      ["--board", "boards/\(board).toml"] + (scenario.map { ["--scenario", "scenarios/\($0).toml"] } ?? [])
        + (seconds.map { ["--duration", "\($0)"] } ?? [])
    }
  }

  /// Every simulated board with its demo, and every scenario of the
  /// repository on the board it is written for (the two long ones cut to
  /// their first taps and presses: warm-up's first tap, load-grid's
  /// first two rounds): streamed live, recorded, and the recording replayed
  /// with the board's calibration.
  static let runs: [Run] =
    ["sim-plate4", "sim-plate4-nau7802", "sim-plate4-ads122c04", "sim-grid", "sim-grid-frame"].map {
      Run(name: $0, board: $0)
    } + [
      // The boards without a scenario of their own play their kind's demo.
      Run(name: "sim-plate4-noisy", board: "sim-plate4-noisy", scenario: "demo-plate4"),
      Run(name: "sim-grid-noisy", board: "sim-grid-noisy", scenario: "demo-grid"),
      Run(name: "sim-grid-gaussian", board: "sim-grid-gaussian", scenario: "demo-grid"),
      Run(
        name: "demo-home", board: "sim-plate4", scenario: "demo-home",
        interaction: ["--regions", "regions/home.toml", "--control", "scenarios/demo-home.control"]),
      Run(name: "two-finger-press", board: "sim-grid", scenario: "two-finger-press"),
      Run(name: "load-grid", board: "sim-grid", scenario: "load-grid", seconds: 11),
      Run(name: "web-demo", board: "sim-plate4", scenario: "web-demo"),
      Run(name: "web-kiosk", board: "sim-plate4", scenario: "web-kiosk"),
      Run(name: "web-pressure", board: "sim-plate4", scenario: "web-pressure"),
      Run(name: "warm-up", board: "sim-grid-noisy", scenario: "warm-up", seconds: 25),
    ]

  /// `stream`, `record` and `replay` as a user runs them: standard output
  /// and the recording (standard error carries timings, and is not output).
  @Test func scenariosStreamRecordAndReplayTheSameBytes() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var outputs = GoldenOutputs(group: "scenario")
    for run in Self.runs {
      let stream = try Panelctl.run(["stream"] + run.source + run.interaction + ["--speed", "0"])
      #expect(stream.status == 0, "stream \(run.name): \(stream.stderr)")
      outputs.add("\(run.name).stream.ndjson", Array(stream.stdout.utf8))
      let csv = dir.appendingPathComponent("\(run.name).csv").path
      let record = try Panelctl.run(["record"] + run.source + ["--speed", "0", "--out", csv])
      #expect(record.status == 0, "record \(run.name): \(record.stderr)")
      outputs.add("\(run.name).record.csv", try Array(Data(contentsOf: URL(fileURLWithPath: csv))))
      let replay = try Panelctl.run(
        ["replay", csv, "--board", "boards/\(run.board).toml", "--calibration", "calibration/\(run.board).toml"]
          + run.interaction)
      #expect(replay.status == 0, "replay \(run.name): \(replay.stderr)")
      outputs.add("\(run.name).replay.ndjson", Array(replay.stdout.utf8))
    }
    try outputs.check()
  }

  /// The standard scenarios the golden evaluation runs: a single touch, a
  /// press through peek to pop, two fingers and a pinch (the rest are drawn
  /// and skipped, so these are the same as in a whole run; all of them
  /// would take minutes in a debug build).
  static let evaluationScenarios: Set<String> = ["taps", "presses", "two-finger", "pinch"]

  /// The evaluation's quick set on the first two panels of the population
  /// (sim-plate4 and sim-grid): each calibrated live from its plan (the
  /// session, the record, the certificate in HTML and JSON), the scenarios
  /// above recorded and replayed, and the table and JSON: every file
  /// `panelctl sim evaluate --quick --panels 2 --scenarios taps,presses,two-finger,pinch`
  /// writes, dated by the test.
  @Test func theQuickEvaluationWritesTheSameBytes() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.path + "/eval/"
    // The boards' and plans' paths are written into evaluation.json:
    // absolute here, made relative below (as panelctl writes them when run
    // from the repository's root).
    let boards = Panelctl.root + "/boards"
    let population = EvaluationPopulation.panels(count: 2, seed: 1, boardsDirectory: boards)
    var evaluation = PopulationEvaluation(
      panels: population, out: out, seed: 1, lengths: .quick, date: "2026-01-01T00:00:00Z")
    evaluation.scenarios = Self.evaluationScenarios
    let results = try evaluation.run()
    var outputs = GoldenOutputs(group: "evaluation")
    let files = (FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []).sorted()
    for name in files {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: out + name, isDirectory: &isDirectory), !isDirectory.boolValue else {
        continue
      }
      let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: out + name)))
      outputs.add(name, Self.relative(bytes, root: Panelctl.root + "/", out: out))
    }
    outputs.add("evaluation.txt", Array((EvaluationTable.text(results) + EvaluationTable.misses(results)).utf8))
    outputs.add("evaluation.md", Array(EvaluationTable.text(results, markdown: true).utf8))
    let json = Array(EvaluationJSON.text(results, seed: 1, quick: true).utf8)
    outputs.add("evaluation.json", Self.relative(json, root: Panelctl.root + "/", out: out))
    try outputs.check()
  }

  /// `bytes` with the checkout's and the temporary folder's paths taken
  /// out, so that the hash does not depend on where the repository is.
  static func relative(_ bytes: [UInt8], root: String, out: String) -> [UInt8] {
    guard let text = String(validating: bytes, as: UTF8.self), text.contains(root) || text.contains(out) else {
      return bytes
    }
    return Array(text.replacing(out, with: "EVAL/").replacing(root, with: "").utf8)
  }
}
