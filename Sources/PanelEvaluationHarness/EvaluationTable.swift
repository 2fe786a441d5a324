import PanelFormats

/// The evaluation's table: one row per panel and scenario, one column per
/// figure, a `!` after every figure that misses its bar, and a row per
/// panel saying how its calibration went. Plain text (and Markdown with
/// `markdown`, for docs/robustness.md).
package enum EvaluationTable {
  /// The figure columns, in order, with their headers.
  package static let columns: [(EvaluationMetric, String)] = [
    (.recall, "recall"), (.precision, "precision"), (.falseTouches, "false"), (.falseSeconds, "false s"),
    (.latency, "latency ms"), (.position, "pos RMS mm"), (.force, "force err %"), (.tapsWithoutPeek, "no peek"),
    (.peekOnly, "peek only"), (.popOnce, "pop once"), (.pairs, "pairs"), (.merged, "merged"), (.alternating, "alt"),
    (.idSwaps, "swaps"), (.held, "held"), (.absorbed, "absorb s"), (.bound, "CRB mm"),
  ]

  package static func text(_ results: [PanelResult], markdown: Bool = false) -> String {
    var rows: [[String]] = [["panel", "scenario"] + columns.map(\.1)]
    for r in results {
      rows.append([r.board, "calibration", r.calibration.summary])
      for s in r.scenarios {
        var row = [r.board, s.name]
        for (metric, _) in columns {
          guard let v = metric.value(in: s.score) else {
            row.append("-")
            continue
          }
          var cell = format(v, metric)
          if let bar = EvaluationBar.bar(metric, scenario: s.name, pitch_mm: r.pitch_mm), !bar.met(v, r.panel.kind, s.score) {
            cell += "!"
          }
          row.append(cell)
        }
        rows.append(row)
      }
    }
    return markdown ? self.markdown(rows) : plain(rows)
  }

  /// A figure as the table shows it.
  package static func format(_ v: Double, _ metric: EvaluationMetric) -> String {
    switch metric {
    case .recall, .precision, .tapsWithoutPeek, .peekOnly, .popOnce, .pairs, .merged, .alternating, .held:
      return Format.fixed(v, 3)
    case .falseTouches, .idSwaps: return Format.fixed(v, 0)
    case .falseSeconds, .latency, .absorbed: return Format.fixed(v, 1)
    case .position, .force, .bound: return Format.fixed(v, 2)
    }
  }

  /// Columns padded to their widest cell; a calibration row's summary runs
  /// across the figure columns.
  static func plain(_ rows: [[String]]) -> String {
    let n = rows[0].count
    var widths = [Int](repeating: 0, count: n)
    for row in rows where row.count == n {
      for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
    }
    var text = ""
    for row in rows {
      var line = ""
      for (i, cell) in row.enumerated() {
        if i > 0 { line += "  " }
        let pad = row.count == n || i < 2 ? max(0, widths[i] - cell.count) : 0
        line += i < 2 ? cell + String(repeating: " ", count: pad) : String(repeating: " ", count: pad) + cell
      }
      while line.hasSuffix(" ") { line.removeLast() }
      text += line + "\n"
    }
    return text
  }

  static func markdown(_ rows: [[String]]) -> String {
    let n = rows[0].count
    var text = "| " + rows[0].joined(separator: " | ") + " |\n"
    text += "|" + (0..<n).map { $0 < 2 ? "---|" : "---:|" }.joined() + "\n"
    for row in rows.dropFirst() {
      let cells = row.count == n ? row : row + [String](repeating: "", count: n - row.count)
      text += "| " + cells.joined(separator: " | ") + " |\n"
    }
    return text
  }

  /// The misses, one line each, and a count.
  package static func misses(_ results: [PanelResult]) -> String {
    let all = results.flatMap(\.misses)
    guard !all.isEmpty else { return "every figure meets its bar\n" }
    let panels = Set(all.map(\.panel)).count
    return "\(all.count) figures miss their bars, on \(panels) of \(results.count) panels\n"
  }
}
