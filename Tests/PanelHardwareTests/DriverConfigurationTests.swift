import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware

@Suite struct DriverConfigurationTests {
  @Test func theNAU7802TwinLoads() throws {
    let board = try Repo.board("sim-plate4-nau7802")
    let c = try board.driverConfiguration
    #expect(c.chip == .nau7802)
    #expect(board.frontEnd.isSimulated)
    #expect(c.bus_khz == 400)
    #expect(c.mux == 0x70)
    #expect(c.places == (0..<4).map { DriverConfiguration.Place(address: 0x2A, channel: $0) })
    #expect(c.nau7802.gain == .x128 && c.nau7802.rate == .sps320 && c.nau7802.ldo == .v3_3)
    #expect(c.dataReady == .init(chip: "/dev/gpiochip0", lines: [17, 27, 22, 23]))
    #expect(c.eeprom == .init(kind: .c32, place: .init(address: 0x50)))
    #expect(board.frontEnd.twinParameters?.physics.seed == 4)
    #expect(c.location(of: 2).description == "sim mux 0x70 channel 2 address 0x2a (NAU7802)")
  }

  static let base = """
    [board]
    name = "t"

    [panel]
    width_mm = 100.0
    height_mm = 50.0

    [grid]
    cols = 2
    rows = 1
    pitch_mm = 20.0

    [frontend]
    kind = "nau7802"
    bus = "/dev/i2c-1"
    mux = 0x70
    channels = [0, 1]

    [frontend.eeprom]
    kind = "24c02"

    [sampling]
    rate_hz = 320
    """

  static func load(_ text: String) throws(FileError) -> Board {
    try Board(table: TOML.parse(text, file: "b.toml"))
  }

  @Test func aRealBoardLoads() throws {
    let board = try Self.load(Self.base)
    let c = try board.driverConfiguration
    guard case .chips = board.frontEnd else { Issue.record("not real chips: \(board.frontEnd)"); return }
    #expect(c.dataReady == nil)
    #expect(c.location(of: 1).description == "/dev/i2c-1 mux 0x70 channel 1 address 0x2a (NAU7802)")
    #expect(c.eepromLocation?.description == "/dev/i2c-1 address 0x50 (24C02)")
  }

  @Test(arguments: [
    ("kind = \"nau7802\"", "kind = \"hx711\"",
     "b.toml:14: [frontend] kind: unknown front end \"hx711\" (expected one of: sim, nau7802, ads122c04, frame)"),
    ("mux = 0x70", "mux = 0x90", "b.toml:16: [frontend] mux: 0x90 is not a 7-bit I2C address (0x70...0x77)"),
    ("mux = 0x70", "mux = 0x71\nmux_typo = 1", "b.toml:17: [frontend] mux_typo: unknown key"),
    ("mux = 0x70", "mux = 0x20", "b.toml:16: [frontend] mux: 0x20 is not a TCA9548A address (0x70...0x77)"),
    ("channels = [0, 1]", "channels = [0, 9]", "b.toml:17: [frontend] channels[2]: mux channel 9 is out of range (0...7)"),
    ("channels = [0, 1]", "channels = [0, -1]", "b.toml:17: [frontend] channels[2]: mux channel -1 is out of range (0...7)"),
    ("channels = [0, 1]", "channels = [0]", "b.toml:17: [frontend] channels: has 1 channels, the board has 2 cells"),
    ("mux = 0x70\nchannels = [0, 1]", "", "b.toml:13: [frontend] mux: missing: 2 NAU7802s share the fixed address 0x2a"),
    ("bus = \"/dev/i2c-1\"", "bus = \"i2c1\"", "b.toml:15: [frontend] bus: \"i2c1\" is neither a bus device"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\nbus_khz = 1000", "[frontend] bus_khz: 1000 kHz is faster than the TCA9548A"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\nbus_khz = 200", "[frontend] bus_khz: 200 kHz is not a bus speed"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\ngain = 3", "[frontend] gain: 3 is not a NAU7802 gain"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\nrate_sps = 100", "[frontend] rate_sps: 100 is not a NAU7802 rate"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\nldo_v = 3.1", "[frontend] ldo_v: 3.1 V is not a NAU7802 LDO voltage"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\nldo_v = 1e300", "[frontend] ldo_v: 1e+300 V is not a NAU7802 LDO voltage"),
    ("bus = \"/dev/i2c-1\"", "bus = \"/dev/i2c-1\"\ndrdy_lines = [4]", "[frontend] drdy_lines: has 1 lines, the front end has 2 chips"),
    ("kind = \"24c02\"", "kind = \"24c64\"",
     "b.toml:20: [frontend.eeprom] kind: \"24c64\" is not an EEPROM this driver knows (expected one of: 24c02, 24c32)"),
    ("kind = \"24c02\"", "kind = \"24c02\"\naddress = 0x60", "b.toml:21: [frontend.eeprom] address: 0x60 is not a 24C02 address (0x50...0x57)"),
    ("kind = \"24c02\"", "kind = \"24c02\"\nchannel = 8", "b.toml:21: [frontend.eeprom] channel: mux channel 8 is out of range (0...7)"),
    ("[frontend.eeprom]", "[frontend.sim]\nseed = 1\n[frontend.eeprom]", "[frontend] sim: a simulation table, but bus is \"/dev/i2c-1\""),
    ("rate_hz = 320", "rate_hz = 500", "[frontend] rate_sps: missing, and the board's 500 Hz is faster than a NAU7802 converts"),
  ])
  func badFrontEndsNameTheField(_ change: (String, String, String)) {
    let text = Self.base.replacingOccurrences(of: change.0, with: change.1)
    #expect(text != Self.base)
    do {
      _ = try Self.load(text)
      Issue.record("loaded: \(change.1)")
    } catch {
      #expect(error.description.contains(change.2), "\(error.description)")
    }
  }

  static let ads = """
    [board]
    name = "t"

    [panel]
    width_mm = 100.0
    height_mm = 50.0

    [grid]
    cols = 2
    rows = 1
    pitch_mm = 20.0

    [frontend]
    kind = "ads122c04"
    bus = "sim"
    bus_khz = 1000
    addresses = [0x40, 0x41]

    [sampling]
    rate_hz = 500
    """

  @Test func adsAddressesAreCheckedOneByOne() throws {
    let board = try Self.load(Self.ads)
    let c = try board.driverConfiguration
    #expect(c.places.map(\.address) == [0x40, 0x41])
    #expect(c.ads122c04.samplesPerSecond == 600)
    #expect(board.frontEnd.twinParameters != nil)
    for (bad, message) in [
      ("addresses = [0x40, 0x39]", "b.toml:17: [frontend] addresses[2]: 0x39 is not an ADS122C04 address (0x40...0x4f)"),
      ("addresses = [0x40, 0x40]", "b.toml:17: [frontend] addresses[2]: 0x40 is used twice on the same segment"),
      ("addresses = [0x40, 0x41]\nchannels = [1, 2]", "b.toml:18: [frontend] channels: given, but there is no mux"),
      ("addresses = [0x40, 0x41]\nrate_sps = 2000", "[frontend] rate_sps: 2000 is not an ADS122C04 normal rate"),
    ] {
      let text = Self.ads.replacingOccurrences(of: "addresses = [0x40, 0x41]", with: bad)
      #expect(throws: FileError.self) { try Self.load(text) }
      do { _ = try Self.load(text) } catch { #expect(error.description.contains(message), "\(error)") }
    }
    let turbo = Self.ads.replacingOccurrences(of: "bus_khz = 1000", with: "bus_khz = 1000\nturbo = true\nrate_sps = 2000")
    #expect(try Self.load(turbo).driverConfiguration.ads122c04.samplesPerSecond == 2000)
  }
}
