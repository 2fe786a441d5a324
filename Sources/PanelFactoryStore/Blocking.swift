import Dispatch

/// Runs async database work from a synchronous command (`panelctl` is one
/// process per command; its commands are not async): the work runs as a
/// task, the calling thread waits for it.
public enum Blocking {
  public static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
      do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
      done.signal()
    }
    done.wait()
    return try box.result!.get()
  }

  private final class Box<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
  }
}
