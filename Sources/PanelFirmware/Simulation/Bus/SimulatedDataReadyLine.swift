/// A GPIO line wired to a simulated chip's data-ready pin. Waiting moves the
/// simulated clock to the moment the pin asserts (or to the timeout), and
/// paces against the wall clock when the clock asks for it. Level-sensitive:
/// a pin that is already asserted returns at once, as a driver re-checking
/// a line that stays high expects.
public struct SimulatedDataReadyLine: DataReady {
  public let source: any SimulatedDataReadySource
  public let clock: SimulatedClock

  public init(source: any SimulatedDataReadySource, clock: SimulatedClock) {
    self.source = source
    self.clock = clock
  }

  public mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    let now = clock.now_ns
    if source.isDataReady(at: now) {
      clock.pace()
      return true
    }
    let deadline = now + max(timeout_us, 0) * 1000
    if let t = source.nextDataReady(after: now), t <= deadline {
      clock.advance(to: t)
      clock.pace()
      return true
    }
    clock.advance(to: deadline)
    clock.pace()
    return false
  }
}
