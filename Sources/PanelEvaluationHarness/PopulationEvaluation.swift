import PanelFormats

/// The evaluation of a population (`panelctl sim evaluate`): each panel in
/// turn into its own folder of `out` (`01-sim-plate4/`, ...), then the
/// table and the JSON.
package struct PopulationEvaluation {
  package var panels: [EvaluationPanel]
  /// The output folder, with a trailing slash.
  package var out: String
  package var seed: UInt64
  package var lengths: StandardScenarios.Lengths
  package var date: String
  /// When not empty, the names of the panels to evaluate (each keeps its
  /// place, folder and seed in the population).
  package var only: Set<String> = []
  /// When not nil, the scenarios to run (by name; empty: calibrations
  /// only). Every scenario is still drawn, so those run are the same as in
  /// a whole run.
  package var scenarios: Set<String>?

  package init(panels: [EvaluationPanel], out: String, seed: UInt64, lengths: StandardScenarios.Lengths, date: String) {
    self.panels = panels
    self.out = out.hasSuffix("/") || out.isEmpty ? out : out + "/"
    self.seed = seed
    self.lengths = lengths
    self.date = date
  }

  /// The folder of the `index`-th panel (0-based).
  package func directory(_ index: Int) -> String {
    let number = index + 1 < 10 ? "0\(index + 1)" : "\(index + 1)"
    return out + number + "-" + panels[index].name + "/"
  }

  func selected(_ index: Int) -> Bool { only.isEmpty || only.contains(panels[index].name) }

  /// Refuses an output folder that already holds one of these panels: a
  /// session is never recorded over another.
  package func checkOutput() throws(EvaluationError) {
    for i in panels.indices where selected(i) && TextFile.exists(directory(i)) {
      throw .file(
        FileError(file: directory(i), message: "already exists: the output folder holds an evaluation (choose a new --out)"))
    }
  }

  /// The seed of the `index`th panel's scenarios.
  static func panelSeed(_ seed: UInt64, index: Int) -> UInt64 { seed &+ UInt64(index) &* 7919 }

  /// Evaluates every panel; `progress(index, panel, step)` hears each step.
  package func run(progress: (Int, EvaluationPanel, String) -> Void = { _, _, _ in }) throws(EvaluationError)
    -> [PanelResult]
  {
    try checkOutput()
    var results: [PanelResult] = []
    for (i, panel) in panels.enumerated() where selected(i) {
      var evaluation = PanelEvaluation(
        panel: panel, directory: directory(i), seed: Self.panelSeed(seed, index: i), lengths: lengths, date: date)
      evaluation.scenarios = scenarios
      results.append(try evaluation.run { progress(i, panel, $0) })
    }
    return results
  }
}
