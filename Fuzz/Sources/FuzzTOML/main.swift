import FuzzSupport
import PanelFirmware

// A TOML file as any file argument is read: UTF-8 text, parsed, then checked
// as each kind of file the tool reads (board, scenario, regions, plan,
// calibration record) against the repository's simulated plate.
enum Fixture {
  static let board: Board = {
    do { return try Board.load(path: repositoryRoot + "/boards/sim-plate4.toml") } catch {
      fatalError("FuzzTOML needs the repository's boards/sim-plate4.toml (run from the root): \(error)")
    }
  }()
}

_ = Fixture.board
runFuzzer { data, size in
  guard let text = String(validating: input(data, size), as: UTF8.self) else { return 0 }
  _ = try? CalibrationRecord(text: text, file: "fuzz.toml")
  guard let table = try? TOML.parse(text, file: "fuzz.toml") else { return 0 }
  if let board = try? Board(table: table) { _ = try? board.driverConfiguration }
  _ = try? Scenario(table: table, board: Fixture.board)
  _ = try? RegionMap(table: table, board: Fixture.board)
  _ = try? CalibrationPlan(table: table, board: Fixture.board)
  return 0
}
