import Glibc
import Testing

@testable import PanelFirmware

/// The real board files load with the same keys as their simulated twins,
/// and say what is wired where.
@Suite struct RealBoardFileTests {
  @Test func nau7802x4IsTheTwinOnARealBus() throws {
    let real = try FrontEndFactory.driverConfiguration(try Repo.board("rpi4-nau7802x4"))
    let twin = try FrontEndFactory.driverConfiguration(try Repo.board("sim-plate4-nau7802"))
    #expect(real.bus == "/dev/i2c-1" && !real.isSimulated)
    #expect(real.chip == .nau7802)
    #expect(real.mux == I2CAddress(0x70))
    #expect(real.places == twin.places)
    #expect(real.places.map(\.channel) == [0, 1, 2, 3])
    #expect(real.dataReady == twin.dataReady)
    #expect(real.dataReady?.lines == [17, 27, 22, 23])
    #expect(real.eeprom == twin.eeprom)
    #expect(real.nau7802 == twin.nau7802)
    #expect(real.simulation == nil)
  }

  @Test func ads122c04x4IsTheTwinOnARealBus() throws {
    let c = try FrontEndFactory.driverConfiguration(try Repo.board("rpi4-ads122c04x4"))
    let twin = try FrontEndFactory.driverConfiguration(try Repo.board("sim-plate4-ads122c04"))
    #expect(c.chip == .ads122c04 && c.bus == "/dev/i2c-1" && c.mux == nil)
    #expect(c.places.map(\.address.rawValue) == [0x40, 0x41, 0x44, 0x45])
    #expect(c.places == twin.places && c.bus_khz == twin.bus_khz)
    #expect(c.ads122c04 == twin.ads122c04)
    #expect(c.ads122c04.samplesPerSecond == 600 && c.ads122c04.crc && c.ads122c04.counter)
    #expect(c.dataReady == twin.dataReady)
    #expect(c.eeprom == twin.eeprom)
  }

  @Test func theFrameBoardIsTheTwinOnARealBus() throws {
    let board = try Repo.board("rpi4-frame-grid")
    let c = try FrontEndFactory.driverConfiguration(board)
    let twinBoard = try Repo.board("sim-grid-frame")
    let twin = try FrontEndFactory.driverConfiguration(twinBoard)
    #expect(board.cellCount == 48 && twinBoard.cellCount == 48)
    #expect(board.rate_hz == twinBoard.rate_hz)
    #expect(c.chip == .frame && c.bus == "/dev/i2c-1" && c.places == [DriverConfiguration.Place(address: 0x28)])
    #expect(c.places == twin.places && c.bus_khz == twin.bus_khz)
    #expect(c.dataReady == twin.dataReady && c.eeprom == twin.eeprom)
  }

  static var noI2C1: Bool { access("/dev/i2c-1", F_OK) != 0 }
  static var noGPIOChip0: Bool { access("/dev/gpiochip0", F_OK) != 0 }

  @Test(.enabled(if: noI2C1, "this machine has /dev/i2c-1"))
  func openingARealBoardWithoutTheDeviceNamesFieldAndDevice() throws {
    // No /dev/i2c-1 on the build machine: a FileError naming the key's line.
    let board = try Repo.board("rpi4-nau7802x4")
    let config = try FrontEndFactory.driverConfiguration(board)
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
    let config = try FrontEndFactory.driverConfiguration(board)
    do throws(FileError) {
      _ = try GPIODataReady.open(board: board, config: config, edge: .rising)
      Issue.record("/dev/gpiochip0 line 17 requested; this test expects a machine without it")
    } catch {
      #expect(error.field == "[frontend] drdy_lines")
      #expect(error.description.contains("/dev/gpiochip0"))
    }
  }
}
