import Foundation
import PanelMechanics
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFormats

/// A plate on more than three supports: its statics see only the load and
/// its two moments, so the fit must settle the rest of the gains itself.
@Suite struct PlateFitTests {
  /// A 300 x 200 mm plate on six supports of unequal stiffness (as
  /// eval-plate-300mm-6), cells whose gains differ by up to 20 %, a little
  /// noise: every gain within the plan's sensitivity limit (30 %) of the
  /// median, and each placement's force and centre of pressure as the
  /// masses put them. Before, noise decided the gains along what the
  /// statics do not see: -315 000 to 118 000 counts/N on that panel.
  @Test func sixSupportsGiveGainsAsAlikeAsTheStaticsAllow() throws {
    var text = "[board]\nname = \"test-plate6\"\n\n[panel]\nwidth_mm = 300.0\nheight_mm = 200.0\n"
    let supports: [(Double, Double)] = [(0, 0), (150, 0), (300, 0), (0, 200), (150, 200), (300, 200)]
    for (x, y) in supports { text += "\n[[cell]]\nx_mm = \(x)\ny_mm = \(y)\n" }
    text += "\n[frontend]\nkind = \"sim\"\nseed = 6\n\n[sampling]\nrate_hz = 500\n"
    let dir = try CalibrationTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try text.write(toFile: dir + "/board.toml", atomically: true, encoding: .utf8)
    let board = try Board.load(path: dir + "/board.toml")
    let stiffness = [1.3, 0.7, 1.1, 0.8, 1.4, 0.9]
    let gains = [40000.0, 46000, 35000, 42000, 38000, 44000]
    let sharing = LoadSharing(supports: board.cells, stiffness: stiffness)
    var placements: [CalibrationFit.Placement] = []
    var state: UInt64 = 7
    func noise() -> Double {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return (Double(state >> 11) / Double(1 << 53) - 0.5) * 50  // counts
    }
    for gx in [30.0, 150, 270] {
      for gy in [30.0, 100, 170] {
        for force in [1.96, 4.9] {
          var shares = [Double](repeating: 0, count: 6)
          sharing.add(force: force, x: gx, y: gy, to: &shares)
          let deltas = (0..<6).map { gains[$0] * shares[$0] + noise() }
          placements.append(CalibrationFit.Placement(deltas: deltas, force_n: force, x_mm: gx, y_mm: gy, dT: 0))
        }
      }
    }
    let fit = try #require(CalibrationFit.fit(placements, board: board, temperature: false, excluded: []))
    let fitted = fit.u.map { 1 / $0 }
    let median = fitted.sorted()[3]
    for (k, g) in fitted.enumerated() {
      #expect(abs(g / median - 1) < 0.3, "cell \(k): \(g) counts/N against the median \(median)")
    }
    for p in placements {
      let f = fit.forces(p)
      let total = f.reduce(0, +)
      let x = zip(f, board.cells).reduce(0) { $0 + $1.0 * $1.1.x_mm } / total
      let y = zip(f, board.cells).reduce(0) { $0 + $1.0 * $1.1.y_mm } / total
      #expect(abs(total / p.force_n - 1) < 0.003, "at (\(p.x_mm), \(p.y_mm)): \(total) N for \(p.force_n) N")
      #expect(abs(x - p.x_mm) < 0.5 && abs(y - p.y_mm) < 0.5, "at (\(p.x_mm), \(p.y_mm)): read (\(x), \(y))")
    }
  }
}
