import PanelFormats

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Parses control lines that load or compile a regions map (`regions
/// FILE`, `regions [ITEM, ...]`: tens of milliseconds for a large file) on
/// a thread of its own, so that the frame loop never waits for one: the
/// loop hands a line over (`submit`) and, at a later frame boundary, takes
/// the parsed line back (`take`) and swaps its map in. One line at a time;
/// the channel takes no further lines while one is out, so lines keep
/// their order.
final class ControlLoader: @unchecked Sendable {
  struct Job {
    var text: String
    var file: String
    var line: Int
  }
  typealias Outcome = (line: Int, result: Result<ControlLine?, FileError>)

  let board: Board
  private var mutex = pthread_mutex_t()
  private var wake = pthread_cond_t()
  private var job: Job?
  private var outcome: Outcome?
  private var started = false
  private var closed = false

  init(board: Board) {
    self.board = board
    pthread_mutex_init(&mutex, nil)
    pthread_cond_init(&wake, nil)
  }

  /// Whether a line is out (submitted and not yet taken back).
  private(set) var busy = false

  /// Hands `text` (line `line` of `file`) to the thread.
  func submit(_ text: String, file: String, line: Int) {
    precondition(!busy, "one line at a time")
    busy = true
    pthread_mutex_lock(&mutex)
    job = Job(text: text, file: file, line: line)
    if !started {
      started = true
      startThread()
    }
    pthread_cond_signal(&wake)
    pthread_mutex_unlock(&mutex)
  }

  /// The line handed over, parsed, once it is ready; nil while it is not
  /// (never waits).
  func take() -> Outcome? {
    guard busy else { return nil }
    pthread_mutex_lock(&mutex)
    let done = outcome
    outcome = nil
    pthread_mutex_unlock(&mutex)
    if done != nil { busy = false }
    return done
  }

  /// Ends the thread after the line it is on.
  func close() {
    pthread_mutex_lock(&mutex)
    closed = true
    pthread_cond_broadcast(&wake)
    pthread_mutex_unlock(&mutex)
  }

  private func startThread() {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(self).toOpaque()
    let result = pthread_create(
      &thread, nil,
      { context in
        let loader = Unmanaged<ControlLoader>.fromOpaque(context!).takeRetainedValue()
        loader.serve()
        return nil
      }, context)
    if result == 0 {
      pthread_detach(thread)
    } else {
      // No thread: the lines are parsed here, on the caller's thread.
      Unmanaged<ControlLoader>.fromOpaque(context).release()
      if let job { outcome = (job.line, Self.parse(job, board: board)) }
      job = nil
    }
  }

  private func serve() {
    pthread_mutex_lock(&mutex)
    while !closed {
      guard let next = job else {
        pthread_cond_wait(&wake, &mutex)
        continue
      }
      job = nil
      pthread_mutex_unlock(&mutex)
      let parsed = Self.parse(next, board: board)
      pthread_mutex_lock(&mutex)
      outcome = (next.line, parsed)
      pthread_cond_broadcast(&wake)
    }
    pthread_mutex_unlock(&mutex)
  }

  static func parse(_ job: Job, board: Board) -> Result<ControlLine?, FileError> {
    do {
      return .success(try ControlLine.parse(job.text, file: job.file, line: job.line, board: board))
    } catch {
      return .failure(error)
    }
  }
}
