import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelSimulation
@testable import PanelStreaming
@testable import PanelTouch

@Suite struct ReportEncoderTests {
  static func text(_ buffer: ByteBuffer) -> String { String(decoding: buffer.bytes, as: UTF8.self) }

  @Test func encodesTheContractLine() {
    var report = FrameReport()
    report.time = Time_us(rawValue: 1_234_567)
    report.frame = 395
    report.append(
      TouchReport(
        touch: TrackedTouch(
          id: 1, phase: .moved, x: Length_um(rawValue: 80_204), y: Length_um(rawValue: 49_695),
          force: Force_mN(newtons: 1.21)), stage: .peek))
    report.append(TouchEvent(kind: .peek, touch: 1))
    let buffer = ByteBuffer(capacity: 1024)
    NDJSONEncoder(interaction: InteractionSettings()).encode(report, into: buffer)
    #expect(
      Self.text(buffer)
        == """
        {"t_us":1234567,"frame":395,"touches":[{"id":1,"phase":"moved","x_mm":80.20,"y_mm":49.70,\
        "force_n":1.210,"force":1.513,"max_force":6.670,"stage":"peek","progress":0.000,"item":null}],\
        "events":[{"type":"peek","touch":1,"item":null}],"force_capability":"available"}

        """)
  }

  /// UITouch.force never exceeds maximumPossibleForce: an 8 N press (10.0
  /// average touches of 0.8 N) reports `force` 6.67 = `max_force` in the
  /// NDJSON line, `press` 1 in TUIO 2.0 and the axis maximum on uinput;
  /// `force_n` and TUIO's `/forcepanel/stage` keep the measured newtons.
  @Test func an8NewtonPressStaysWithinMaxForceInEveryOutput() throws {
    let board = Board(
      name: "t", width_mm: 160, height_mm: 100, cells: [CellPosition(x_mm: 0, y_mm: 0)],
      frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: 320)
    var report = FrameReport()
    report.append(
      TouchReport(
        touch: TrackedTouch(
          id: 1, phase: .moved, x: Length_um(millimetres: 80), y: Length_um(millimetres: 50),
          force: Force_mN(newtons: 8)), stage: .pop))
    let line = ByteBuffer(capacity: 1024)
    NDJSONEncoder(interaction: board.interaction).encode(report, into: line)
    let json = try JSONSerialization.jsonObject(with: Data(line.bytes)) as! [String: Any]
    let touch = (json["touches"] as! [[String: Any]])[0]
    #expect(touch["force"] as? Double == 6.67)
    #expect(touch["max_force"] as? Double == 6.67)
    #expect(touch["force_n"] as? Double == 8)

    var tuio = TUIO2Encoder(source: TUIOSource(board: board, serial: "s", address: "0x7F000001"))
    let bundle = ByteBuffer(capacity: 4096)
    tuio.encode(report, time: .immediate, into: bundle)
    let messages = try OSCReader.parse(Array(bundle.bytes)).1
    let ptr = try #require(messages.first { $0.address == "/tuio2/ptr" })
    #expect(ptr.arguments[8] == .float32(1))

    var uinput = MultiTouchEncoder(axes: MultiTouchAxes(board: board))
    let events = InputEventBuffer(capacity: MultiTouchEncoder.maxEventsPerFrame)
    uinput.encode(report, into: events)
    let pressures = events.events.filter { $0.type == 3 && ($0.code == 0x3a || $0.code == 0x18) }.map(\.value)
    #expect(pressures == [5336, 5336])  // ABS_MT_PRESSURE, ABS_PRESSURE: 6.67 x 0.8 N in mN
  }

  @Test func namesEveryPhaseStageAndEvent() {
    let buffer = ByteBuffer(capacity: 8192)
    let encoder = NDJSONEncoder(interaction: InteractionSettings())
    var report = FrameReport()
    for (i, phase) in TouchPhase.allCases.enumerated() {
      report.append(
        TouchReport(
          touch: TrackedTouch(id: UInt32(i + 1), phase: phase, x: .zero, y: .zero, force: .zero),
          stage: Stage.allCases[i % 4]))
    }
    for kind in EventKind.allCases { report.append(TouchEvent(kind: kind, touch: 2)) }
    encoder.encode(report, into: buffer)
    let line = Self.text(buffer)
    for p in ["began", "moved", "stationary", "ended", "cancelled"] { #expect(line.contains("\"phase\":\"\(p)\"")) }
    for s in ["none", "hint", "peek", "pop"] { #expect(line.contains("\"stage\":\"\(s)\"")) }
    for e in ["peek", "pop", "peek_cancelled", "long_press"] { #expect(line.contains("\"type\":\"\(e)\"")) }
  }

  @Test func writesFixedDecimalsAndNegatives() {
    let b = ByteBuffer(capacity: 64)
    b.append(fixed: -1205, decimals: 3)
    b.append(UInt8(ascii: " "))
    b.append(fixed: 7, decimals: 2)
    b.append(UInt8(ascii: " "))
    b.append(integer: Int64.min + 1)
    #expect(Self.text(b) == "-1.205 0.07 -9223372036854775807")
  }

  @Test func aFullBufferDropsInsteadOfOverrunning() {
    let b = ByteBuffer(capacity: 16)
    b.append("0123456789")
    b.append("0123456789")
    #expect(b.count == 10)
    #expect(b.overflowed)
  }
}

/// A line that does not fit its buffer is dropped whole and counted, never
/// written cut short; the buffer holds the longest line there can be.
@Suite struct ReportLineBoundTests {
  static func text(_ buffer: ByteBuffer) -> String { String(decoding: buffer.bytes, as: UTF8.self) }

  @Test func anOverflowedBufferRefusesEveryLaterAppend() {
    let b = ByteBuffer(capacity: 16)
    b.append("0123456789")
    b.append("0123456789")  // does not fit: refused, overflowed
    b.append(UInt8(ascii: "x"))  // would fit, still refused
    b.append("y")
    b.append(integer: 7)
    b.append(fixed: 5, decimals: 1)
    let bytes: [UInt8] = [1, 2]
    bytes.withUnsafeBufferPointer { b.append($0) }
    #expect(Self.text(b) == "0123456789")
    #expect(b.overflowed)
    b.removeAll()
    b.append("ok")
    #expect(Self.text(b) == "ok")
    #expect(!b.overflowed)
  }

  @Test func integersAtTheEndsOfTheirRanges() {
    let b = ByteBuffer(capacity: 128)
    b.append(integer: Int64.min)
    b.append(" ")
    b.append(unsigned: UInt64.max)
    b.append(" ")
    b.append(fixed: Int64.min, decimals: 0)
    b.append(" ")
    b.append(fixed: Int64.min, decimals: 3)
    #expect(Self.text(b) == "-9223372036854775808 18446744073709551615 -9223372036854775808 -9223372036854775.808")
  }

  /// Every digit count, both signs, against Swift's own rendering; a number
  /// one byte too long for the space left is refused whole.
  @Test func integersOfEveryWidth() {
    var values: [Int64] = [0, -1, 9, -9, 10, -10]
    var p: Int64 = 10
    for _ in 1...17 {
      p *= 10
      values += [p - 1, p, -(p - 1), -p, p + 1]
    }
    let b = ByteBuffer(capacity: 64)
    for v in values {
      b.removeAll()
      b.append(integer: v)
      #expect(Self.text(b) == String(v))
      let width = String(v).utf8.count
      b.removeAll()
      for _ in 0..<(b.capacity - width + 1) { b.append(UInt8(ascii: "x")) }
      b.append(integer: v)
      #expect(b.overflowed && b.count == b.capacity - width + 1, "\(v)")
    }
  }

  /// Fixed-point numbers of every width and scale against a rendering by
  /// string arithmetic.
  @Test func fixedPointOfEveryWidth() {
    let b = ByteBuffer(capacity: 64)
    for decimals in 0...4 {
      for v: Int64 in [0, 1, -1, 5, -5, 42, 999, -1000, 12345, -123_456_789, Int64.max, Int64.min] {
        var digits = String(v.magnitude)
        while digits.count <= decimals { digits = "0" + digits }
        let cut = digits.index(digits.endIndex, offsetBy: -decimals)
        let expected = (v < 0 ? "-" : "") + digits[..<cut] + (decimals > 0 ? "." + digits[cut...] : "")
        b.removeAll()
        b.append(fixed: v, decimals: decimals)
        #expect(Self.text(b) == expected)
      }
    }
  }

  /// The worst line: 16 touches and 32 events offering four quick actions
  /// each, every number at its widest, every text at the limit and made of
  /// control characters (escaped to six bytes each).
  static func fullReport() throws -> FrameReport {
    let text = String(repeating: "\u{1}", count: RegionRules.maxTextBytes)
    let short = String(repeating: "\u{1}", count: RegionRules.maxNameBytes)
    var items: [RegionItem] = []
    for i in 0..<2 {
      var name = short
      name.removeLast()
      name.append(Character(String(i)))
      let actions = (0..<4).map { _ in QuickAction(title: text, subtitle: text, icon: short) }
      items.append(RegionItem(name: name, x_mm: Double(i) * 50, y_mm: 0, width_mm: 50, height_mm: 50, quickActions: actions))
    }
    var report = FrameReport()
    report.regions = try RegionMap(items: items, panelWidth_mm: 160, panelHeight_mm: 100, name: short)
    report.time = Time_us(rawValue: Int64.min)
    report.frame = UInt64.max
    for i in 0..<Capacity.contacts {
      let touch = TrackedTouch(
        id: UInt32.max - UInt32(i), phase: .cancelled, x: Length_um(rawValue: Int32.min), y: Length_um(rawValue: Int32.min),
        force: Force_mN(rawValue: Int32.min), reason: .merged, mergedInto: UInt32.max)
      report.append(TouchReport(touch: touch, stage: .none, progress_milli: UInt16.max, item: 1, degraded: true))
    }
    for _ in 0..<FrameReport.eventCapacity {
      report.append(TouchEvent(kind: .quickActions, touch: UInt32.max, item: 1, origin: .press))
    }
    #expect(report.touchCount == Capacity.contacts)
    #expect(report.eventCount == FrameReport.eventCapacity)
    return report
  }

  @Test func aFullReportFitsTheLineBuffer() throws {
    var settings = InteractionSettings()
    settings.averageTouch_n = 1e-300  // normalized forces at their widest
    settings.maxForce = -1e300
    let encoder = NDJSONEncoder(interaction: settings)
    var report = try Self.fullReport()
    let out = ByteBuffer(capacity: NDJSONEncoder.maxLineBytes)
    encoder.encode(&report, into: out)
    #expect(!out.overflowed)
    let line = Self.text(out)
    #expect(line.hasSuffix("}\n"))
    let json = try #require(try JSONSerialization.jsonObject(with: Data(out.bytes)) as? [String: Any])
    #expect((json["touches"] as? [Any])?.count == 16)
    #expect((json["events"] as? [[String: Any]])?.first?["actions"].map { ($0 as? [Any])?.count } == 4)
    // The bound is not loose either.
    #expect(out.count > NDJSONEncoder.maxLineBytes * 9 / 10, "\(out.count) of \(NDJSONEncoder.maxLineBytes)")
    // With the force image of the most cells, in the sink's buffer.
    let image = [Force_mN](repeating: Force_mN(rawValue: Int32.min), count: Capacity.cells)
    let withImage = ByteBuffer(capacity: NDJSONEncoder.maxLineBytes + 32 + NDJSONEncoder.imageBytesPerCell * Capacity.cells)
    encoder.encode(&report, into: withImage)
    encoder.appendImage(image.span, cellCount: Capacity.cells, to: withImage)
    #expect(!withImage.overflowed)
    #expect(try JSONSerialization.jsonObject(with: Data(withImage.bytes)) is [String: Any])
  }

  /// The review's case: before the limit, a 9000-byte name made every line
  /// invalid JSON. Such a name is now refused, and a line too long for a
  /// (deliberately small) sink buffer is dropped and counted.
  @Test func aLineThatDoesNotFitIsDroppedAndCounted() throws {
    let long = RegionItem(name: String(repeating: "n", count: 9000), x_mm: 0, y_mm: 0, width_mm: 160, height_mm: 100, peek: true, pop: true)
    #expect(throws: RegionViolation.self) { try RegionMap(items: [long], panelWidth_mm: 160, panelHeight_mm: 100) }

    let board = try Repo.board("sim-plate4")
    let scenario = Scenario(
      name: "press", duration_s: 1,
      touches: [ScriptedTouch(start_s: 0.2, force: [Keyframe(0, 0), Keyframe(0.1, 2), Keyframe(0.4, 2), Keyframe(0.5, 0)], x: [Keyframe(0, 80)], y: [Keyframe(0, 50)])])
    let panel = SimulatedPanel(board: board, parameters: try board.simulationParameters, scenario: scenario, speed: 0)
    let loop = ScanLoop(source: panel, board: board, calibration: panel.trueCalibration(created: "test"))
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("ndjson-\(UUID()).txt").path
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    try #require(fd >= 0)
    defer {
      close(fd)
      unlink(path)
    }
    func size() -> Int {
      var st = stat()
      fstat(fd, &st)
      return Int(st.st_size)
    }
    var small = NDJSONSink(output: FileOutput(fd: FileDescriptor(rawValue: fd)), board: board, idle: false, image: false, lineBytes: 200)
    var whole = NDJSONSink(output: FileOutput(fd: FileDescriptor(rawValue: fd)), board: board)
    var lines = 0
    var written = 0
    while try loop.step() {
      let before = size()
      try whole.consume(loop)
      let after = size()
      if after > before {
        lines += 1
        written = after - before
        try small.consume(loop)
        // Too long for 200 bytes: nothing written, counted.
        #expect(size() == after)
      }
    }
    #expect(lines > 100)
    #expect(written > 200)
    #expect(small.oversized == UInt64(lines))
    #expect(whole.oversized == 0)
    #expect(small.summary == "\(lines) ndjson lines too long for the buffer, dropped")
    #expect(whole.summary == nil)
  }
}
