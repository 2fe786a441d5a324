import PanelFormats
import PanelHardware

/// Opening the Linux devices a board file names, with errors that name the
/// board's field and the device ("boards/b.toml:40: [frontend] bus: I2C bus
/// /dev/i2c-1 does not exist (...)").
extension LinuxI2CBus {
  /// Opens the i2c-dev node of a driver board (`[frontend] bus`), with
  /// the adapter's transfer timeout set from `timeout_ms`.
  public static func open(board: Board, config: DriverConfiguration) throws(FileError) -> LinuxI2CBus {
    guard case .device(let path) = config.bus else {
      throw config.origin.error("bus", "\(Quote.text(config.bus.description)) is a simulated twin's bus, not a device")
    }
    do throws(I2CBusOpenError) {
      return try LinuxI2CBus(path: path, timeout_ms: config.timeout_ms)
    } catch {
      throw config.origin.error("bus", error.description)
    }
  }
}

extension GPIODataReady {
  /// Requests a driver board's data-ready lines (`[frontend] gpio_chip`,
  /// `drdy_lines`), one `GPIODataReady` per chip in chip order; none when
  /// the board polls its chips' ready bits instead.
  public static func open(board: Board, config: DriverConfiguration, edge: GPIOEdge, bias: GPIOBias = .asIs)
    throws(FileError) -> [GPIODataReady]
  {
    guard let wiring = config.dataReady else { return [] }
    var lines: [GPIODataReady] = []
    for offset in wiring.lines {
      do throws(DataReadyError) {
        lines.append(try GPIODataReady(lines: [GPIOLine(chip: wiring.chip, offset: UInt32(offset))], edge: edge, bias: bias))
      } catch {
        let why: String
        switch error {
        case .unavailable(let text): why = text
        default: why = error.description
        }
        throw config.origin.error("drdy_lines", why)
      }
    }
    return lines
  }
}

extension DriverConfiguration.Chip {
  /// The edge that marks a new conversion on the chip's data-ready pin:
  /// NAU7802 DRDY is active high while CTRL1.CRP = 0 (the driver leaves it
  /// so); ADS122C04 DRDY is active low; a frame controller's frame-ready
  /// output is taken as active low (open drain).
  public var dataReadyEdge: GPIOEdge {
    switch self {
    case .nau7802: return .rising
    case .ads122c04, .frame: return .falling
    }
  }
}
