import PanelHardware

/// A GPIO line wired to a simulated chip's data-ready pin, edge-triggered
/// like `GPIODataReady`: `wait` returns true for an edge (the pin going
/// from released to asserted) since the previous wait, moving the simulated
/// clock to it (or to the timeout), and paces against the wall clock when
/// the clock asks for it. Edges that came while the host was busy are
/// queued, as the kernel queues them; a pin that is already asserted gives
/// no edge until the host releases it (reads the result), which
/// `isAsserted` lets a front end see.
public struct SimulatedDataReadyLine: DataReady {
  public let source: any SimulatedDataReadySource
  public let clock: SimulatedClock
  /// Edges taken so far (the pin's edge count when last waited on).
  var taken: Int

  public init(source: any SimulatedDataReadySource, clock: SimulatedClock) {
    self.source = source
    self.clock = clock
    taken = source.dataReadyEdges(at: clock.now_ns)
  }

  public mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    var now = clock.now_ns
    let deadline = now + max(timeout_us, 0) * 1000
    while true {
      let edges = source.dataReadyEdges(at: now)
      if edges > taken {
        taken = edges
        clock.pace()
        return true
      }
      guard let t = source.nextDataReady(after: now), t > now, t <= deadline else { break }
      clock.advance(to: t)
      now = t
    }
    clock.advance(to: deadline)
    clock.pace()
    return false
  }

  public mutating func isAsserted() throws(DataReadyError) -> Bool? {
    source.isDataReady(at: clock.now_ns)
  }
}
