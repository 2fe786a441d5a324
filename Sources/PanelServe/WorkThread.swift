#if canImport(Glibc)
  import Glibc
#endif

/// A thread of its own, below the rest of the process in priority (its
/// nice value raised by `niceness`), for the work that clients cause: the
/// server parses their control lines here (a `regions` line costs about a
/// microsecond a byte: tens of milliseconds for a long one). On Swift's
/// cooperative pool — one thread per core, the threads that hand every
/// client its reports — two long lines would hold every thread, and a
/// reader's reports would wait for someone else's parsing; on a busy
/// machine each of those threads is also preempted mid-line, which stretched
/// the wait past 100 ms (docs/reliability.md, "Timing tests"). Here jobs
/// wait only for each other, in the order they came, and when the cores
/// are short the kernel runs the frame loop, the event loops and the
/// sessions first.
package final class WorkThread: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let wake: UnsafeMutablePointer<pthread_cond_t>
  private var jobs: [@Sendable () -> Void] = []
  private var started = false
  /// Added to the process's nice value for this thread (0...19).
  package let niceness: Int32

  package init(niceness: Int32 = 10) {
    self.niceness = min(19, max(0, niceness))
    mutex = .allocate(capacity: 1)
    wake = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(wake, nil)
  }

  /// Runs `work` on the thread and returns its result; jobs run one at a
  /// time, in the order they were given.
  package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withUnsafeContinuation { (done: UnsafeContinuation<T, Never>) in
      enqueue { done.resume(returning: work()) }
    }
  }

  private func enqueue(_ job: @escaping @Sendable () -> Void) {
    pthread_mutex_lock(mutex)
    jobs.append(job)
    if !started {
      started = true
      if !startThread() {
        // No thread: the work runs on the caller's.
        let waiting = jobs
        jobs.removeAll()
        started = false
        pthread_mutex_unlock(mutex)
        for j in waiting { j() }
        return
      }
    }
    pthread_cond_signal(wake)
    pthread_mutex_unlock(mutex)
  }

  /// Starts the thread (it lives as long as the process). Called with the lock held.
  private func startThread() -> Bool {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(self).toOpaque()
    let result = pthread_create(
      &thread, nil,
      { context in
        let owner = Unmanaged<WorkThread>.fromOpaque(context!).takeRetainedValue()
        owner.serve()
        return nil
      }, context)
    guard result == 0 else {
      Unmanaged<WorkThread>.fromOpaque(context).release()
      return false
    }
    pthread_detach(thread)
    return true
  }

  private func serve() {
    // On Linux a nice value belongs to the thread (`who` 0: the calling
    // one); raising it needs no privilege. If it fails the thread runs at
    // the process's.
    let which = __priority_which_t(PRIO_PROCESS.rawValue)
    let own = getpriority(which, 0)
    _ = setpriority(which, 0, min(19, own + niceness))
    pthread_mutex_lock(mutex)
    while true {
      guard !jobs.isEmpty else {
        pthread_cond_wait(wake, mutex)
        continue
      }
      let job = jobs.removeFirst()
      pthread_mutex_unlock(mutex)
      job()
      pthread_mutex_lock(mutex)
    }
  }
}
