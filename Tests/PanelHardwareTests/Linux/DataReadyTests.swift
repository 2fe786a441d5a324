import PanelFirmware

@testable import PanelHardware

#if ENABLE_MOCKING
  import Glibc
  import Testing

  @testable import PanelFirmware

  /// Data-ready lines through libgpiod against a mocked kernel: the request,
  /// the ppoll timeouts, EINTR, missed edges; and polling a ready bit on a
  /// virtual clock.
  @Suite struct GPIODataReadyTests {
    static let lines = [GPIOLine(chip: "gpiochip0", offset: 17), GPIOLine(chip: "gpiochip0", offset: 27)]

    /// A kernel whose lines 17 and 27 get event fds 40 and 41, and whose
    /// ppoll answers from `polls` (revents per fd; empty = timeout).
    final class FakeGPIO: @unchecked Sendable {
      let kernel = MockKernel()
      var polls: [[Int16]] = []
      /// What gpio_get_value answers.
      var level: Int32 = 0
      init() {
        kernel.respond = { [unowned self] call in
          switch call {
          case .gpioRequest(_, let offset, _, _): return .value(offset == 17 ? 40 : 41)
          case .gpioGetValue: return .value(self.level)
          case .ppoll(let fds, _):
            let next = self.polls.isEmpty ? [] : self.polls.removeFirst()
            return .ready(fds.indices.map { $0 < next.count ? next[$0] : 0 })
          case .gpioReadEvent: return .event(type: 2, timestamp_ns: 1_000)
          default: return .ok
          }
        }
      }
    }

    static func isPoll(_ c: KernelCall) -> Bool { if case .ppoll = c { return true } else { return false } }

    @Test func requestsEveryLineForFallingEdgesWithPullUp() throws {
      let gpio = FakeGPIO()
      try gpio.kernel.run { () throws in
        let ready = try GPIODataReady(lines: Self.lines, edge: .falling, bias: .pullUp)
        ready.release()
      }
      #expect(
        gpio.kernel.trace == [
          .gpioRequest(chip: "gpiochip0", offset: 17, edge: 2, bias: 2),
          .gpioRequest(chip: "gpiochip0", offset: 27, edge: 2, bias: 2),
          .gpioRelease(fd: 40), .gpioRelease(fd: 41),
        ])
    }

    @Test func aMissingChipOrBusyLineIsNamed() {
      let gpio = FakeGPIO()
      gpio.kernel.fail(.resourceBusy) { $0 == .gpioRequest(chip: "gpiochip0", offset: 27, edge: 1, bias: 0) }
      let busy = gpio.kernel.run { () -> DataReadyError? in
        do throws(DataReadyError) {
          _ = try GPIODataReady(lines: Self.lines, edge: .rising)
          return nil
        } catch { return error }
      }
      #expect(busy == .unavailable("gpiochip0 line 27 is in use by another consumer"))
      // The line that was had is given back.
      #expect(gpio.kernel.trace.last == .gpioRelease(fd: 40))

      let missing = MockKernel()
      missing.fail(.noSuchFileOrDirectory)
      let error = missing.run { () -> DataReadyError? in
        do throws(DataReadyError) {
          _ = try GPIODataReady(lines: [GPIOLine(chip: "gpiochip9", offset: 3)], edge: .falling)
          return nil
        } catch { return error }
      }
      #expect(error == .unavailable("GPIO chip gpiochip9 does not exist (gpiochip9 line 3)"))
    }

    @Test func aFrameIsReadyWhenEveryLineHadAnEdge() throws {
      let gpio = FakeGPIO()
      // Line 17 first; then only 27 is polled (17's fd is -1) and fires.
      gpio.polls = [[1, 0], [], [0, 1], []]
      let ready = try gpio.kernel.run { () throws in
        let lines = try GPIODataReady(lines: Self.lines, edge: .falling)
        gpio.kernel.clearTrace()
        defer { lines.release() }
        return (try lines.wait(timeout_us: 5_000), lines.edges, lines.missedEdges)
      }
      #expect(ready == (true, 2, 0))
      let polls = gpio.kernel.trace.filter(Self.isPoll)
      guard polls.count == 4, case .ppoll(let first, let t) = polls[0], case .ppoll(let drain, let zero) = polls[1],
        case .ppoll(let second, _) = polls[2]
      else {
        Issue.record("trace: \(gpio.kernel.trace)")
        return
      }
      #expect(first == [40, 41])
      #expect(t > 0 && t <= 5_000_000, "the wait's own timeout, \(t) ns")
      #expect(drain == [40] && zero == 0, "a queued-edge check that does not wait")
      #expect(second == [-1, 41])
      #expect(gpio.kernel.trace.filter { if case .gpioReadEvent = $0 { return true } else { return false } }.count == 2)
    }

    @Test func everyWaitHasATimeout() throws {
      let gpio = FakeGPIO()  // ppoll never reports an event
      let result = try gpio.kernel.run { () throws in
        let lines = try GPIODataReady(lines: Self.lines, edge: .falling)
        defer { lines.release() }
        return try lines.wait(timeout_us: 2_000)
      }
      #expect(result == false)
      let timeouts = gpio.kernel.trace.compactMap { c -> Int64? in if case .ppoll(_, let t) = c { return t } else { return nil } }
      #expect(!timeouts.isEmpty && timeouts.allSatisfy { $0 <= 2_000_000 })
      #expect(timeouts.last == 0, "the last poll is made after the deadline")
    }

    @Test func anInterruptedWaitIsResumedWithTheTimeLeft() throws {
      let gpio = FakeGPIO()
      gpio.polls = [[1, 1], [], []]
      gpio.kernel.fail(.interrupted) { Self.isPoll($0) }
      let result = try gpio.kernel.run { () throws in
        let lines = try GPIODataReady(lines: Self.lines, edge: .falling)
        defer { lines.release() }
        return try lines.wait(timeout_us: 10_000)
      }
      #expect(result)
      let timeouts = gpio.kernel.trace.compactMap { c -> Int64? in if case .ppoll(_, let t) = c { return t } else { return nil } }
      #expect(timeouts.count >= 2)
      #expect(timeouts[1] <= timeouts[0], "resumed with no more than what was left")
    }

    @Test func queuedEdgesAreCountedAsMissedConversions() throws {
      let gpio = FakeGPIO()
      // Both lines fire; line 17 has two more edges queued behind the first.
      gpio.polls = [[1, 1], [1], [1], [], []]
      let counts = try gpio.kernel.run { () throws in
        let lines = try GPIODataReady(lines: Self.lines, edge: .falling)
        defer { lines.release() }
        _ = try lines.wait(timeout_us: 5_000)
        return (lines.edges, lines.missedEdges)
      }
      #expect(counts == (4, 2))
    }

    @Test func anEdgeStormIsDrainedAtMostDrainLimitPerWait() throws {
      let gpio = FakeGPIO()
      // Line 17 fires, and ppoll keeps reporting another edge queued.
      gpio.polls = Array(repeating: [1], count: 1000)
      let counts = try gpio.kernel.run { () throws in
        let line = try GPIODataReady(lines: [Self.lines[0]], edge: .rising)
        defer { line.release() }
        return (try line.wait(timeout_us: 5_000), line.edges, line.missedEdges)
      }
      #expect(counts == (true, UInt64(1 + GPIODataReady.drainLimit), UInt64(GPIODataReady.drainLimit)))
      #expect(gpio.polls.count == 1000 - 1 - GPIODataReady.drainLimit, "the wait stopped reading the storm")
    }

    @Test func theLevelIsReadAgainstTheEdgesActiveLevel() throws {
      let gpio = FakeGPIO()
      let levels = try gpio.kernel.run { () throws in
        let rising = try GPIODataReady(lines: [Self.lines[0]], edge: .rising)
        let falling = try GPIODataReady(lines: [Self.lines[1]], edge: .falling)
        let both = try GPIODataReady(lines: [Self.lines[1]], edge: .both)
        defer {
          rising.release()
          falling.release()
          both.release()
        }
        gpio.kernel.clearTrace()
        gpio.level = 1
        let high = (try rising.isAsserted(), try falling.isAsserted(), try both.isAsserted())
        gpio.level = 0
        let low = (try rising.isAsserted(), try falling.isAsserted())
        return (high, low)
      }
      #expect(levels.0 == (true, false, nil))
      #expect(levels.1 == (false, true))
      // One gpio_get_value per line asked, on its event fd; none for `.both`.
      #expect(
        Array(gpio.kernel.trace.prefix(4)) == [
          .gpioGetValue(fd: 40), .gpioGetValue(fd: 41), .gpioGetValue(fd: 40), .gpioGetValue(fd: 41),
        ])
      #expect(gpio.kernel.trace.dropFirst(4).allSatisfy { if case .gpioRelease = $0 { true } else { false } })

      gpio.kernel.fail(.ioError) { if case .gpioGetValue = $0 { return true } else { return false } }
      let error = try gpio.kernel.run { () throws -> DataReadyError? in
        let line = try GPIODataReady(lines: [Self.lines[0]], edge: .rising)
        defer { line.release() }
        do throws(DataReadyError) {
          _ = try line.isAsserted()
          return nil
        } catch { return error }
      }
      #expect(error == .io(errno: EIO))
    }

    @Test func aFailedEventReadIsAnIOError() throws {
      let gpio = FakeGPIO()
      gpio.polls = [[1, 0]]
      gpio.kernel.fail(.ioError) { if case .gpioReadEvent = $0 { return true } else { return false } }
      let error = try gpio.kernel.run { () throws -> DataReadyError? in
        let lines = try GPIODataReady(lines: Self.lines, edge: .falling)
        defer { lines.release() }
        do throws(DataReadyError) {
          _ = try lines.wait(timeout_us: 5_000)
          return nil
        } catch { return error }
      }
      #expect(error == .io(errno: EIO))
    }

    @Test func theLibraryIsTheV1APIOnDebian12() {
      // Compiled against Debian 12's libgpiod-dev 1.6: the v1 branch.
      #expect(GPIODataReady.library.api == 1)
      #expect(GPIODataReady.library.version.hasPrefix("1."))
    }

    @Test func theRealKernelReportsAMissingChip() {
      do throws(DataReadyError) {
        _ = try GPIODataReady(lines: [GPIOLine(chip: "gpiochip250", offset: 0)], edge: .falling)
        Issue.record("requested a line on gpiochip250")
      } catch {
        #expect(error == .unavailable("GPIO chip gpiochip250 does not exist (gpiochip250 line 0)"))
      }
    }
  }
#endif
