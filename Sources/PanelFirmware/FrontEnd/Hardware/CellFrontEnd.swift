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
/// poll its ready bit), then read its result. A chip whose conversion does
/// not come within its period plus `timeout_ms` makes the frame missed and
/// invalid; the chip's registers then tell a reset (re-initialise) from a
/// stuck chip. A result that fails its CRC is read again (a retry).
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
    limit = RunLimit(options: options)
    period_us = chip.period_us
  }

  var timeout_us: Int64 { period_us + Int64(configuration.timeout_ms) * 1000 }

  // MARK: FrontEnd

  public mutating func start() throws(FrontEndError) {
    do throws(I2CError) {
      try io.probeMux()
    } catch {
      let mux = ChipLocation(bus: configuration.bus, address: configuration.mux ?? 0x70, chip: "TCA9548A")
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
        guard try waitForData(i) else {
          missed = true
          valid = false
          try diagnose(i)
          continue
        }
        let now = io.clock.now_us()
        if time_us == nil { time_us = now }
        guard let value = try readChecked(i) else {
          valid = false
          continue
        }
        frame.counts[i] = value
        lastData_us[i] = now
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
    limit.count()
    return true
  }

  public mutating func takeNotice() -> FrontEndNotice? { notices.take() }

  // MARK: Data ready

  /// Waits for chip `i`'s next conversion: its line, or polling CR.
  mutating func waitForData(_ i: Int) throws(I2CError) -> Bool {
    if usesLine(i) {
      do {
        return try lines[i].wait(timeout_us: timeout_us)
      } catch {
        lineFailed(i, error)
      }
    }
    let place = configuration.places[i]
    let deadline = io.clock.now_us() + timeout_us
    while true {
      if try chips[i].hasResult(at: place, io: &io) { return true }
      let now = io.clock.now_us()
      if now >= deadline { return false }
      // Sleep until just before the conversion is due, then poll briskly.
      let due = lastData_us[i] + period_us - period_us / 4
      io.clock.sleep(us: min(deadline - now, due > now ? due - now : max(period_us / 16, 50)))
    }
  }

  /// Whether chip `i` has a conversion right now, without waiting.
  mutating func hasData(_ i: Int) throws(I2CError) -> Bool {
    if usesLine(i) {
      do {
        return try lines[i].wait(timeout_us: 0)
      } catch {
        lineFailed(i, error)
      }
    }
    return try chips[i].hasResult(at: configuration.places[i], io: &io)
  }

  func usesLine(_ i: Int) -> Bool { !lines.isEmpty && !failedLines[i] }

  /// A data-ready line that fails is reported and left: the chip's ready
  /// bit is polled from then on.
  mutating func lineFailed(_ i: Int, _ error: DataReadyError) {
    failedLines[i] = true
    post("\(locations[i]): \(error); polling its ready bit instead")
  }

  /// Reads chip `i`'s result; a result failing its CRC is read again up
  /// to the retry limit (nil: still corrupt, the chip counts as failing).
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
          fail(i, .corruptData)
          return nil
        }
        attempt += 1
        io.health.retries += 1
      }
    }
  }

  /// After a missed conversion: a chip that lost its configuration was
  /// reset (brown-out) and is brought up again; one that keeps its
  /// configuration but stops converting is stuck.
  mutating func diagnose(_ i: Int) throws(I2CError) {
    switch try chips[i].diagnose(at: configuration.places[i], io: &io) {
    case .reset(let seen):
      io.health.reinitialisations += 1
      post("\(locations[i]): reset detected (\(seen)); re-initialising, frames invalid meanwhile")
      conditions[i] = .bringingUp(.chip(chips[i].firstStep), wake_us: io.clock.now_us())
    case .stuck:
      misses[i] += 1
      if misses[i] >= 3 { fail(i, .noConversions) }
    }
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
    info.add("front end", configuration.summary)
    info.add("chips", "\(cellCount) x \(configuration.chip.name): " + configuration.settingsSummary)
    if let bus = io.bus as? SimulatedI2CBus {
      info.add("timing", configuration.timingSummary(bus.timing))
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
