import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelSimulation
@testable import PanelTouch

/// The item a touch acts on is the one under the finger (issue 23 item
/// 4): decided once the position is certain enough, or at the touch's
/// first stage, not at its first graze (on a noisy plate a 0.1 N graze
/// reads up to 20 mm off).
@Suite struct ItemUnderPressTests {
  /// A message list: five rows 16 mm high across the panel, each peeks
  /// and pops.
  static func rows(width: Double, height: Double) -> (map: RegionMap, top: Double, pitch: Double) {
    let pitch = 16.0
    let top = (height - 5 * pitch) / 2
    let items = (0..<5).map {
      RegionItem(
        name: "row\($0)", x_mm: 10, y_mm: top + Double($0) * pitch, width_mm: width - 20, height_mm: pitch,
        peek: true, pop: true)
    }
    return (try! RegionMap(items: items, panelWidth_mm: width, panelHeight_mm: height), top, pitch)
  }

  /// 15 presses at the centres of the rows (three along each), rising to a
  /// peek in 0.15-0.45 s, held, lifted: every peek names the row under the
  /// press, and the touch's item never changes once it peeked.
  @Test func fifteenPressesAtARowsCentreOnTheNoisyPlateEachPeekThatRow() throws {
    let board = try Repo.board("sim-plate4-noisy")
    let (map, top, pitch) = Self.rows(width: board.width_mm, height: board.height_mm)
    let peek = board.interaction.peek * board.interaction.averageTouch_n
    let pop = board.interaction.pop * board.interaction.averageTouch_n
    var touches: [ScriptedTouch] = []
    var expected: [(start: Double, row: Int16)] = []
    for i in 0..<15 {
      let row = i % 5
      let x = board.width_mm * (0.25 + 0.25 * Double(i / 5))
      let y = top + (Double(row) + 0.5) * pitch
      let rise = 0.15 + 0.3 * Double((i * 7) % 5) / 4
      let force = peek * 1.3 + (0.75 * pop - peek * 1.3) * Double((i * 3) % 5) / 8
      let start = 0.5 + 2.0 * Double(i)
      touches.append(
        ScriptedTouch(
          start_s: start,
          force: [Keyframe(0, 0), Keyframe(rise, force), Keyframe(rise + 0.6, force), Keyframe(rise + 0.7, 0)],
          x: [Keyframe(0, x)], y: [Keyframe(0, y)]))
      expected.append((start, Int16(row)))
    }
    let scenario = Scenario(name: "rows", duration_s: 0.5 + 2.0 * 15 + 1, touches: touches)
    let run = try SimRun(board: board, scenario: scenario, regions: map)
    var right = 0
    var grazes = 0
    var report: [String] = []
    for (n, press) in expected.enumerated() {
      let from = UInt64(press.start * Double(board.rate_hz))
      let to = UInt64((press.start + 1.8) * Double(board.rate_hz))
      let peeks = run.events.filter { $0.frame >= from && $0.frame < to && $0.event.kind == .peek }
      let items = peeks.map(\.event.item)
      if items == [press.row] { right += 1 }
      // Where the touch was first reported: the item there, as the item
      // was chosen before.
      if let id = peeks.first?.event.touch, let first = run.touches.first(where: { $0.touch.id == id }),
        map.hit(x: first.touch.x, y: first.touch.y) != press.row
      {
        grazes += 1
      }
      report.append("press \(n) row \(press.row): peeks on \(items)")
      // Once peeked, the touch's item stays.
      if let first = peeks.first {
        let items = Set(run.touches.filter { $0.touch.id == first.event.touch && $0.frame >= first.frame }.map(\.item))
        #expect(items == [first.event.item], "press \(n): items after its peek \(items)")
      }
    }
    #expect(right == 15, "\(right) of 15 presses peeked the row under them: \(report)")
    // The case is a real one: the item at the first report (the rule
    // before) misses some of them (2 of 15 here).
    #expect(grazes >= 1, "\(grazes) of 15 presses were first reported off their row")
  }
}
