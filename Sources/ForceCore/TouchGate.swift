/// Whether the panel as a whole is touched, with hysteresis and debounce:
/// touched after `debounceOn` consecutive frames whose strongest contact is
/// at or above `touchOn`; released after `debounceOff` consecutive frames at
/// or below `touchOff`. Drives the baseline freeze and the maximum on-time.
public struct TouchGate: Sendable {
  public private(set) var touched = false
  /// Frames the panel has been touched without a break.
  public private(set) var onFrames: Int = 0
  let press: Int32
  let release: Int32
  let debounceOn: Int
  let debounceOff: Int
  var run = 0

  public init(_ c: CoreConfiguration) {
    press = c.touchOn.rawValue
    release = c.touchOff.rawValue
    debounceOn = max(1, c.debounceOn)
    debounceOff = max(1, c.debounceOff)
  }

  /// Feeds one frame's strongest contact force; returns the new state.
  @inline(__always)
  public mutating func update(strongest: Force_mN) -> Bool {
    let f = strongest.rawValue
    if touched {
      onFrames += 1
      run = f <= release ? run + 1 : 0
      if run >= debounceOff {
        touched = false
        run = 0
        onFrames = 0
      }
    } else {
      run = f >= press ? run + 1 : 0
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
