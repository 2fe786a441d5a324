import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware

/// A board's `[frontend]` is read once, when the board loads, into the
/// typed front end the factories take.
@Suite struct BoardFrontEndTests {
  /// Each repository board is the front end its file says: a simulated
  /// panel, real chips, or a twin of them on a simulated bus.
  @Test(arguments: [
    ("sim-plate4", "sim"), ("sim-grid", "sim"), ("sim-grid-noisy", "sim"), ("sim-plate4-noisy", "sim"),
    ("sim-grid-gaussian", "sim"), ("sim-plate4-nau7802", "twin nau7802"), ("sim-plate4-ads122c04", "twin ads122c04"),
    ("sim-grid-frame", "twin frame"), ("rpi4-nau7802x4", "chips nau7802"), ("rpi4-ads122c04x4", "chips ads122c04"),
    ("rpi4-frame-grid", "chips frame"),
  ])
  func eachBoardIsTheFrontEndItsFileNames(_ name: String, _ expected: String) throws {
    let board = try Repo.board(name)
    let seen: String
    switch board.frontEnd {
    case .simulatedPanel: seen = "sim"
    case .simulatedTwin(let c, _): seen = "twin " + c.chip.rawValue
    case .chips(let c): seen = "chips " + c.chip.rawValue
    }
    #expect(seen == expected)
    #expect(board.frontEnd.isSimulated == !expected.hasPrefix("chips"))
    #expect(board.frontEnd.kind == (expected == "sim" ? "sim" : String(expected.split(separator: " ")[1])))
  }

  /// A typo in a twin's key is an error at load, naming its line, not
  /// when the front end is first opened.
  @Test func aWrongFrontEndKeyFailsTheLoad() throws {
    var text = try TextFile.read(path: Repo.path("boards/sim-plate4-nau7802.toml"))
    #expect(!text.contains("settle_ms") && text.contains("[frontend]\n"))
    text = text.replacing("[frontend]\n", with: "[frontend]\nsettle_ms = 9000\n")
    let message = FilesTestSupport.failure { _ = try Board(table: TOML.parse(text, file: "twin.toml")) }
    #expect(message?.hasPrefix("twin.toml:") == true && message?.contains("[frontend] settle_ms: must be 0...5000, is 9000") == true,
      "\(message ?? "no error")")
  }

  /// A device that does not open long after the load still names the
  /// board's line, kept with the typed configuration.
  @Test func aDeviceErrorNamesTheBoardsLine() throws {
    let text = try TextFile.read(path: Repo.path("boards/rpi4-nau7802x4.toml"))
    let board = try Board(table: TOML.parse(text.replacing("\"/dev/i2c-1\"", with: "\"/dev/i2c-97\""), file: "real.toml"))
    let config = try board.driverConfiguration
    let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("bus = ") }) + 1
    #expect(config.origin.error("bus", "gone").description == "real.toml:\(line): [frontend] bus: gone")
  }
}
