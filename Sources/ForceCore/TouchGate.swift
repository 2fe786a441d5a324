/// Whether the panel as a whole is touched, with hysteresis and debounce:
/// touched after `debounceOn` consecutive frames with a contact at or above
/// the touch-on thresholds (`touchOn` and `noiseOn` standard deviations);
/// released after `debounceOff` consecutive frames without one above the
/// touch-off thresholds. Drives a plate's baseline freeze, and while it is
/// touched the load is watched for stillness (`LoadLiveness`).
public struct TouchGate: Sendable {
  public private(set) var touched = false
  /// Frames the panel has been touched without a break.
  public private(set) var onFrames: Int = 0
  let debounceOn: Int
  let debounceOff: Int
  var run = 0

  public init(_ c: CoreConfiguration) {
    debounceOn = max(1, c.debounceOn)
    debounceOff = max(1, c.debounceOff)
  }

  /// Feeds one frame: whether a contact reached the touch-on thresholds
  /// (`pressing`), and whether one stayed above the touch-off ones
  /// (`holding`). Returns the new state.
  @inline(__always)
  public mutating func update(pressing: Bool, holding: Bool) -> Bool {
    if touched {
      onFrames += 1
      run = holding ? 0 : run + 1
      if run >= debounceOff {
        touched = false
        run = 0
        onFrames = 0
      }
    } else {
      run = pressing ? run + 1 : 0
      if run >= debounceOn {
        touched = true
        run = 0
        onFrames = 1
      }
    }
    return touched
  }

  /// Forgets the touch (after the baselines absorbed a parked load).
  public mutating func reset() {
    touched = false
    run = 0
    onFrames = 0
  }
}
