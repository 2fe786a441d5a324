/// Opens the haptics a board's `[haptics]` names.
public enum HapticsFactory {
  /// A simulated DRV2605L on its own simulated bus (`bus = "sim"`), for
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

  /// Checks that this build can drive the board's haptics.
  public static func check(_ settings: HapticsSettings, board: Board) throws(FileError) {
    guard settings.bus == "sim" else {
      throw FileError(
        file: board.file, field: "[haptics] bus",
        message: "\"\(settings.bus)\": haptics on a real i2c-dev bus need the Linux I2C bus, not in this build (use bus = \"sim\")")
    }
  }
}
