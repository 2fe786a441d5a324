import PanelFirmware
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Set by SIGINT/SIGTERM; long-running commands check it between frames and
/// finish cleanly (flush, rename, close).
let stopRequested = Atomic<Bool>(false)

enum Terminal {
  /// Writes to standard error, unbuffered.
  static func writeError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }

  /// A broken pipe ends the command quietly instead of killing it.
  static func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }

  /// SIGINT and SIGTERM request a clean stop instead of killing the process.
  static func stopOnSignals() {
    let handler: @convention(c) (Int32) -> Void = { _ in stopRequested.store(true, ordering: .relaxed) }
    signal(SIGINT, handler)
    signal(SIGTERM, handler)
    // A parent may have started us with these blocked (a test runner's
    // thread does): unblock them, or the handlers never run.
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &set, nil)
  }

  static var shouldStop: Bool { stopRequested.load(ordering: .relaxed) }

  /// Sleeps `ms` milliseconds (waiting for something outside the process).
  static func pause_ms(_ ms: Int) {
    var t = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
    var rest = timespec()
    while nanosleep(&t, &rest) != 0 && errno == EINTR { t = rest }
  }

  /// Whether standard error is a terminal (progress is shown only then).
  static var errorIsTerminal: Bool { isatty(2) != 0 }
}
