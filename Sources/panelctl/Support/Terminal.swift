import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

enum Terminal {
  /// Writes to standard error, unbuffered.
  static func writeError(_ text: String) { StandardError.write(text) }

  /// A broken pipe ends the command quietly instead of killing it, and a
  /// file size limit (`ulimit -f`) is a failed write, like a full disk.
  static func ignoreBrokenPipe() {
    signal(SIGPIPE, SIG_IGN)
    signal(SIGXFSZ, SIG_IGN)
  }

  /// SIGINT and SIGTERM request a clean stop instead of killing the process.
  static func stopOnSignals() {
    let handler: @convention(c) (Int32) -> Void = { _ in StopRequest.request() }
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

  /// Set by SIGINT/SIGTERM (`StopRequest`); long-running commands check it
  /// between frames and finish cleanly (flush, rename, close).
  static var shouldStop: Bool { StopRequest.isRequested }

  /// Sleeps `ms` milliseconds (waiting for something outside the process).
  static func pause_ms(_ ms: Int) {
    var t = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
    var rest = timespec()
    while nanosleep(&t, &rest) != 0 && errno == EINTR { t = rest }
  }

  /// Whether standard error is a terminal (progress is shown only then).
  static var errorIsTerminal: Bool { isatty(2) != 0 }
}
