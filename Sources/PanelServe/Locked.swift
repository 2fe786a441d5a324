#if canImport(Glibc)
  import Glibc
#endif

/// State shared between threads behind a mutex (pthread). Used where the
/// state holds raw storage that the scan loop copies into, which
/// `Synchronization.Mutex`'s region checking cannot follow.
package final class Locked<State: ~Copyable>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var state: State

  package init(_ state: consuming State) {
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    self.state = state
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  package func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}
