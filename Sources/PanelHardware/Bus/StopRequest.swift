import Synchronization

/// A stop asked for by a signal (SIGINT, SIGTERM): set by the signal
/// handler, read between frames. Once it is set, waits on the clock return
/// at once (`sleepUntilMonotonic`), so the run's last frame — whose report
/// ends the touches — comes without waiting out a frame period, and a stop
/// is answered within a frame's work whatever the frame rate.
public enum StopRequest {
  static let flag = Atomic<Bool>(false)

  /// Whether a stop was asked for.
  public static var isRequested: Bool { flag.load(ordering: .relaxed) }

  /// Asks for a stop (async-signal-safe: one atomic store).
  public static func request() { flag.store(true, ordering: .relaxed) }
}
