import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware
@testable import PanelStreaming
@testable import PanelTouch

@Suite struct TUIOEncoderTests {
  static func board() -> Board {
    Board(
      name: "test-plate", width_mm: 160, height_mm: 100,
      cells: [CellPosition(x_mm: 0, y_mm: 0)], frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: 320)
  }

  static func touch(_ id: UInt32, _ phase: TouchPhase, x: Double, y: Double, newtons: Double, _ stage: Stage) -> TouchReport {
    TouchReport(
      touch: TrackedTouch(
        id: id, phase: phase, x: Length_um(millimetres: x), y: Length_um(millimetres: y),
        force: Force_mN(newtons: newtons)), stage: stage)
  }

  /// Frame 395: touch 7 pressing at (80, 25) mm with 2.668 N (press 0.5),
  /// touch 6 just lifted, a peek event.
  static func report() -> FrameReport {
    var r = FrameReport()
    r.time = Time_us(rawValue: 1_234_567)
    r.frame = 395
    r.append(touch(6, .ended, x: 10, y: 10, newtons: 0.1, .none))
    r.append(touch(7, .moved, x: 80, y: 25, newtons: 2.668, .peek))
    r.append(TouchEvent(kind: .peek, touch: 7))
    return r
  }

  static func parse(_ b: ByteBuffer) throws -> (OSCTimeTag?, [OSCMessage]) {
    #expect(b.count % 4 == 0)
    #expect(!b.overflowed)
    return try OSCReader.parse(Array(b.bytes))
  }

  @Test func tuio2BundleHasFrmPtrExtensionsAndAlvInOrder() throws {
    let source = TUIOSource(board: Self.board(), serial: "P:1 2", address: "0x7F000001")
    var encoder = TUIO2Encoder(source: source)
    let out = ByteBuffer(capacity: 4096)
    let time = OSCTimeTag(seconds: 3_900_000_000, fraction: 1 << 31)
    encoder.encode(Self.report(), time: time, into: out)
    let (bundleTime, messages) = try Self.parse(out)
    #expect(bundleTime == .immediate)
    #expect(messages.map(\.address) == ["/tuio2/frm", "/tuio2/ptr", "/forcepanel/stage", "/forcepanel/event", "/tuio2/alv"])
    #expect(messages.map(\.tags) == [",itis", ",iiifffffffffff", ",isf", ",si", ",i"])
    #expect(
      messages[0].arguments == [
        .int32(396), .timeTag(time), .int32(1600 << 16 | 1000), .string("test-plate/P_1_2:0@0x7F000001"),
      ])
    let ptr = messages[1].arguments
    #expect(ptr[0] == .int32(7))
    #expect(ptr[3] == .float32(0.5))
    #expect(ptr[4] == .float32(0.25))
    guard case .float32(let press) = ptr[8] else { Issue.record("press"); return }
    #expect(abs(press - 0.5) < 1e-4)  // 2.668 N of 6.67 x 0.8 N
    guard case .float32(let force) = messages[2].arguments[2] else { Issue.record("force"); return }
    #expect(messages[2].arguments[0...1] == [.int32(7), .string("peek")])
    #expect(abs(force - 2.668) < 1e-3)
    #expect(messages[3].arguments == [.string("peek"), .int32(7)])
    #expect(messages[4].arguments == [.int32(7)])
  }

  @Test func tuio1BundleIsSourceAliveSetFseq() throws {
    let source = TUIOSource(board: Self.board(), serial: "S1", address: "panel.local")
    var encoder = TUIO1Encoder(source: source)
    let out = ByteBuffer(capacity: 4096)
    encoder.encode(Self.report(), into: out)
    let (_, messages) = try Self.parse(out)
    let kinds = messages.map { $0.address == "/tuio/2Dcur" ? "\($0.arguments[0])" : $0.address }
    #expect(kinds == ["\"source\"", "\"alive\"", "\"set\"", "/forcepanel/stage", "/forcepanel/event", "\"fseq\""])
    #expect(messages[0].arguments == [.string("source"), .string("test-plate/S1@panel.local")])
    #expect(messages[1].tags == ",si")
    #expect(messages[1].arguments == [.string("alive"), .int32(7)])
    #expect(messages[2].tags == ",sifffff")
    #expect(Array(messages[2].arguments[0...3]) == [.string("set"), .int32(7), .float32(0.5), .float32(0.25)])
    #expect(messages[5].arguments == [.string("fseq"), .int32(396)])
  }

  @Test func anIdleFrameIsFrmAndAnEmptyAlv() throws {
    var encoder = TUIO2Encoder(source: TUIOSource(board: Self.board(), serial: "S", address: "h"))
    let out = ByteBuffer(capacity: 4096)
    encoder.encode(FrameReport(), time: .immediate, into: out)
    let (_, messages) = try Self.parse(out)
    #expect(messages.map(\.address) == ["/tuio2/frm", "/tuio2/alv"])
    #expect(messages[1].tags == ",")
    #expect(messages[1].arguments.isEmpty)
  }

  @Test func sixteenTouchesAndThirtyTwoEventsFitTheBundleBuffer() throws {
    var r = FrameReport()
    for i in 0..<16 { r.append(Self.touch(UInt32(100_000 + i), .moved, x: 1, y: 2, newtons: 1, .pop)) }
    for i in 0..<32 { r.append(TouchEvent(kind: .peekCancelled, touch: UInt32(100_000 + i))) }
    var encoder = TUIO2Encoder(source: TUIOSource(board: Self.board(), serial: String(repeating: "S", count: 64), address: "0x0A000001"))
    let out = ByteBuffer(capacity: TUIO2Encoder.maxBundleBytes)
    encoder.encode(r, time: .immediate, into: out)
    let (_, messages) = try Self.parse(out)
    #expect(messages.count == 1 + 16 + 16 + 32 + 1)
    #expect(messages.last?.tags == "," + String(repeating: "i", count: 16))
  }

  @Test func motionIsNormalizedUnitsPerSecond() throws {
    var encoder = TUIO2Encoder(source: TUIOSource(board: Self.board(), serial: "S", address: "h"))
    let out = ByteBuffer(capacity: 4096)
    var r = FrameReport()
    r.time = Time_us(rawValue: 0)
    r.append(Self.touch(1, .began, x: 80, y: 50, newtons: 1, .none))
    encoder.encode(r, time: .immediate, into: out)
    out.removeAll()
    r.removeAll()
    r.time = Time_us(rawValue: 10_000)  // 10 ms later, 1.6 mm to the right
    r.append(Self.touch(1, .moved, x: 81.6, y: 50, newtons: 1, .none))
    encoder.encode(r, time: .immediate, into: out)
    let (_, messages) = try Self.parse(out)
    guard case .float32(let vx) = messages[1].arguments[9], case .float32(let vy) = messages[1].arguments[10] else {
      Issue.record("velocity")
      return
    }
    #expect(abs(vx - 1.0) < 1e-3)
    #expect(vy == 0)
  }

  @Test func frameIDsStartAtOneAndSkipZeroWhenTheyWrap() {
    #expect(TUIOSource.frameID(0) == 1)
    #expect(TUIOSource.frameID(0x7FFF_FFFE) == Int32.max)
    #expect(TUIOSource.frameID(0x7FFF_FFFF) == 1)
  }

  @Test func timeTagsCountFrom1900() {
    #expect(OSCTimeTag(unixMicroseconds: 0) == OSCTimeTag(seconds: 2_208_988_800, fraction: 0))
    #expect(OSCTimeTag(unixMicroseconds: 1_500_000) == OSCTimeTag(seconds: 2_208_988_801, fraction: 1 << 31))
  }

  @Test(arguments: 0...8)
  func stringsArePaddedWithOneToFourNULs(_ length: Int) throws {
    let out = ByteBuffer(capacity: 64)
    let text = Array(repeating: UInt8(ascii: "a"), count: length)
    text.withUnsafeBufferPointer { OSCWriter(out).string($0) }
    #expect(out.count == (length / 4 + 1) * 4)
    #expect(out.bytes[length...].allSatisfy { $0 == 0 })
  }

  /// The packets python-osc misreads instead of rejecting
  /// (docs/streaming.md, "listen") are errors here.
  @Test func theStrictReaderRejectsWhatLenientDecodersMisread() {
    func message(_ tags: String, _ payload: [UInt8]) -> [UInt8] {
      func padded(_ s: String) -> [UInt8] {
        var b = Array(s.utf8) + [0]
        while b.count % 4 != 0 { b.append(0) }
        return b
      }
      return padded("/a") + padded(tags) + payload
    }
    // An unknown type tag.
    #expect(throws: OSCFormatError.self) { try OSCReader.parse(message(",ci", [0, 0, 0, 65, 0, 0, 0, 5])) }
    // Two float tags, one float.
    #expect(throws: OSCFormatError.self) { try OSCReader.parse(message(",ff", [0x3F, 0xC0, 0, 0])) }
    // Bytes left after the arguments.
    #expect(throws: OSCFormatError.self) { try OSCReader.parse(message(",i", [0, 0, 0, 1, 0, 0, 0, 2])) }
    // Not a multiple of 4.
    #expect(throws: OSCFormatError.self) { try OSCReader.parse(message(",i", [0, 0, 1])) }
    // Non-NUL padding.
    #expect(throws: OSCFormatError.self) { try OSCReader.parse([0x2F, 0x61, 0, 1] + [0x2C, 0, 0, 0]) }
    #expect(throws: Never.self) { try OSCReader.parse(message(",if", [0, 0, 0, 1, 0x3F, 0xC0, 0, 0])) }
  }

  @Test func theImageIsAFieldOfTheSameLine() {
    var image = CellArray<Force_mN>(repeating: .zero)
    image[0] = Force_mN(newtons: 1.25)
    image[1] = Force_mN(newtons: -0.002)
    let out = ByteBuffer(capacity: 4096)
    let encoder = NDJSONEncoder(interaction: InteractionSettings())
    var report = FrameReport()
    report.frame = 3
    encoder.encode(report, into: out)
    let plain = String(decoding: out.bytes, as: UTF8.self)
    encoder.appendImage(image.span, cellCount: 3, to: out)
    #expect(plain.hasPrefix("{\"t_us\":0,\"frame\":3,") && plain.hasSuffix("}\n"))
    #expect(String(decoding: out.bytes, as: UTF8.self) == plain.dropLast(2) + ",\"image_n\":[1.250,-0.002,0.000]}\n")
    // The noise the detector measured and the thresholds it uses follow.
    var sigma = CellArray<Int32>(repeating: 0)
    sigma[0] = Force_mN(newtons: 0.0075).rawValue
    encoder.appendNoise(
      sigma.span, cellCount: 2, thresholds: (Force_mN(newtons: 0.09), Force_mN(newtons: 0.06)), to: out)
    #expect(
      String(decoding: out.bytes, as: UTF8.self)
        == plain.dropLast(2) + ",\"image_n\":[1.250,-0.002,0.000],\"noise_n\":[0.008,0.000],\"touch_on_n\":0.090,\"touch_off_n\":0.060}\n")
  }
}
