import ArgumentParser
import PanelEvaluationHarness
import PanelFirmware

extension PanelCtl.Sim {
  /// `panelctl sim evaluate`: the product on a population of simulated panels.
  struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Evaluate the product on a seeded population of simulated panels across the envelope.",
      discussion: """
        Each panel is calibrated live from its plan (as calibrate --plan --speed 0), \
        calibrated from that session (as calibrate --session), recorded in the \
        standard scenarios (light taps, deep presses, a +8 degC ramp, a -8 degC \
        cooling, a parked 3 N object, two fingers on grids; presses in the outer \
        band, fingers held on a peek with a tremor, a slow press from start-up; \
        on grids still pairs 25-45 mm apart and pinches) and replayed; the \
        reports are scored against the scripted touches. Everything goes to \
        --out DIR, one folder per panel, with the table (evaluation.txt) and \
        evaluation.json. The table goes to standard output; a figure that \
        misses its bar ends in "!". Exit status: 0, or 2 with --check when a \
        figure misses its bar, 1 on an error. See docs/robustness.md.
        """)

    @Option(name: .long, help: ArgumentHelp("Where to write everything (a new folder).", valueName: "DIR"))
    var out: String

    @Option(name: .long, help: "How many panels (default 36; 4 with --quick).")
    var panels: Int?

    @Option(
      name: .long,
      help: ArgumentHelp("Evaluate only the panel of this name (repeatable); the population is the same.", valueName: "NAME"))
    var only: [String] = []

    @Option(
      name: .long,
      help: ArgumentHelp(
        "Run only these scenarios (comma-separated names; none: the calibrations alone). The rest are drawn and skipped.",
        valueName: "LIST"))
    var scenarios: String?

    @Option(name: .long, help: "The population's and the scenarios' seed.")
    var seed: UInt64 = 1

    @Flag(name: .long, help: "Shortened scenarios (and 4 panels unless --panels says otherwise), for CI.")
    var quick = false

    @Option(name: .long, help: ArgumentHelp("Also write the JSON here.", valueName: "FILE"))
    var json: String?

    @Option(name: .long, help: ArgumentHelp("The repository's boards folder (plans: ../calibration/plans/).", valueName: "DIR"))
    var boards = "boards"

    @Flag(name: .long, help: "Exit 2 when a figure misses its bar.")
    var check = false

    @Flag(name: .long, help: "Print the table as Markdown (as docs/robustness.md shows it).")
    var markdown = false

    func validate() throws {
      if let panels, !(1...200).contains(panels) { throw OptionBounds.outOfRange("--panels", panels, allowed: "1...200") }
    }

    func run() throws {
      if let json { _ = try OutputFile.target(json) }
      if !TextFile.isDirectory(boards) {
        throw CommandFailure(
          message: "--boards \(boards): no such folder (run from the repository's root, or give --boards DIR)", status: .error)
      }
      let count = panels ?? (quick ? 4 : 36)
      let population = EvaluationPopulation.panels(count: count, seed: seed, boardsDirectory: boards)
      if !only.isEmpty {
        let names = Set(population.map(\.name))
        if let unknown = only.first(where: { !names.contains($0) }) {
          throw CommandFailure(
            message: "--only \(Quote.text(unknown)): no such panel among the \(count) (\(population.map(\.name).joined(separator: ", ")))",
            status: .error)
        }
      }
      var evaluation = PopulationEvaluation(
        panels: population, out: out, seed: seed, lengths: quick ? .quick : .full, date: UTCDate.now())
      evaluation.only = Set(only)
      if let scenarios {
        let names = scenarios == "none" ? [] : scenarios.split(separator: ",").map { String($0.filter { $0 != " " }) }
        let known = StandardScenarios.names
        if let unknown = names.first(where: { !known.contains($0) }) {
          throw CommandFailure(
            message: "--scenarios \(Quote.text(unknown)): no such scenario (\(known.joined(separator: ", ")), or none)",
            status: .error)
        }
        evaluation.scenarios = Set(names)
      }
      let results: [PanelResult]
      let started = monotonicMicroseconds()
      var shown = false
      do {
        results = try evaluation.run { index, panel, step in
          guard Terminal.errorIsTerminal else { return }
          Terminal.writeError("\r\u{1B}[K[\(index + 1)/\(count)] \(panel.name): \(step)")
          shown = true
        }
      } catch {
        if shown { Terminal.writeError("\n") }
        throw CommandFailure(message: error.description, status: .error)
      }
      if shown { Terminal.writeError("\r\u{1B}[K") }
      let table = EvaluationTable.text(results)
      let summary = EvaluationTable.misses(results)
      let json = EvaluationJSON.text(results, seed: seed, quick: quick)
      try AtomicFile.write(table + summary, to: evaluation.out + "evaluation.txt")
      try AtomicFile.write(json, to: evaluation.out + "evaluation.json")
      if let path = self.json { try AtomicFile.write(json, to: path) }
      print(markdown ? EvaluationTable.text(results, markdown: true) : table, terminator: "")
      print(summary, terminator: "")
      let frames = results.reduce(0) { $0 + $1.scenarios.reduce(0) { $0 + $1.frames } }
      let seconds = Double(monotonicMicroseconds() - started) / 1e6
      Terminal.writeError(
        "panelctl: sim evaluate: \(results.count) panel\(results.count == 1 ? "" : "s"), \(frames) scenario frames, "
          + "\(Amounts.bytes(Directory.size(evaluation.out))) written to \(evaluation.out) in \(Amounts.time(seconds))\n")
      if check && results.contains(where: { !$0.misses.isEmpty }) {
        throw CommandFailure(message: "figures miss their bars: \(summary.dropLast())", status: .checkFailed)
      }
    }
  }
}
