import ForceCore
import Foundation
import PanelFirmware
import PanelMechanics
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFormats
@testable import PanelSimulation

/// The grid's learnt two-dimensional response: kept in the record (version
/// 3, older records still load), fitted from plans that load between cells
/// and in the outer band, shown in the certificate.
@Suite struct LearntResponseTests {
  /// sim-grid's board with its overlay stiffer along y than along x: the
  /// spreading twice as wide along x (`spread_aspect`), which no radial
  /// profile describes.
  static func anisotropicGrid(in dir: String) throws -> (board: Board, plan: String) {
    var text = try String(contentsOfFile: Repo.path("boards/sim-grid.toml"), encoding: .utf8)
    text = text.replacingOccurrences(of: "name = \"sim-grid\"", with: "name = \"test-grid-anisotropic\"")
    text = text.replacingOccurrences(of: "spread_mm = 14.0", with: "spread_mm = 12.0\nspread_aspect = 2.0")
    text = text.replacingOccurrences(of: "scenario = \"../scenarios/demo-grid.toml\"\n", with: "")
    #expect(text.contains("spread_aspect = 2.0"))
    try text.write(toFile: dir + "/board.toml", atomically: true, encoding: .utf8)
    var plan = try String(contentsOfFile: Repo.path("calibration/plans/sim-grid.toml"), encoding: .utf8)
    plan = plan.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("boards = ") }
      .joined(separator: "\n")
      .replacingOccurrences(of: "board = \"sim-grid\"", with: "board = \"test-grid-anisotropic\"")
    try plan.write(toFile: dir + "/plan.toml", atomically: true, encoding: .utf8)
    return (try Board.load(path: dir + "/board.toml"), dir + "/plan.toml")
  }

  @Test func recordsOfVersionThreeKeepTheResponseAndOlderOnesStillLoad() throws {
    let board = try Repo.board("sim-grid")
    let v1 = try CalibrationRecord.load(path: Repo.path("calibration/sim-grid.toml"), board: board)
    #expect(v1.response == nil && v1.encodedVersion < 3)
    var response = GridResponse(profile: SpreadProfile.boussinesq(depth: 14, pitch: 20), board: board)
    // Not radial: wider along x.
    for i in response.kernel.indices { response.kernel[i] *= 1 + 0.001 * Double(i % 7) }
    response.capture[0] = 0.93
    var v3 = v1
    v3.fit = FitSummary(model: "grid-spreading", spread_mm: 14, placements: 200, residual_pct: 0.2)
    v3.response = response.record
    v3.response?.residual_pct = 0.2
    let text = v3.encoded()
    #expect(text.contains("version = 3") && text.contains("[response]") && text.contains("format = \"grid-response\""))
    let back = try CalibrationRecord(text: text, file: "x.toml")
    #expect(back == v3)
    #expect(back.gridResponse(board: board) == GridResponse(record: response.record, board: board))
    // Without a response the record stays version 2.
    var v2 = v3
    v2.response = nil
    #expect(v2.encoded().contains("version = 2"))
    #expect(try CalibrationRecord(text: v2.encoded(), file: "x.toml") == v2)
    // An unknown response format is refused, naming it.
    var unknown = v3
    unknown.response?.format = "grid-response-9"
    do {
      _ = try CalibrationRecord(text: unknown.encoded(), file: "x.toml")
      Issue.record("an unknown response format loaded")
    } catch {
      #expect("\(error)".contains("grid-response-9"))
    }
  }

  /// The plan's generators: between cells at quarter-pitch offsets, and the
  /// outer band beside every edge cell and at the corners.
  @Test func plansLoadBetweenCellsAndInTheOuterBand() throws {
    let board = try Repo.board("sim-grid")
    let plan = try CalibrationPlan.load(path: Repo.path("calibration/plans/sim-grid.toml"), board: board)
    let loaded = plan.steps.filter { $0.isLoaded && $0.role == .fit }
    let pitch = board.grid!.pitch_mm
    func offGrid(_ v: Double) -> Double { abs((v / pitch - 0.5) - (v / pitch - 0.5).rounded()) }
    let between = loaded.filter { offGrid($0.x_mm) > 0.1 || offGrid($0.y_mm) > 0.1 }
    #expect(between.count >= 30)
    let band = loaded.filter { min($0.x_mm, $0.y_mm, board.width_mm - $0.x_mm, board.height_mm - $0.y_mm) < pitch / 2 - 1 }
    // Every edge cell's outward side (8 + 6 + 8 + 6) and the four corners.
    #expect(band.count >= 32)
    for (x, y) in [(5.0, 5.0), (155.0, 5.0), (155.0, 115.0), (5.0, 115.0)] {
      #expect(band.contains { abs($0.x_mm - x) < 0.01 && abs($0.y_mm - y) < 0.01 }, "corner \(x), \(y)")
    }
  }

  /// sim-grid calibrated through its own plan: the record keeps the
  /// response it learnt (a grid always does, even where the radial profile
  /// fits about as well), and still presses in the outer band and the
  /// corners read within 1 mm and 3 % through the whole scan loop. Before,
  /// a grid whose radial profile fitted kept no response, its contacts were
  /// interpolated, and these presses read 4–7 mm inward (issue 23).
  @Test func simGridsOwnCalibrationReadsTheOuterBandWithinOneMillimetre() throws {
    let board = try Repo.board("sim-grid")
    let (result, _) = try CalibrationTests.calibrate(board: board, plan: Repo.path("calibration/plans/sim-grid.toml"))
    #expect(result.record.response != nil)
    for (x, y) in [(155.0, 60.0), (80.0, 115.0), (6.0, 6.0), (150.0, 8.0), (5.0, 100.0)] {
      let e = try SimRun.stillPress(board: board, x: x, y: y, calibration: result.record)
      #expect(e.steadyReports > 50)
      #expect(e.position <= 1.0, "at (\(x), \(y)): \(e.position) mm")
      #expect(e.force <= 0.03, "at (\(x), \(y)): force error \(e.force) N")
      #expect(e.ids == 1)
    }
  }

  /// An overlay twice as stiff along one axis: the calibration learns a
  /// response wider along x than along y, its residual within the plan's
  /// default limit (the radial profile left 10 %), and the certificate
  /// shows it.
  @Test func aNonRadialOverlayIsLearnt() throws {
    let dir = try CalibrationTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (board, plan) = try Self.anisotropicGrid(in: dir)
    let (result, _) = try CalibrationTests.calibrate(board: board, plan: plan)
    let response = try #require(result.fit.response)
    let pitch = board.grid!.pitch_mm
    let alongX = response.kernel(pitch, 0)
    let alongY = response.kernel(0, pitch)
    #expect(alongX > 1.5 * alongY, "K(1 pitch, 0) = \(alongX), K(0, 1 pitch) = \(alongY)")
    let residual = try #require(result.record.fit?.residual_pct)
    #expect(residual < result.session.limits.fitResidual_pct, "residual \(residual) %")
    #expect(result.record.response?.residual_pct == residual)
    let check = result.checks.first { $0.name == "fit residual" }
    #expect(check?.passed == true)
    // The record keeps it and reads it back.
    var record = result.record
    record.result = "pass"
    let back = try CalibrationRecord(text: record.encoded(), file: "x.toml")
    #expect(back.gridResponse(board: board) != nil)
    let html = Certificate.html(result)
    #expect(html.contains("<h2>Learnt response</h2>"))
  }
}
