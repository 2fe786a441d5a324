import Glibc
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware

/// The real board files load with the same keys as their simulated twins,
/// and say what is wired where.
@Suite struct RealBoardFileTests {
  @Test func nau7802x4IsTheTwinOnARealBus() throws {
    let realBoard = try Repo.board("rpi4-nau7802x4")
    let real = try realBoard.driverConfiguration
    let twin = try Repo.board("sim-plate4-nau7802").driverConfiguration
    #expect(real.bus == .device("/dev/i2c-1") && !realBoard.frontEnd.isSimulated)
    #expect(real.chip == .nau7802)
    #expect(real.mux == I2CAddress(0x70))
    #expect(real.places == twin.places)
    #expect(real.places.map(\.channel) == [0, 1, 2, 3])
    #expect(real.dataReady == twin.dataReady)
    #expect(real.dataReady?.lines == [17, 27, 22, 23])
    #expect(real.eeprom == twin.eeprom)
    #expect(real.nau7802 == twin.nau7802)
    #expect(real.cells == twin.cells && real.cells.output_mV_V == 2 && real.cells.capacity_kg == 5)
    #expect(realBoard.frontEnd.twinParameters == nil)
  }

  @Test func ads122c04x4IsTheTwinOnARealBus() throws {
    let c = try Repo.board("rpi4-ads122c04x4").driverConfiguration
    let twin = try Repo.board("sim-plate4-ads122c04").driverConfiguration
    #expect(c.chip == .ads122c04 && c.bus == .device("/dev/i2c-1") && c.mux == nil)
    #expect(c.places.map(\.address.rawValue) == [0x40, 0x41, 0x44, 0x45])
    #expect(c.places == twin.places && c.bus_khz == twin.bus_khz)
    #expect(c.ads122c04 == twin.ads122c04 && c.cells == twin.cells)
    #expect(c.ads122c04.samplesPerSecond == 600 && c.ads122c04.crc && c.ads122c04.counter)
    #expect(c.dataReady == twin.dataReady)
    #expect(c.eeprom == twin.eeprom)
  }

  @Test func theFrameBoardIsTheTwinOnARealBus() throws {
    let board = try Repo.board("rpi4-frame-grid")
    let c = try board.driverConfiguration
    let twinBoard = try Repo.board("sim-grid-frame")
    let twin = try twinBoard.driverConfiguration
    #expect(board.cellCount == 48 && twinBoard.cellCount == 48)
    #expect(board.rate_hz == twinBoard.rate_hz)
    #expect(c.chip == .frame && c.bus == .device("/dev/i2c-1") && c.places == [DriverConfiguration.Place(address: 0x28)])
    #expect(c.places == twin.places && c.bus_khz == twin.bus_khz)
    #expect(c.dataReady == twin.dataReady && c.eeprom == twin.eeprom)
    #expect(c.frame.gain == twin.frame.gain && c.cells == twin.cells)
  }

  /// The nominal sensitivity (`--uncalibrated`): rated output x excitation
  /// / reference x gain x 2^23 / capacity. 2 mV/V at 5 kg (49.03 N), gain
  /// 128, ratiometric: 2e-3 x 128 x 8388608 / 49.03 = 43 796 counts/N.
  @Test func theNominalSensitivityFollowsGainReferenceAndRating() throws {
    let plate = try Repo.board("rpi4-nau7802x4")
    #expect(abs(FrontEndFactory.nominalGain(board: plate) - 43_796.5) < 1)
    #expect(abs(FrontEndFactory.nominalGain(board: try Repo.board("rpi4-ads122c04x4")) - 43_796.5) < 1)
    #expect(abs(FrontEndFactory.nominalGain(board: try Repo.board("rpi4-frame-grid")) - 62_566.4) < 1)
    // Half the gain, half the counts; the ADS122C04's internal 2.048 V
    // reference with a 3.3 V excitation, 3.3 / 2.048 times as many.
    func changed(_ name: String, _ from: String, _ to: String) throws -> Double {
      let text = try String(contentsOfFile: Repo.path("boards/\(name).toml"), encoding: .utf8)
      let table = try TOML.parse(text.replacingOccurrences(of: from, with: to), file: "b.toml")
      return FrontEndFactory.nominalGain(board: try Board(table: table))
    }
    #expect(abs(try changed("rpi4-nau7802x4", "gain = 128", "gain = 64") - 43_796.5 / 2) < 1)
    let onInternal = try changed("rpi4-ads122c04x4", "reference = \"external\"", "reference = \"internal\"")
    #expect(abs(onInternal - 43_796.5 * 3.3 / 2.048) < 1)
    // Without the rating keys: the defaults, 1 mV/V at 5 kg.
    let defaults = try changed("rpi4-nau7802x4", "cell_output_mv_v = 2.0", "")
    #expect(abs(defaults - 43_796.5 / 2) < 1)
  }

  static var noI2C1: Bool { access("/dev/i2c-1", F_OK) != 0 }
  static var noGPIOChip0: Bool { access("/dev/gpiochip0", F_OK) != 0 }

  @Test(.enabled(if: noI2C1, "this machine has /dev/i2c-1"))
  func openingARealBoardWithoutTheDeviceNamesFieldAndDevice() throws {
    // No /dev/i2c-1 on the build machine: a FileError naming the key's line.
    let board = try Repo.board("rpi4-nau7802x4")
    let config = try board.driverConfiguration
    do throws(FileError) {
      _ = try LinuxI2CBus.open(board: board, config: config)
      Issue.record("/dev/i2c-1 opened; this test expects a machine without it")
    } catch {
      #expect(error.field == "[frontend] bus")
      #expect(error.line != nil)
      #expect(error.description.contains("I2C bus /dev/i2c-1 does not exist"))
    }
  }

  @Test(.enabled(if: noGPIOChip0, "this machine has /dev/gpiochip0"))
  func aRealBoardsDataReadyLinesNameTheChip() throws {
    let board = try Repo.board("rpi4-nau7802x4")
    let config = try board.driverConfiguration
    do throws(FileError) {
      _ = try GPIODataReady.open(board: board, config: config, edge: .rising)
      Issue.record("/dev/gpiochip0 line 17 requested; this test expects a machine without it")
    } catch {
      #expect(error.field == "[frontend] drdy_lines")
      #expect(error.description.contains("/dev/gpiochip0"))
    }
  }
}
