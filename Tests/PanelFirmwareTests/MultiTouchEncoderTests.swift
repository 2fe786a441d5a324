import CUInput
import ForceCore
import Testing

@testable import PanelFirmware

@Suite struct MultiTouchEncoderTests {
  static let board = Board(
    name: "t", width_mm: 160, height_mm: 100, cells: [CellPosition(x_mm: 0, y_mm: 0)],
    frontEnd: FrontEndSpec(kind: "sim"), rate_hz: 320)

  static func report(_ touches: [(UInt32, TouchPhase, Double, Double, Double)]) -> FrameReport {
    var r = FrameReport()
    for (id, phase, x, y, n) in touches {
      r.append(
        TouchReport(
          touch: TrackedTouch(
            id: id, phase: phase, x: Length_um(millimetres: x), y: Length_um(millimetres: y),
            force: Force_mN(newtons: n))))
    }
    return r
  }

  static func events(_ encoder: inout MultiTouchEncoder, _ touches: [(UInt32, TouchPhase, Double, Double, Double)]) -> [InputEvent] {
    let out = InputEventBuffer(capacity: MultiTouchEncoder.maxEventsPerFrame)
    encoder.encode(report(touches), into: out)
    return Array(out.events)
  }

  static func e(_ type: Int32, _ code: Int32, _ value: Int32) -> InputEvent { InputEvent(type, code, value) }

  @Test func theAxesComeFromTheBoard() {
    let axes = MultiTouchAxes(board: Self.board)
    #expect(axes == MultiTouchAxes(board: Self.board))
    #expect(axes.maxX == 16000 && axes.maxY == 10000)
    #expect(axes.maxPressure == 5336)  // 6.67 x 0.8 N in mN
    #expect(axes.slots == 10)
  }

  @Test func aTouchBeginsMovesAndEndsInOneSlot() {
    var encoder = MultiTouchEncoder(axes: MultiTouchAxes(board: Self.board))
    let began = Self.events(&encoder, [(7, .began, 80.204, 49.695, 1.21)])
    #expect(
      began == [
        Self.e(EV_ABS, ABS_MT_SLOT, 0), Self.e(EV_ABS, ABS_MT_TRACKING_ID, 7),
        Self.e(EV_ABS, ABS_MT_POSITION_X, 8020), Self.e(EV_ABS, ABS_MT_POSITION_Y, 4970),
        Self.e(EV_ABS, ABS_MT_PRESSURE, 1210),
        Self.e(EV_KEY, BTN_TOUCH, 1), Self.e(EV_ABS, ABS_X, 8020), Self.e(EV_ABS, ABS_Y, 4970),
        Self.e(EV_ABS, ABS_PRESSURE, 1210), Self.e(EV_SYN, SYN_REPORT, 0),
      ])
    let moved = Self.events(&encoder, [(7, .moved, 81, 50, 9)])
    #expect(moved.first == Self.e(EV_ABS, ABS_MT_SLOT, 0))
    #expect(moved.contains(Self.e(EV_ABS, ABS_MT_PRESSURE, 5336)))  // clamped to the axis
    #expect(!moved.contains { $0.code == UInt16(ABS_MT_TRACKING_ID) })
    let ended = Self.events(&encoder, [(7, .ended, 81, 50, 0)])
    #expect(
      ended == [
        Self.e(EV_ABS, ABS_MT_SLOT, 0), Self.e(EV_ABS, ABS_MT_TRACKING_ID, -1),
        Self.e(EV_KEY, BTN_TOUCH, 0), Self.e(EV_ABS, ABS_PRESSURE, 0), Self.e(EV_SYN, SYN_REPORT, 0),
      ])
    #expect(Self.events(&encoder, []).isEmpty)
  }

  @Test func theOldestTouchDrivesTheSingleTouchAxes() {
    var encoder = MultiTouchEncoder(axes: MultiTouchAxes(board: Self.board))
    _ = Self.events(&encoder, [(3, .began, 10, 10, 1)])
    let two = Self.events(&encoder, [(3, .moved, 11, 10, 1), (65_540, .began, 100, 90, 2)])
    #expect(two.contains(Self.e(EV_ABS, ABS_MT_SLOT, 1)))
    #expect(two.contains(Self.e(EV_ABS, ABS_MT_TRACKING_ID, 4)))  // 65540 & 0xFFFF
    #expect(two.contains(Self.e(EV_ABS, ABS_X, 1100)))
    // Touch 3 lifts: 65540 is now the only one; its slot stays 1.
    let one = Self.events(&encoder, [(3, .ended, 11, 10, 0), (65_540, .moved, 100, 90, 2)])
    #expect(Array(one.prefix(3)) == [Self.e(EV_ABS, ABS_MT_SLOT, 0), Self.e(EV_ABS, ABS_MT_TRACKING_ID, -1), Self.e(EV_ABS, ABS_MT_SLOT, 1)])
    #expect(one.contains(Self.e(EV_ABS, ABS_X, 10000)))
    #expect(one.contains(Self.e(EV_KEY, BTN_TOUCH, 1)))
    // A new touch takes the free slot 0.
    let again = Self.events(&encoder, [(65_540, .moved, 100, 90, 2), (9, .began, 5, 5, 1)])
    #expect(again.contains(Self.e(EV_ABS, ABS_MT_SLOT, 0)))
    #expect(again.contains(Self.e(EV_ABS, ABS_MT_TRACKING_ID, 9)))
    #expect(again.contains(Self.e(EV_ABS, ABS_X, 500)))  // 9 < 65540: the smaller id is the older one
  }

  @Test func touchesBeyondTheSlotsAreCounted() {
    var board = Self.board
    board.interaction.maxTouches = 2
    var encoder = MultiTouchEncoder(axes: MultiTouchAxes(board: board))
    let events = Self.events(&encoder, [(1, .began, 1, 1, 1), (2, .began, 2, 2, 1), (3, .began, 3, 3, 1)])
    #expect(encoder.unslotted == 1)
    #expect(!events.contains(Self.e(EV_ABS, ABS_MT_TRACKING_ID, 3)))
  }

  @Test func eventsHaveTheLayoutTheCShimWrites() {
    #expect(MemoryLayout<InputEvent>.size == MemoryLayout<cuinput_event>.size)
    #expect(MemoryLayout<InputEvent>.offset(of: \.value) == 4)
    #expect(MemoryLayout<input_event>.size == 24)  // 64-bit time + type, code, value
  }
}
