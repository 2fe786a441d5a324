/// One sensor frame as a front end delivers it: a signed 24-bit count per
/// cell (sign-extended), the panel temperature and the frame's time.
/// Filled in place by the front end; sized for `Capacity.cells`.
public struct RawFrame: Sendable {
  /// Monotonic time of the conversion.
  public var time: Time_us
  /// Front-end sequence number (wraps).
  public var sequence: UInt32
  /// Panel temperature; `hasTemperature` says whether it was measured.
  public var temperature: Temperature_C
  public var hasTemperature: Bool
  /// False when the front end could not read every cell (a bus fault, a
  /// CRC error): the core then holds its state and reports no touches.
  public var valid: Bool
  public var cellCount: Int
  public var counts: CellArray<Int32>

  public init(cellCount: Int) {
    self.time = Time_us(rawValue: 0)
    self.sequence = 0
    self.temperature = Temperature_C(rawValue: 25 << 8)
    self.hasTemperature = false
    self.valid = true
    self.cellCount = min(max(cellCount, 0), Capacity.cells)
    self.counts = CellArray(repeating: 0)
  }
}
