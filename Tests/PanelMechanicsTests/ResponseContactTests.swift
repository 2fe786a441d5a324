import ForceCore
import Foundation
import PanelFirmware
import PanelFormats
import PanelSimulation
import PanelTestSupport
import Testing

@testable import PanelMechanics

/// Contacts fitted to the learnt response (`ContactFinder+Response`): the
/// presses the simulator's physics makes read where they are, the outer
/// band and an overlay stiffer along one axis included.
@Suite struct ResponseContactTests {
  /// A response for sim-grid's geometry whose kernel is `weight(dx, dy)`
  /// (a cell's load for a press at that offset), capture 1.
  static func response(_ board: Board, weight: (Double, Double) -> Double) -> GridResponse {
    let pitch = board.grid!.pitch_mm
    var r = GridResponse(profile: SpreadProfile.boussinesq(depth: 14, pitch: pitch), board: board)
    let n = r.n
    let step = r.step_mm
    let centre = weight(0, 0)
    for j in 0...n {
      for i in -n...n where j > 0 || i >= 0 {
        r.kernel[GridResponse.index(i, j, n: n)] = weight(Double(i) * step, Double(j) * step) / centre
      }
    }
    return r
  }

  /// The contacts of one noise-free frame: the cells' loads for a press of
  /// `force` at (`x`, `y`) as `sharing` spreads it.
  static func contacts(
    _ board: Board, sharing: LoadSharing, configuration: CoreConfiguration, force: Double, x: Double, y: Double
  ) -> ContactList {
    var loads = [Double](repeating: 0, count: board.cellCount)
    sharing.add(force: force, x: x, y: y, to: &loads)
    var image = CellArray<Force_mN>(repeating: .zero)
    for (k, f) in loads.enumerated() { image[k] = Force_mN(newtons: f) }
    var finder = ContactFinder(geometry: board.geometry, configuration: configuration)
    var list = ContactList()
    finder.find(&image, into: &list)
    return list
  }

  /// Presses in the outer band and between cells, on the simulated grid's
  /// overlay (Boussinesq, 14 mm) and on one twice as wide along x: each
  /// reads within 1 mm and 2 % with the response, where the interpolation
  /// pulls the edge ones inward.
  @Test(arguments: [1.0, 2.0])
  func pressesReadWhereTheyAreUpToTheEdges(aspect: Double) throws {
    let board = try Repo.board("sim-grid")
    let pitch = board.grid!.pitch_mm
    let kernel = SpreadingKernel.boussinesq(depth: 14)
    let sharing = LoadSharing(grid: board.cells, pitch: pitch, kernel: kernel, aspect: aspect)
    let response = Self.response(board) { dx, dy in
      kernel.cellWeight(CellPosition(x_mm: dx, y_mm: dy), pitch: pitch, x: 0, y: 0, aspect: aspect)
    }
    var plain = board.coreConfiguration
    plain.cellFloor = Force_mN(newtons: 0.001)
    var fitted = plain
    fitted.response = response.coreTable(cells: board.cells)
    #expect(!fitted.response.isEmpty)
    let band: [(Double, Double)] = [(155, 60), (157, 47), (80, 116), (4, 4), (156, 117), (33, 3), (3, 75)]
    let inside: [(Double, Double)] = [(83, 47), (61.5, 72.5), (100, 50)]
    var worstPlain = 0.0
    var squares = 0.0
    for (x, y) in band + inside {
      let list = Self.contacts(board, sharing: sharing, configuration: fitted, force: 2, x: x, y: y)
      #expect(list.count == 1, "(\(x), \(y)): \(list.count) contacts")
      guard list.count >= 1 else { continue }
      let c = list[0]
      let error = ((c.x.millimetres - x) * (c.x.millimetres - x) + (c.y.millimetres - y) * (c.y.millimetres - y)).squareRoot()
      squares += error * error
      // Within 1.5 mm each (3 mm from a corner on the narrow axis the
      // outer row carries almost all of it), 1 mm RMS.
      #expect(error < 1.5, "(\(x), \(y)) reads (\(c.x.millimetres), \(c.y.millimetres))")
      #expect(abs(c.force.newtons - 2) < 0.04, "(\(x), \(y)) reads \(c.force.newtons) N of 2")
      let old = Self.contacts(board, sharing: sharing, configuration: plain, force: 2, x: x, y: y)[0]
      let oldError = ((old.x.millimetres - x) * (old.x.millimetres - x) + (old.y.millimetres - y) * (old.y.millimetres - y)).squareRoot()
      worstPlain = max(worstPlain, oldError)
    }
    let rms = (squares / Double(band.count + inside.count)).squareRoot()
    #expect(rms < 1, "position RMS \(rms) mm")
    // Without it, the outer band reads millimetres inward.
    #expect(worstPlain > 2, "the interpolation's worst: \(worstPlain) mm")
  }

  /// Two fingers in one maximum (their nearest cells side by side, or
  /// diagonal): the one-contact fit leaves a residual, the joint fit
  /// separates them, each within 3 mm of its finger; fingers 20 mm apart
  /// on a slant stay one contact, `merged`, at their centre with their total force;
  /// one press is one contact, not merged.
  @Test func oneMaximumHoldingTwoFingersIsFittedAsTwo() throws {
    let board = try Repo.board("sim-grid")
    let pitch = board.grid!.pitch_mm
    let kernel = SpreadingKernel.boussinesq(depth: 14)
    let sharing = LoadSharing(grid: board.cells, pitch: pitch, kernel: kernel, aspect: 1)
    var configuration = board.coreConfiguration
    configuration.cellFloor = Force_mN(newtons: 0.001)
    configuration.response = Self.response(board) { dx, dy in
      kernel.cellWeight(CellPosition(x_mm: dx, y_mm: dy), pitch: pitch, x: 0, y: 0, aspect: 1)
    }.coreTable(cells: board.cells)
    func frame(_ presses: [(x: Double, y: Double, f: Double)]) -> [Contact] {
      var loads = [Double](repeating: 0, count: board.cellCount)
      for p in presses { sharing.add(force: p.f, x: p.x, y: p.y, to: &loads) }
      var image = CellArray<Force_mN>(repeating: .zero)
      for (k, f) in loads.enumerated() { image[k] = Force_mN(newtons: f) }
      var finder = ContactFinder(geometry: board.geometry, configuration: configuration)
      var list = ContactList()
      finder.find(&image, into: &list)
      return (0..<list.count).map { list[$0] }
    }
    let a = 30 / 2.0.squareRoot() / 2
    func distance(_ c: Contact, _ x: Double, _ y: Double) -> Double {
      let dx = c.x.millimetres - x
      let dy = c.y.millimetres - y
      return (dx * dx + dy * dy).squareRoot()
    }
    let slanted: [(x: Double, y: Double, f: Double)] = [(60, 50, 1.1), (60 + 2 * a, 50 + 2 * a, 0.8)]
    let pairs: [[(x: Double, y: Double, f: Double)]] = [[(45, 70, 1), (75, 70, 0.9)], slanted, [(48, 62, 1), (82, 62, 1.2)]]
    for presses in pairs {
      let found = frame(presses)
      #expect(found.count == 2, "\(presses): \(found.count) contacts")
      for p in presses {
        let nearest = found.map { distance($0, p.x, p.y) }.min() ?? 99
        #expect(nearest < 3, "\(presses): \(p) is \(nearest) mm from its contact")
      }
      #expect(!found.contains { $0.merged })
    }
    // 20 mm apart on a slant, under the 25 mm (1.25 pitches) that splits.
    let close = frame([(80 - 10 * cos(0.6), 60 - 10 * sin(0.6), 1), (80 + 10 * cos(0.6), 60 + 10 * sin(0.6), 0.8)])
    #expect(close.count == 1 && close.first?.merged == true, "\(close)")
    if let c = close.first {
      #expect(abs(c.x.millimetres - 80) < 2 && abs(c.y.millimetres - 60) < 2, "\(c)")
      #expect(abs(c.force.newtons - 1.8) < 0.15 && c.spread.millimetres > 7, "\(c)")
    }
    for (x, y) in [(83.0, 47.0), (155.0, 60.0), (4.0, 4.0), (61.5, 72.5)] {
      let one = frame([(x, y, 2)])
      #expect(one.count == 1 && one.first?.merged == false, "(\(x), \(y)): \(one)")
    }
  }

  /// Two still fingers 30 mm apart (1.5 pitches) on sim-grid whose cells
  /// show two maxima, through the whole scan loop with the response: two
  /// touches the whole time, ids kept, each on its own finger, no other
  /// touch.
  @Test func twoFingers30mmApartStayTwo() throws {
    let (board, calibration) = try Self.withOwnResponse("sim-grid")
    for (a, b, y) in [(55.0, 85.0, 60.0), (75.0, 105.0, 90.0), (95.0, 125.0, 30.0)] {
      func finger(_ x: Double, _ f: Double) -> ScriptedTouch {
        ScriptedTouch(start_s: 0.3, force: [Keyframe(0, 0), Keyframe(0.15, f), Keyframe(2.15, f), Keyframe(2.3, 0)], x: [Keyframe(0, x)], y: [Keyframe(0, y)])
      }
      let run = try SimRun(
        board: board, scenario: Scenario(name: "pair", touches: [finger(a, 1.2), finger(b, 0.9)]), calibration: calibration)
      #expect(run.ids.count == 2, "\(a), \(b): \(run.ids.count) touches")
      guard run.ids.count == 2 else { continue }
      for id in run.ids {
        // While both press still (after their 0.15 s rise, before the lift).
        let reports = run.touches.filter { $0.touch.id == id && $0.t_us > 500_000 && $0.t_us < 2_400_000 }
        let xs = reports.map(\.touch.x.millimetres)
        let target = (xs.first ?? 0) < (a + b) / 2 ? a : b
        // Each on its own finger: nearer to it than to the other (no
        // swap). The joint fit still leaves up to 5.4 mm of pull here
        // (docs/robustness.md).
        let strays = reports.filter { abs($0.touch.x.millimetres - target) >= abs(b - a) / 2 }
        #expect(strays.isEmpty, "id \(id): \(xs.min() ?? 0)...\(xs.max() ?? 0) for \(target), \(strays.count) of \(reports.count) strays")
      }
      let first = Set(run.touches.filter { $0.touch.id == run.ids[0] && $0.touch.force.newtons > 0.4 }.map(\.frame))
      let second = Set(run.touches.filter { $0.touch.id == run.ids[1] && $0.touch.force.newtons > 0.4 }.map(\.frame))
      #expect(first.count > 500 && first.symmetricDifference(second).count < first.count / 20)
    }
  }

  /// `boardName`'s board and its true calibration, with the simulator's own
  /// spreading as the learnt response.
  static func withOwnResponse(_ boardName: String) throws -> (board: Board, calibration: CalibrationRecord) {
    let board = try Repo.board(boardName)
    let pitch = board.grid!.pitch_mm
    let parameters = try board.simulationParameters
    let kernel = parameters.spreadingKernel(pitch: pitch)
    var calibration = SimulatedPanel(board: board, parameters: parameters, scenario: .idle(), speed: 0)
      .trueCalibration(created: "test")
    calibration.response = Self.response(board) { dx, dy in
      LoadSharing.weight(CellPosition(x_mm: dx, y_mm: dy), pitch: pitch, kernel: kernel, x: 0, y: 0)
    }.record
    return (board, calibration)
  }

  /// Two fingers on `board` with the simulator's own response as the learnt
  /// one, each from `from` to `to` (mm) between 0.45 and 1.25 s, pressing
  /// 0.3 ... 1.6 s: the run, and each finger's position at a time.
  static func pair(
    _ boardName: String, _ from: [(x: Double, y: Double)], _ to: [(x: Double, y: Double)], forces: [Double]
  ) throws -> (run: SimRun, at: (Int, Double) -> (x: Double, y: Double)) {
    let (board, calibration) = try Self.withOwnResponse(boardName)
    let fingers = (0..<2).map { i in
      ScriptedTouch(
        start_s: 0.3, force: [Keyframe(0, 0), Keyframe(0.1, forces[i]), Keyframe(1.2, forces[i]), Keyframe(1.3, 0)],
        x: [Keyframe(0.15, from[i].x), Keyframe(0.95, to[i].x)], y: [Keyframe(0.15, from[i].y), Keyframe(0.95, to[i].y)])
    }
    let run = try SimRun(board: board, scenario: Scenario(name: "pair", touches: fingers), calibration: calibration)
    return (run, { i, t in (Keyframe.interpolate(fingers[i].x, at: t - 0.3), Keyframe.interpolate(fingers[i].y, at: t - 0.3)) })
  }

  /// While both fingers press (0.55 ... 1.4 s): how often the count of
  /// touches changed, how often a touch went from clearly nearer one finger
  /// (by a fifth of their distance) to clearly nearer the other, and the
  /// touches that were never within 1.5 pitches of either (false).
  static func pairFigures(
    _ run: SimRun, at: (Int, Double) -> (x: Double, y: Double), pitch: Double
  ) -> (changes: Int, swaps: Int, strays: Int) {
    let window = run.touches.filter { $0.t_us >= 550_000 && $0.t_us <= 1_400_000 }
    var counts: [UInt64: Int] = [:]
    for r in window { counts[r.frame, default: 0] += 1 }
    let frames = counts.keys.sorted()
    var changes = 0
    for (f, g) in zip(frames, frames.dropFirst()) where counts[f] != counts[g] { changes += 1 }
    var swaps = 0
    var strays = 0
    for id in Set(run.touches.map(\.touch.id)) {
      var side = 0
      var nearest = Double.infinity
      for r in run.touches where r.touch.id == id {
        let t = Double(r.t_us) / 1e6
        let (a, b) = (at(0, t), at(1, t))
        let x = r.touch.x.millimetres
        let y = r.touch.y.millimetres
        let da = ((x - a.x) * (x - a.x) + (y - a.y) * (y - a.y)).squareRoot()
        let db = ((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)).squareRoot()
        nearest = min(nearest, da, db)
        guard r.t_us >= 550_000 && r.t_us <= 1_400_000 else { continue }
        let apart = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
        let now = da < db - apart / 5 ? 1 : db < da - apart / 5 ? 2 : 0
        if now != 0 {
          if side != 0 && now != side { swaps += 1 }
          side = now
        }
      }
      if nearest > 1.5 * pitch { strays += 1 }
    }
    return (changes, swaps, strays)
  }

  /// Pinches on sim-grid and on its noisy twin (two fingers from 60 mm
  /// apart to 22, across and on a slant): the touches never swap fingers,
  /// their count changes at most once (they may merge as the fingers
  /// close, not come apart again), and no touch is made between them.
  @Test(arguments: ["sim-grid", "sim-grid-noisy"])
  func aPinchNeitherSwapsNorAlternates(board: String) throws {
    let pinches: [(from: [(x: Double, y: Double)], to: [(x: Double, y: Double)])] = [
      ([(50, 60), (110, 60)], [(69, 60), (91, 60)]),
      ([(60, 30), (102, 73)], [(73.2, 43.2), (88.8, 58.8)]),
      ([(95, 25), (95, 85)], [(95, 44), (95, 66)]),
    ]
    for (from, to) in pinches {
      let (run, at) = try Self.pair(board, from, to, forces: [1.0, 0.85])
      let figures = Self.pairFigures(run, at: at, pitch: 20)
      #expect(figures.swaps == 0 && figures.changes <= 1 && figures.strays == 0, "\(board) \(from) -> \(to): \(figures)")
    }
  }

  /// Two still fingers closer than the joint fit separates (22-25 mm, 1.1
  /// to 1.25 pitches): one `merged` touch or two, but the same the whole
  /// time both press, and no touch made between them.
  @Test(arguments: ["sim-grid", "sim-grid-noisy"])
  func aCloserPairNeverAlternates(board: String) throws {
    let places: [[(x: Double, y: Double)]] = [[(69, 60), (91, 60)], [(72, 42), (89.7, 59.7)], [(95, 47), (95, 72)]]
    for place in places {
      let (run, at) = try Self.pair(board, place, place, forces: [1.0, 0.9])
      let figures = Self.pairFigures(run, at: at, pitch: 20)
      #expect(figures.swaps == 0 && figures.changes == 0 && figures.strays == 0, "\(board) \(place): \(figures)")
    }
  }
}
