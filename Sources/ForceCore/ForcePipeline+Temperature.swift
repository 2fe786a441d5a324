// The temperature's compensation: each cell's conversion (zero shift,
// scale) follows the panel's temperature, a few cells a frame.

extension ForcePipeline {
  /// Takes `t` as the temperature to compensate for. The first reading,
  /// or a step of `retuneStep_Q8` or more, recomputes every cell's
  /// conversion at once; a smaller step (a sensor's last bit, a slow
  /// ramp: most frames) leaves it to `retuneSome`, a few cells a frame.
  mutating func retune(for t: Temperature_C) {
    let step = Int64(t.rawValue) - Int64(temperature.rawValue)
    let small = temperatureKnown && step < Int64(Self.retuneStep_Q8) && step > -Int64(Self.retuneStep_Q8)
    temperature = t
    temperatureKnown = true
    let n = min(geometry.cellCount, Capacity.cells)
    guard small else {
      for k in 0..<n { retune(k) }
      retunePending = 0
      return
    }
    retunePending = n
  }

  /// Recomputes the next `retuneBatch` cells' conversions, round the
  /// panel, until every cell has been recomputed since the temperature
  /// last changed: each cell lags the temperature by at most
  /// cells / `retuneBatch` frames (32 at 256 cells: under 1/250 degC
  /// in a ramp of 10 degC in 5 minutes at 320 frames/s), and a frame costs 8
  /// cells' conversions instead of all of them (the division by the span
  /// factor is the most expensive arithmetic in the core).
  mutating func retuneSome() {
    let n = min(geometry.cellCount, Capacity.cells)
    var k = retuneCursor < n ? retuneCursor : 0
    for _ in 0..<min(Self.retuneBatch, retunePending) {
      retune(k)
      k = k + 1 < n ? k + 1 : 0
    }
    retuneCursor = k
    retunePending = max(0, retunePending - Self.retuneBatch)
  }

  /// Moves cell `k`'s conversion to `temperature`.
  @inline(__always)
  mutating func retune(_ k: Int) {
    calibration[k].retune(&tracks[k].conversion, to: temperature)
    cells[k].linear = tracks[k].conversion.linear
    rezero(k)
  }
}
