import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware

@Suite struct BoardFileTests {
  @Test func loadsTheSimulatedBoards() throws {
    let plate = try Repo.board("sim-plate4")
    #expect(plate.name == "sim-plate4")
    #expect(plate.cellCount == 4)
    #expect(plate.grid == nil)
    #expect(plate.rate_hz == 320)
    #expect(plate.cells[3] == CellPosition(x_mm: 160, y_mm: 100))
    #expect(plate.interaction.maxTouches == 1)
    let grid = try Repo.board("sim-grid")
    #expect(grid.cellCount == 48)
    #expect(grid.grid == GridSpec(columns: 8, rows: 6, pitch_mm: 20))
    #expect(grid.cells[9] == CellPosition(x_mm: 30, y_mm: 30))
    #expect(grid.rate_hz == 500)
  }

  @Test func aValidBoardLoads() throws {
    let b = try BoardText.load(BoardText.valid)
    #expect(b.cellCount == 8)
    #expect(b.geometry.cellCount == 8)
  }

  @Test(arguments: [
    ("rate_hz = 200", "", "b.toml:16: [sampling] rate_hz: missing (required)"),
    ("rate_hz = 200", "rate_hz = \"fast\"", "b.toml:17: [sampling] rate_hz: expected an integer, found a string"),
    ("rate_hz = 200", "rate_hz = 0", "b.toml:17: [sampling] rate_hz: must be 1...100000, is 0"),
    ("width_mm = 100.0", "width_mm = true", "b.toml:5: [panel] width_mm: expected a float, found a boolean"),
    ("cols = 4", "cols = 6", "b.toml:9: [grid] cols: 6 cells at 20.0 mm do not fit the panel's width of 100.0 mm"),
    ("kind = \"sim\"", "kind = \"sim\"\nkindd = 2", "b.toml:15: [frontend] kindd: unknown key"),
  ])
  func badBoardsNameFileLineAndField(_ change: (String, String, String)) {
    let text = BoardText.valid.replacingOccurrences(of: change.0, with: change.1)
    do {
      _ = try BoardText.load(text)
      Issue.record("loaded a bad board")
    } catch {
      #expect(error.description.hasPrefix(change.2), "\(error.description)")
    }
  }
}

extension String {
  func replacingOccurrences(of a: String, with b: String) -> String {
    var out = ""
    var rest = self[...]
    while let r = rest.range(of: a) {
      out += rest[..<r.lowerBound]
      out += b
      rest = rest[r.upperBound...]
    }
    return out + rest
  }
}

@Suite struct CalibrationRecordTests {
  @Test(arguments: ["sim-plate4", "sim-grid"])
  func shippedCalibrationsAreTheSimulatorsTruth(_ name: String) throws {
    let board = try Repo.board(name)
    let record = try CalibrationRecord.load(path: Repo.path("calibration/\(name).toml"), board: board)
    let panel = try FrontEndFactory.simulatedPanel(board: board, options: RunOptions(speed: 0))
    #expect(record == panel.trueCalibration(created: record.created))
  }

  @Test func roundTripsAndDetectsTampering() throws {
    let record = CalibrationRecord(
      board: "b", serial: "S-1", created: "2026-11-21T00:00:00Z", source: "session", plan: "p",
      cells: [
        CellParameters(offset_counts: -12.5, gain_counts_per_n: 41_234.567, linearity_per_n: -0.0021),
        CellParameters(offset_counts: 7, gain_counts_per_n: -39_000, tcZero_counts_per_c: 1e-5, tcSpan_per_c: 2.5e-4),
      ])
    let text = record.encoded()
    #expect(try CalibrationRecord(text: text, file: "c.toml") == record)
    let tampered = text.replacingOccurrences(of: "41234.567", with: "41234.568")
    do {
      _ = try CalibrationRecord(text: tampered, file: "c.toml")
      Issue.record("accepted a tampered record")
    } catch {
      #expect(error.description.contains("c.toml"))
      #expect(error.description.contains("CRC mismatch"))
    }
  }
}
