import Dispatch
import Testing

@testable import PanelServe

#if canImport(Glibc)
  import Glibc
#endif

/// Clients' control lines are parsed on a thread of their own, below the
/// rest of the process: work waiting there never holds the cooperative
/// pool, whose threads hand every client its reports.
@Suite struct WorkThreadTests {
  @Test func waitingJobsLeaveThePoolFree() async {
    let work = WorkThread()
    let gate = DispatchSemaphore(value: 0)
    let finished = Locked(0)
    // More jobs than the pool has threads, each blocked until the gate opens.
    let jobs = Task {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<16 {
          group.addTask {
            await work.run {
              gate.wait()
              finished.withLock { $0 += 1 }
            }
          }
        }
      }
    }
    // Had they run on the pool, its threads would all wait at the gate and
    // this task would never run.
    let other = await Task { 6 * 7 }.value
    #expect(other == 42)
    #expect(finished.withLock { $0 } == 0)
    for _ in 0..<16 { gate.signal() }
    await jobs.value
    #expect(finished.withLock { $0 } == 16)
  }

  @Test func itsThreadRunsBelowTheProcess() async {
    let which = __priority_which_t(PRIO_PROCESS.rawValue)
    let own = getpriority(which, 0)
    let work = WorkThread(niceness: 10)
    // The caller's thread keeps its own; the work thread's is 10 above it.
    let nice = await work.run { getpriority(which, 0) }
    #expect(nice == min(19, own + 10))
    #expect(getpriority(which, 0) == own)
    // Jobs given one after another run in that order.
    var seen: [Int] = []
    for i in 0..<5 { seen.append(await work.run { i }) }
    #expect(seen == [0, 1, 2, 3, 4])
  }
}
