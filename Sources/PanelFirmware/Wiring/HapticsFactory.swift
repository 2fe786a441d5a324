import PanelFormats
import PanelHardware
import PanelSimulation

/// Opens the haptics a board's `[haptics]` names.
public enum HapticsFactory {
  /// A simulated DRV2605L on its own simulated bus (`HapticsBus.simulated`), for
  /// simulated boards and tests: the chip is returned so its register file
  /// and what it played can be read.
  public static func simulated(_ settings: HapticsSettings, clock: SimulatedClock = SimulatedClock())
    -> (feedback: HapticFeedback<SimulatedI2CBus>, chip: SimulatedDRV2605L)
  {
    let bus = SimulatedI2CBus(name: "sim", clock: clock)
    let chip = SimulatedDRV2605L()
    bus.attach(chip)
    return (HapticFeedback(bus: bus, settings: settings), chip)
  }

  /// The DRV2605L on the i2c-dev node `device` (the settings' bus); an
  /// error names the board's `[haptics] bus` and the device.
  public static func linux(_ settings: HapticsSettings, device: String) throws(FileError) -> HapticFeedback<LinuxI2CBus> {
    do throws(I2CBusOpenError) {
      return HapticFeedback(bus: try LinuxI2CBus(path: device), settings: settings)
    } catch {
      throw FileError(file: settings.file, line: settings.busLine, field: "[haptics] bus", message: error.description)
    }
  }
}
