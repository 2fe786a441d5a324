/// Opening the Linux devices a board file names, with errors that name the
/// board's field and the device ("boards/b.toml:40: [frontend] bus: I2C bus
/// /dev/i2c-1 does not exist (...)").
extension LinuxI2CBus {
  /// Opens the i2c-dev node of a driver board (`[frontend] bus`).
  public static func open(board: Board, config: DriverConfiguration) throws(FileError) -> LinuxI2CBus {
    do throws(I2CBusOpenError) {
      return try LinuxI2CBus(path: config.bus)
    } catch {
      throw fieldError(board, "bus", error.description)
    }
  }
}

extension GPIODataReady {
  /// Requests a driver board's data-ready lines (`[frontend] gpio_chip`,
  /// `drdy_lines`); nil when the board polls instead.
  public static func open(board: Board, config: DriverConfiguration, edge: GPIOEdge, bias: GPIOBias = .asIs)
    throws(FileError) -> GPIODataReady?
  {
    guard let wiring = config.dataReady else { return nil }
    let lines = wiring.lines.map { GPIOLine(chip: wiring.chip, offset: UInt32($0)) }
    do throws(DataReadyError) {
      return try GPIODataReady(lines: lines, edge: edge, bias: bias)
    } catch {
      let why: String
      switch error {
      case .unavailable(let text): why = text
      default: why = error.description
      }
      throw fieldError(board, "drdy_lines", why)
    }
  }
}

func fieldError(_ board: Board, _ key: String, _ message: String) -> FileError {
  if let table = board.frontEnd.table { return table.error(key, message) }
  return FileError(file: board.file, field: "[frontend] " + key, message: message)
}
