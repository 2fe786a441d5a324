import ForceCore

/// A panel read by one ADC per cell (a `CellChip` family: NAU7802,
/// ADS122C04), behind an optional TCA9548A, generic over the chip family,
/// the bus, the clock and the data-ready lines: the Linux i2c-dev bus with
/// libgpiod lines for a real board, the simulated bus with simulated lines
/// for its twin.
///
/// Each chip goes through a bring-up state machine (`CellStep`) that never
/// blocks: `start()` runs all chips' machines to the end (a chip that fails
/// there is an error naming its bus, mux channel and address); while
/// streaming, a chip that fails, resets or stops converting is reported, its
/// frames are marked invalid (never a false touch), and its machine is
/// restarted with growing back-off while the other chips keep going.
///
/// A frame: for each chip in cell order, wait for its data-ready line (or
/// poll its ready bit), then read its result. A line already asserted when
/// the wait begins gives no edge (a NAU7802's DRDY may stay high between
/// conversions above 40 SPS): the chip's ready bit is polled for that
/// conversion instead. A result is not taken sooner than
/// `minimumSpacing_us` after the chip's previous one: an early edge (a
/// glitch, an edge left over) is checked against the ready bit, and a
/// ready bit that does not clear when read cannot deliver one result
/// twice in quick succession. A chip whose conversion does not come within
/// its period plus `timeout_ms` has its registers read: ready after all
/// (the line gave no edge: `lateReady`), reset (re-initialise) or stuck.
/// A line that gave no edge for a conversion the ready bit showed is
/// silent (a broken trace, a GPIO that stopped reporting edges): the chip's
/// ready bit is polled, at the chip's pace, until the line gives an edge
/// again — not a timeout every frame. A frame in which a chip's result was
/// found only after its wait ran out, with chips read before it, is marked
/// invalid: those were read a period and `timeout_ms` earlier, so its cells
/// are not of one instant (the soak's false touch, docs/reliability.md). A
/// result that fails its CRC is read again (a retry).
public struct CellFrontEnd<Chip: CellChip, Bus: I2CBus, Clock: MonotonicClock, Line: DataReady>: FrontEnd {
  public typealias Step = CellStep<Chip.Step>

  public let configuration: DriverConfiguration
  public var io: ChipBus<Bus, Clock>
  var lines: [Line]
  /// Where each chip is, for messages.
  public let locations: [ChipLocation]
  public private(set) var conditions: [ChipCondition<Step>]
  /// Consecutive conversions a ready chip failed to deliver.
  var misses: [Int]
  var lastData_us: [Int64]
  var recovery: [ChipRecovery]
  var failedLines: [Bool]
  /// Lines that gave no edge for a conversion the chip's ready bit showed:
  /// polled past until they give an edge again.
  var silentLines: [Bool]
  var limit: RunLimit
  var sequence: UInt32 = 0
  var notices = NoticeQueue()
  /// One driver per chip (drivers may keep state, e.g. a counter).
  public private(set) var chips: [Chip]
  public let period_us: Int64

  public var health: FrontEndHealth { io.health }
  public var cellCount: Int { configuration.places.count }
  /// - Parameters:
  ///   - chip: the driver of every chip, as configured.
  ///   - lines: one per chip, or empty to poll the chips' ready bits.
  public init(
    configuration: DriverConfiguration, chip: Chip, bus: Bus, clock: Clock, lines: [Line], options: RunOptions
  ) {
    self.configuration = configuration
    io = ChipBus(
      bus: bus, clock: clock, mux: configuration.mux.map { TCA9548A(address: $0) },
      retries: configuration.retries)
    self.lines = lines.count == configuration.places.count ? lines : []
    let n = configuration.places.count
    locations = (0..<n).map { configuration.location(of: $0) }
    conditions = Array(repeating: .bringingUp(.chip(chip.firstStep), wake_us: 0), count: n)
    chips = Array(repeating: chip, count: n)
    misses = Array(repeating: 0, count: n)
    lastData_us = Array(repeating: 0, count: n)
    recovery = Array(repeating: ChipRecovery(), count: n)
    failedLines = Array(repeating: false, count: n)
    silentLines = Array(repeating: false, count: n)
    limit = RunLimit(options: options)
    period_us = chip.period_us
  }

  var timeout_us: Int64 { period_us + Int64(configuration.timeout_ms) * 1000 }
  /// The shortest time between two results of one chip: its period less
  /// 1/16, room for a conversion clock up to about 6 % fast.
  var minimumSpacing_us: Int64 { period_us - period_us / 16 }

  // MARK: FrontEnd

  public mutating func start() throws(FrontEndError) {
    do throws(I2CError) {
      try io.probeMux()
    } catch {
      let mux = ChipLocation(bus: configuration.bus.description, address: configuration.mux ?? 0x70, chip: "TCA9548A")
      throw .chip(mux.description, error)
    }
    let now = io.clock.now_us()
    for i in conditions.indices { conditions[i] = .bringingUp(.chip(chips[i].firstStep), wake_us: now) }
    while true {
      service(duringStart: true)
      var wake = Int64.max
      for i in conditions.indices {
        switch conditions[i] {
        case .failed(let fault, _):
          if case .bus(let e) = fault { throw .chip(locations[i].description, e) }
          throw .setup("\(locations[i]): \(fault)")
        case .bringingUp(_, let at): wake = min(wake, at)
        case .ready: break
        }
      }
      if wake == .max { return }
      let now = io.clock.now_us()
      if wake > now { io.clock.sleep(us: wake - now) }
    }
  }

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    guard limit.allows(now_us: io.clock.now_us()) else { return false }
    service(duringStart: false)
    var valid = true
    var missed = false
    var anyReady = false
    var time_us: Int64?
    frame.cellCount = cellCount
    for i in conditions.indices {
      guard conditions[i].isReady else {
        valid = false
        continue
      }
      anyReady = true
      do throws(I2CError) {
        var signalled = try waitForData(i)
        if signalled == nil {
          guard try diagnose(i) else {
            missed = true
            valid = false
            continue
          }
          signalled = io.clock.now_us()
          // Found after the wait ran out: the chips read before it in this
          // frame were read that long before, and a press that began
          // meanwhile would show on some cells and not others, all stamped
          // with the first one's time.
          if time_us != nil { valid = false }
        }
        let now = io.clock.now_us()
        if time_us == nil { time_us = now }
        guard let value = try readChecked(i) else {
          valid = false
          continue
        }
        frame.counts[i] = value
        lastData_us[i] = signalled ?? now
        misses[i] = 0
        if recovery[i].good(now: now) { post("\(locations[i]): answering again, re-initialised") }
      } catch {
        valid = false
        fail(i, .bus(error))
      }
    }
    if !anyReady { io.clock.sleep(us: period_us) }
    frame.time = Time_us(rawValue: time_us ?? io.clock.now_us())
    frame.sequence = sequence
    sequence &+= 1
    frame.hasTemperature = false
    frame.valid = valid
    io.health.frames += 1
    if !valid { io.health.invalidFrames += 1 }
    if missed { io.health.missedFrames += 1 }
    limit.count(now_us: io.clock.now_us(), period_us: period_us)
    return true
  }

  public mutating func takeNotice() -> FrontEndNotice? { notices.take() }

  public var isAtEnd: Bool { limit.reached }

  // MARK: Data ready

  /// Waits for chip `i`'s next conversion: an edge of its line, or its
  /// ready bit polled (no line, a failed line, or a line already
  /// asserted). Returns when it was signalled (nil: not in time). An edge
  /// sooner than `minimumSpacing_us` after the previous signal is taken
  /// only if the ready bit confirms it; the ready bit is first polled no
  /// sooner than that, so a ready bit that does not clear when read gives
  /// at most one result per 15/16 of a period.
  mutating func waitForData(_ i: Int) throws(I2CError) -> Int64? {
    let place = configuration.places[i]
    let deadline = io.clock.now_us() + timeout_us
    let earliest = lastData_us[i] + minimumSpacing_us
    // A silent line that gives an edge again is used from the next
    // conversion on; this one is polled (the edge may be of a conversion
    // the ready bit already delivered).
    let silent = silentLines[i]
    if silent { listen(i) }
    while usesLine(i) && !silent {
      let edge: Bool?
      do throws(DataReadyError) {
        edge = try lineEdge(i, deadline: deadline)
      } catch {
        lineFailed(i, error)
        break
      }
      guard let edge else { break }  // asserted without an edge: poll
      guard edge else { return nil }
      let now = io.clock.now_us()
      if now >= earliest { return now }
      // An edge sooner than a conversion after the last one (a glitch, an
      // edge left from a conversion already read, or this loop having read
      // the last one late): the ready bit tells.
      if try chips[i].hasResult(at: place, io: &io) { return now }
      io.health.staleResults += 1
      if io.clock.now_us() >= deadline { return nil }
    }
    while true {
      let now = io.clock.now_us()
      if now >= earliest, try chips[i].hasResult(at: place, io: &io) { return now }
      let after = io.clock.now_us()
      if after >= deadline { return nil }
      // Sleep until the conversion can be due, then poll briskly.
      io.clock.sleep(us: min(deadline - after, earliest > after ? earliest - after : max(period_us / 16, 50)))
    }
  }

  /// Chip `i`'s line: true for an edge by `deadline`, false for none, nil
  /// when the line is asserted with no edge queued (it gives none until
  /// released: the ready bit must be asked).
  mutating func lineEdge(_ i: Int, deadline: Int64) throws(DataReadyError) -> Bool? {
    if try lines[i].isAsserted() == true {
      return try lines[i].wait(timeout_us: 0) ? true : nil
    }
    return try lines[i].wait(timeout_us: max(deadline - io.clock.now_us(), 0))
  }

  /// Whether chip `i` has a conversion right now, without waiting.
  mutating func hasData(_ i: Int) throws(I2CError) -> Bool {
    if usesLine(i) {
      do throws(DataReadyError) {
        if try lines[i].wait(timeout_us: 0) { return true }
        if try lines[i].isAsserted() == false { return false }
      } catch {
        lineFailed(i, error)
      }
    }
    return try chips[i].hasResult(at: configuration.places[i], io: &io)
  }

  func usesLine(_ i: Int) -> Bool { !lines.isEmpty && !failedLines[i] && !silentLines[i] }

  /// Chip `i`'s line gave no edge for a conversion its ready bit showed:
  /// reported, and its ready bit polled until the line moves again.
  mutating func lineSilent(_ i: Int) {
    silentLines[i] = true
    post("\(locations[i]): data-ready line gave no edge for a conversion; polling its ready bit until it does")
  }

  /// Whether silent line `i` has given an edge since it was last asked;
  /// if so it is used again.
  mutating func listen(_ i: Int) {
    guard !failedLines[i] else { return }
    do throws(DataReadyError) {
      guard try lines[i].wait(timeout_us: 0) else { return }
      silentLines[i] = false
      post("\(locations[i]): data-ready line gives edges again")
    } catch {
      lineFailed(i, error)
    }
  }

  /// A data-ready line that fails is reported and left: the chip's ready
  /// bit is polled from then on.
  mutating func lineFailed(_ i: Int, _ error: DataReadyError) {
    failedLines[i] = true
    post("\(locations[i]): \(error); polling its ready bit instead")
  }

  /// Reads chip `i`'s result; a result failing its CRC is read again up
  /// to the retry limit (nil: still corrupt; a chip that lost its
  /// configuration is brought up again, any other counts as failing).
  mutating func readChecked(_ i: Int) throws(I2CError) -> Int32? {
    let place = configuration.places[i]
    var attempt = 0
    while true {
      switch try chips[i].read(at: place, io: &io) {
      case .value(let v, let missed):
        if missed > 0 { io.health.missedFrames += missed }
        return v
      case .corrupt:
        io.health.busErrors += 1
        if attempt >= configuration.retries {
          // A chip reset since its data-ready edge sends no CRC at all.
          if case .reset(let seen) = try chips[i].diagnose(at: place, io: &io) {
            reinitialise(i, seen: seen)
          } else {
            fail(i, .corruptData)
          }
          return nil
        }
        attempt += 1
        io.health.retries += 1
      }
    }
  }

  /// After a conversion did not come in time: true when the chip has one
  /// after all (its line gave no edge; counted in `lateReady`). A chip that
  /// lost its configuration was reset (brown-out) and is brought up again;
  /// one that keeps its configuration but stops converting is stuck.
  mutating func diagnose(_ i: Int) throws(I2CError) -> Bool {
    switch try chips[i].diagnose(at: configuration.places[i], io: &io) {
    case .ready:
      io.health.lateReady += 1
      if usesLine(i) { lineSilent(i) }
      return true
    case .reset(let seen):
      reinitialise(i, seen: seen)
    case .stuck:
      misses[i] += 1
      if misses[i] >= 3 { fail(i, .noConversions) }
    }
    return false
  }

  /// Chip `i` lost its configuration (`seen` says how): brought up again.
  mutating func reinitialise(_ i: Int, seen: String) {
    io.health.reinitialisations += 1
    post("\(locations[i]): reset detected (\(seen)); re-initialising, frames invalid meanwhile")
    conditions[i] = .bringingUp(.chip(chips[i].firstStep), wake_us: io.clock.now_us())
  }

  // MARK: Bring-up

  /// Runs every chip's bring-up step that is due, and restarts failed
  /// chips whose back-off has passed.
  mutating func service(duringStart: Bool) {
    for i in conditions.indices {
      let now = io.clock.now_us()
      switch conditions[i] {
      case .ready:
        continue
      case .failed(_, let retry):
        guard !duringStart, now >= retry else { continue }
        io.health.reinitialisations += 1
        conditions[i] = .bringingUp(.chip(chips[i].firstStep), wake_us: now)
      case .bringingUp(_, let wake):
        guard now >= wake else { continue }
      }
      guard case .bringingUp(let step, _) = conditions[i] else { continue }
      do throws(I2CError) {
        try advance(i, step, now: now)
      } catch {
        fail(i, .bus(error))
      }
    }
  }

  mutating func advance(_ i: Int, _ step: Step, now: Int64) throws(I2CError) {
    let place = configuration.places[i]
    switch step {
    case .chip(let s):
      switch try chips[i].advance(s, at: place, io: &io) {
      case .next(let next, let after):
        conditions[i] = .bringingUp(.chip(next), wake_us: io.clock.now_us() + after)
      case .discard(let n):
        let t = io.clock.now_us()
        conditions[i] = .bringingUp(.discarding(n, deadline_us: t + timeout_us), wake_us: t)
      case .failed(let fault):
        fail(i, fault)
      }
    case .discarding(let remaining, let deadline):
      if remaining <= 0 {
        becomeReady(i)
      } else if try hasData(i) {
        _ = try chips[i].read(at: place, io: &io)
        let t = io.clock.now_us()
        lastData_us[i] = t
        if remaining == 1 {
          becomeReady(i)
        } else {
          conditions[i] = .bringingUp(.discarding(remaining - 1, deadline_us: t + timeout_us), wake_us: t + period_us / 2)
        }
      } else if now >= deadline {
        // Configured, but no conversion comes.
        fail(i, .noConversions)
      } else {
        conditions[i] = .bringingUp(step, wake_us: io.clock.now_us() + max(period_us / 8, 100))
      }
    }
  }

  mutating func becomeReady(_ i: Int) {
    conditions[i] = .ready
    misses[i] = 0
    recovery[i].ready(now: io.clock.now_us())
  }

  /// Marks chip `i` failed, reports it (once, see `ChipRecovery`) and
  /// schedules bring-up again.
  mutating func fail(_ i: Int, _ fault: ChipFault) {
    let (retry, report) = recovery[i].failed(now: io.clock.now_us())
    if report { post("\(locations[i]): \(fault); its frames are marked invalid") }
    conditions[i] = .failed(fault, retry_us: retry)
  }

  mutating func post(_ message: String) {
    notices.post(FrontEndNotice(time_us: io.clock.now_us(), message: message))
  }
}

extension CellFrontEnd: InspectableFrontEnd {
  public mutating func inspect() -> FrontEndInfo {
    var info = FrontEndInfo()
    info.add("front end", configuration.summary(simulated: io.bus.modelledTiming != nil))
    info.add("chips", "\(cellCount) x \(configuration.chip.name): " + configuration.settingsSummary)
    if let timing = io.bus.modelledTiming {
      info.add("timing", configuration.timingSummary(timing))
    } else {
      info.add("timing", configuration.timingSummary(I2CBusTiming(khz: configuration.bus_khz)))
    }
    for i in conditions.indices {
      info.add("chip \(i)", "\(locations[i]): \(conditions[i])")
      do throws(I2CError) {
        for line in try chips[i].describe(at: configuration.places[i], io: &io) { info.add("", line) }
      } catch {
        info.add("", "registers not readable: \(error)")
      }
    }
    io.describeEEPROM(configuration, into: &info)
    info.add("health", io.health.description)
    return info
  }
}
