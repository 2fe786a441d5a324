import ForceCore

/// A panel with its own controller (docs/frame-protocol.md), generic over
/// the bus, the clock and the data-ready line. Bring-up: identify the
/// controller (magic, version, cell count, highest rate), set RATE, set
/// RUN. A frame: wait for DRDY (or poll STATUS.READY), then one burst read
/// of the whole frame, checked by its CRC (a bad one is read again up to
/// the retry limit). The sequence counts frames lost, and a frame whose
/// sequence repeats is not new (read again after a spurious edge: waited
/// for again); RESTARTED means the controller lost its setup and is
/// brought up again; CELL_FAULT marks the frame invalid. Frames that could
/// not be read whole are invalid.
public struct FrameFrontEnd<Bus: I2CBus, Clock: MonotonicClock, Line: DataReady>: FrontEnd {
  public enum Step: Equatable, Sendable {
    case identify
  }

  public let configuration: DriverConfiguration
  public var io: ChipBus<Bus, Clock>
  var line: Line?
  public let location: ChipLocation
  public private(set) var condition: ChipCondition<Step> = .bringingUp(.identify, wake_us: 0)
  public let cellCount: Int
  public let period_us: Int64
  let buffer: TransferBuffer
  var lastSequence: UInt16?
  var lastData_us: Int64 = 0
  var misses = 0
  var recovery = ChipRecovery()
  var cellFaultReported = false
  var limit: RunLimit
  var sequence: UInt32 = 0
  var notices = NoticeQueue()

  public var health: FrontEndHealth { io.health }
  var place: DriverConfiguration.Place { configuration.places[0] }
  var controller: FrameController { FrameController(address: configuration.places[0].address) }
  var timeout_us: Int64 { period_us + Int64(configuration.timeout_ms) * 1000 }

  /// - Parameter lines: the DRDY line (one), or empty to poll STATUS.
  public init(configuration: DriverConfiguration, bus: Bus, clock: Clock, lines: [Line], options: RunOptions) {
    self.configuration = configuration
    io = ChipBus(
      bus: bus, clock: clock, mux: configuration.mux.map { TCA9548A(address: $0) },
      retries: configuration.retries)
    line = lines.first
    location = configuration.location(of: 0)
    cellCount = configuration.cellCount
    period_us = 1_000_000 / Int64(max(configuration.frame.rate_hz, 1))
    buffer = TransferBuffer(count: FrameProtocol.frameSize(cells: configuration.cellCount))
    limit = RunLimit(options: options)
  }

  // MARK: FrontEnd

  public mutating func start() throws(FrontEndError) {
    do throws(I2CError) {
      try io.probeMux()
    } catch {
      let mux = ChipLocation(bus: configuration.bus.description, address: configuration.mux ?? 0x70, chip: "TCA9548A")
      throw .chip(mux.description, error)
    }
    condition = .bringingUp(.identify, wake_us: io.clock.now_us())
    service(duringStart: true)
    switch condition {
    case .failed(.bus(let e), _): throw .chip(location.description, e)
    case .failed(let fault, _): throw .setup("\(location): \(fault)")
    default: break
    }
  }

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    guard limit.allows(now_us: io.clock.now_us()) else { return false }
    service(duringStart: false)
    frame.cellCount = cellCount
    frame.sequence = sequence
    sequence &+= 1
    var valid = false
    if condition.isReady {
      do throws(I2CError) {
        valid = try readFrame(into: &frame)
      if valid && recovery.good(now: io.clock.now_us()) { post("\(location): answering again, re-initialised") }
      } catch {
        fail(.bus(error))
      }
    } else {
      io.clock.sleep(us: period_us)
      frame.time = Time_us(rawValue: io.clock.now_us())
    }
    frame.valid = valid
    io.health.frames += 1
    if !valid { io.health.invalidFrames += 1 }
    limit.count(now_us: io.clock.now_us(), period_us: period_us)
    return true
  }

  public mutating func takeNotice() -> FrontEndNotice? { notices.take() }

  public var isAtEnd: Bool { limit.reached }

  // MARK: Frames

  /// Waits for a new frame and reads it; false when there is none to
  /// deliver. A frame whose sequence number is the last one's again (a
  /// spurious data-ready edge, a line that stays asserted) is not new: it
  /// counts in `staleResults` and STATUS.READY is polled for the next one
  /// until the deadline.
  mutating func readFrame(into frame: inout RawFrame) throws(I2CError) -> Bool {
    let deadline = io.clock.now_us() + timeout_us
    var polling = false
    while true {
      guard try waitForFrame(deadline: deadline, polling: polling) else {
        frame.time = Time_us(rawValue: io.clock.now_us())
        io.health.missedFrames += 1
        return false
      }
      let now = io.clock.now_us()
      frame.time = Time_us(rawValue: now)
      guard let header = try readChecked(into: &frame) else { return false }
      if let last = lastSequence, header.sequence == last, !header.status.restarted {
        io.health.staleResults += 1
        polling = true
        continue
      }
      lastData_us = now
      return accept(header, into: &frame)
    }
  }

  /// One burst read of the frame, read again while its CRC fails (up to
  /// the retry limit; nil: still corrupt, the controller counts as failing).
  mutating func readChecked(into frame: inout RawFrame) throws(I2CError) -> FrameProtocol.Header? {
    var attempt = 0
    while true {
      let c = controller
      let bytes = buffer.bytes
      try io.run(place) { (bus) throws(I2CError) in try c.readFrame(into: bytes, on: &bus) }
      if let header = FrameProtocol.decode(UnsafeRawBufferPointer(bytes), into: { k, v in frame.counts[k] = v }) {
        return header
      }
      io.health.busErrors += 1
      if attempt >= configuration.retries {
        fail(.corruptData)
        return nil
      }
      attempt += 1
      io.health.retries += 1
    }
  }

  /// Checks a frame's header: lost frames, a restarted controller, cell faults.
  mutating func accept(_ header: FrameProtocol.Header, into frame: inout RawFrame) -> Bool {
    misses = 0
    if header.status.restarted {
      restart(seen: "STATUS \(header.status)")
      return false
    }
    if let last = lastSequence {
      let gap = header.sequence &- last
      if gap > 1 { io.health.missedFrames += UInt64(gap - 1) }
    }
    lastSequence = header.sequence
    if let t = header.temperature {
      frame.temperature = Temperature_C(rawValue: Int32(t))
      frame.hasTemperature = true
    } else {
      frame.hasTemperature = false
    }
    if header.status.cellFault {
      if !cellFaultReported { post("\(location): a cell's converter failed (STATUS.CELL_FAULT); frames invalid") }
      cellFaultReported = true
      return false
    }
    cellFaultReported = false
    return header.cells == cellCount
  }

  /// Waits until `deadline` for a frame: an edge of the DRDY line, or
  /// STATUS.READY polled (no line, a failed one, one already asserted, or
  /// `polling`). When the line gives no edge in time, STATUS tells: READY
  /// after all (`lateReady`), or the controller restarted or stopped.
  mutating func waitForFrame(deadline: Int64, polling: Bool) throws(I2CError) -> Bool {
    if !polling, line != nil {
      let edge: Bool?
      do throws(DataReadyError) {
        if try line!.isAsserted() == true {
          edge = try line!.wait(timeout_us: 0) ? true : nil
        } else {
          edge = try line!.wait(timeout_us: max(deadline - io.clock.now_us(), 0))
        }
      } catch {
        // A failed line is reported and left: STATUS is polled from then on.
        line = nil
        post("\(location): \(error); polling STATUS instead")
        edge = nil
      }
      if let edge {
        if edge { return true }
        return try diagnose(try status())
      }
    }
    while true {
      let s = try status()
      if s.ready { return true }
      let now = io.clock.now_us()
      if now >= deadline { return try diagnose(s) }
      let due = lastData_us + period_us - period_us / 4
      io.clock.sleep(us: min(deadline - now, due > now ? due - now : max(period_us / 16, 50)))
    }
  }

  mutating func status() throws(I2CError) -> FrameProtocol.Status {
    let c = controller
    return try io.run(place) { (bus) throws(I2CError) in try c.status(on: &bus) }
  }

  /// After a frame did not come in time, with STATUS as read then: true
  /// when READY is set after all; a controller that restarted or stopped
  /// is brought up again; one still running counts towards stuck.
  mutating func diagnose(_ s: FrameProtocol.Status) throws(I2CError) -> Bool {
    if s.restarted || !s.running {
      restart(seen: "STATUS \(s)")
      return false
    }
    if s.ready {
      io.health.lateReady += 1
      return true
    }
    misses += 1
    if misses >= 3 { fail(.noConversions) }
    return false
  }

  mutating func restart(seen: String) {
    io.health.reinitialisations += 1
    post("\(location): reset detected (\(seen)); re-initialising, frames invalid meanwhile")
    condition = .bringingUp(.identify, wake_us: io.clock.now_us())
    service(duringStart: false)
  }

  // MARK: Bring-up

  mutating func service(duringStart: Bool) {
    let now = io.clock.now_us()
    switch condition {
    case .ready:
      return
    case .failed(_, let retry):
      guard !duringStart, now >= retry else { return }
      io.health.reinitialisations += 1
    case .bringingUp(_, let wake):
      guard now >= wake else { return }
    }
    let c = controller
    let rate = configuration.frame.rate_hz
    do throws(I2CError) {
      let id = try io.run(place) { (bus) throws(I2CError) in try c.identify(on: &bus) }
      guard id.isFrameController, id.major == FrameProtocol.version.major else {
        fail(.unexpected("not a frame-protocol controller (ID does not read \"FP\" version 1)"))
        return
      }
      guard id.cells == cellCount else {
        fail(.unexpected("the controller has \(id.cells) cells, the board \(cellCount)"))
        return
      }
      guard rate <= id.maxRate else {
        fail(.unexpected("the controller runs at most \(id.maxRate) frames/s, the board asks \(rate)"))
        return
      }
      try io.run(place) { (bus) throws(I2CError) in try c.start(rate_hz: rate, on: &bus) }
      recovery.ready(now: io.clock.now_us())
      lastSequence = nil
      lastData_us = io.clock.now_us()
      condition = .ready
    } catch {
      fail(.bus(error))
    }
  }

  mutating func fail(_ fault: ChipFault) {
    let (retry, report) = recovery.failed(now: io.clock.now_us())
    if report { post("\(location): \(fault); its frames are marked invalid") }
    condition = .failed(fault, retry_us: retry)
  }

  mutating func post(_ message: String) {
    notices.post(FrontEndNotice(time_us: io.clock.now_us(), message: message))
  }
}

/// Bytes for transfers, allocated once at setup.
public final class TransferBuffer {
  public let bytes: UnsafeMutableRawBufferPointer

  public init(count: Int) {
    bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 8)
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
  }

  deinit { bytes.deallocate() }
}

extension FrameFrontEnd: InspectableFrontEnd {
  public mutating func inspect() -> FrontEndInfo {
    var info = FrontEndInfo()
    info.add("front end", configuration.summary(simulated: io.bus.modelledTiming != nil))
    info.add("controller", configuration.settingsSummary)
    if let timing = io.bus.modelledTiming {
      info.add("timing", configuration.timingSummary(timing))
    } else {
      info.add("timing", configuration.timingSummary(I2CBusTiming(khz: configuration.bus_khz)))
    }
    info.add("chip 0", "\(location): \(condition)")
    var r = [UInt8](repeating: 0, count: 17)
    let c = controller
    do throws(I2CError) {
      try r.withUnsafeMutableBytes { p in
        Result { () throws(I2CError) in
          try io.run(place) { (bus) throws(I2CError) in
            try RegisterIO.read(FrameProtocol.Register.id, into: p, at: c.address, on: &bus)
          }
        }
      }.get()
      let status = FrameProtocol.Status(rawValue: r[0x10])
      var bits: [String] = []
      for (on, name) in [
        (status.ready, "READY"), (status.overrun, "OVERRUN"), (status.restarted, "RESTARTED"),
        (status.cellFault, "CELL_FAULT"), (status.running, "RUNNING"),
      ] where on { bits.append(name) }
      let id = String(decoding: r[0..<2], as: UTF8.self)
      info.add("", "00-10: " + hexBytes(r))
      info.add(
        "",
        "ID \"\(id)\" \(r[2]).\(r[3]), CELLS \(r[4]), MAX_RATE \(Int(r[5]) << 8 | Int(r[6])), CTRL \(Register8Hex.hex(r[8])), "
          + "RATE \(Int(r[9]) << 8 | Int(r[10])), STATUS \(status) (\(bits.joined(separator: " ")))")
    } catch {
      info.add("", "registers not readable: \(error)")
    }
    io.describeEEPROM(configuration, into: &info)
    info.add("health", io.health.description)
    return info
  }
}
