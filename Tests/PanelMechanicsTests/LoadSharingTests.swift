import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelMechanics

/// The panel's mechanics: a press's force is shared among the cells as the
/// plate's statics or the overlay's spreading say, and nothing is lost.
@Suite struct LoadSharingTests {
  /// The cell centres of a `columns` x `rows` grid of `pitch` mm, row by row.
  struct Grid {
    var cells: [CellPosition]
    var cellCount: Int { cells.count }
  }

  static func grid(columns: Int, rows: Int, pitch: Double) -> Grid {
    Grid(
      cells: (0..<rows).flatMap { r in
        (0..<columns).map { c in CellPosition(x_mm: (Double(c) + 0.5) * pitch, y_mm: (Double(r) + 0.5) * pitch) }
      })
  }

  @Test func everyKernelCarriesTheWholeForceAndItsWidthSetsTheSpread() throws {
    let pitch = 20.0
    let grid = Self.grid(columns: 8, rows: 6, pitch: pitch)
    let centre = 2 * 8 + 3  // row 2, column 3
    let at = grid.cells[centre]
    func shares(_ kernel: SpreadingKernel) -> [Double] {
      var loads = [Double](repeating: 0, count: grid.cellCount)
      LoadSharing(grid: grid.cells, pitch: pitch, kernel: kernel).add(force: 2, x: at.x_mm, y: at.y_mm, to: &loads)
      return loads
    }
    var centreShares: [String: [Double]] = [:]
    for width in [0.35, 0.8] {
      for kernel in [
        SpreadingKernel.boussinesq(depth: width * pitch), .gaussian(sigma: width * pitch), .exponential(length: width * pitch),
      ] {
        let s = shares(kernel)
        #expect(abs(s.reduce(0, +) - 2) < 1e-9, "\(kernel) carries \(s.reduce(0, +)) N of 2")
        centreShares[kernel.name, default: []].append(s[centre] / 2)
      }
    }
    for (name, pair) in centreShares {
      #expect(pair[0] > pair[1] + 0.1, "\(name): the narrow kernel puts \(pair[0]) on the cell, the wide one \(pair[1])")
    }
    #expect(abs(centreShares["gaussian"]![1] - centreShares["boussinesq"]![1]) > 0.05)
    // A table: nothing beyond its last radius.
    let table = shares(.table(r: [0, 10, 20], weight: [1, 0.5, 0]))
    #expect(abs(table.reduce(0, +) - 2) < 1e-9)
    #expect(table[centre + 2] == 0 && table[centre - 16] == 0)
    #expect(table[centre + 1] > 0)
    // The board keys give the same kernel as the calibration's Boussinesq.
    let board = try BoardText.load(BoardText.valid.replacingOccurrences(of: "kind = \"sim\"", with: "kind = \"sim\"\nspread_pitch = 0.7"))
    let p = try board.simulationParameters
    var a = [Double](repeating: 0, count: grid.cellCount)
    var b = a
    LoadSharing(grid: grid.cells, pitch: pitch, kernel: p.spreadingKernel(pitch: pitch)).add(force: 1, x: 51, y: 47, to: &a)
    LoadSharing(grid: grid.cells, pitch: pitch, depth: 14).add(force: 1, x: 51, y: 47, to: &b)
    #expect(a == b)
  }

  @Test func aPlateOnSupportsBalancesForceAndMoment() {
    let supports = [
      CellPosition(x_mm: 10, y_mm: 5), CellPosition(x_mm: 190, y_mm: 20), CellPosition(x_mm: 30, y_mm: 120),
      CellPosition(x_mm: 170, y_mm: 110), CellPosition(x_mm: 100, y_mm: 60),
    ]
    let stiffness = [1.0, 0.7, 1.3, 0.9, 2.0]
    let sharing = LoadSharing(supports: supports, stiffness: stiffness)
    for (x, y, f) in [(100.0, 60.0, 2.0), (5.0, 5.0, 1.0), (195.0, 125.0, 3.5), (60.0, 90.0, 0.4)] {
      var loads = [Double](repeating: 0, count: supports.count)
      sharing.add(force: f, x: x, y: y, to: &loads)
      let total = loads.reduce(0, +)
      let mx = zip(loads, supports).map { $0 * $1.x_mm }.reduce(0, +)
      let my = zip(loads, supports).map { $0 * $1.y_mm }.reduce(0, +)
      #expect(abs(total - f) < 1e-9 * f, "at (\(x), \(y)) the supports carry \(total) N of \(f)")
      #expect(abs(mx - f * x) < 1e-7 * f * 200 && abs(my - f * y) < 1e-7 * f * 200, "moments \(mx), \(my)")
    }
    // Rigid plate: the deflections w_i = load_i / k_i lie on one plane.
    var loads = [Double](repeating: 0, count: supports.count)
    sharing.add(force: 1, x: 40, y: 30, to: &loads)
    let w = zip(loads, stiffness).map { $0 / $1 }
    let plane = LoadSharing(supports: Array(supports[0..<3]), stiffness: [1, 1, 1])
    // The plane through the first three supports' deflections, evaluated at the others.
    for k in 3..<supports.count {
      var basis = [0.0, 0, 0]
      plane.add(force: 1, x: supports[k].x_mm, y: supports[k].y_mm, to: &basis)
      let predicted = zip(basis, w[0..<3]).map { $0 * $1 }.reduce(0, +)
      #expect(abs(predicted - w[k]) < 1e-9, "support \(k): deflection \(w[k]), plane \(predicted)")
    }
  }

  @Test func theKernelNamesAreTheBoardFilesNames() throws {
    #expect(SpreadingKernel.names == SimulationParameters.kernelNames)
    for kind in SpreadingKernelKind.allCases {
      var p = SimulationParameters()
      p.kernel = kind
      p.kernelTable = [[0, 1], [10, 0]]
      #expect(p.spreadingKernel(pitch: 20).kind == kind)
      #expect(p.spreadingKernel(pitch: 20).name == kind.rawValue)
    }
  }
}
