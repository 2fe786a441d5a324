import CUInput
import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelStreaming
@testable import PanelTouch

#if canImport(Glibc)
  import Glibc
#endif


@Suite struct MultiTouchEncoderTests {
  static let board = Board(
    name: "t", width_mm: 160, height_mm: 100, cells: [CellPosition(x_mm: 0, y_mm: 0)],
    frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: 320)

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
    // Touch 3 lifts: 65540 is now the only one; its slot stays 1. The
    // pointer the single-touch axes emulate lifts with touch 3 ...
    let one = Self.events(&encoder, [(3, .ended, 11, 10, 0), (65_540, .moved, 100, 90, 2)])
    #expect(Array(one.prefix(3)) == [Self.e(EV_ABS, ABS_MT_SLOT, 0), Self.e(EV_ABS, ABS_MT_TRACKING_ID, -1), Self.e(EV_ABS, ABS_MT_SLOT, 1)])
    #expect(Array(one.suffix(3)) == [Self.e(EV_KEY, BTN_TOUCH, 0), Self.e(EV_ABS, ABS_PRESSURE, 0), Self.e(EV_SYN, SYN_REPORT, 0)])
    #expect(!one.contains { $0.type == UInt16(EV_ABS) && $0.code == UInt16(ABS_X) })
    // ... and presses again on the touch still down in the next frame.
    let next = Self.events(&encoder, [(65_540, .moved, 100, 90, 2)])
    #expect(next.contains(Self.e(EV_KEY, BTN_TOUCH, 1)) && next.contains(Self.e(EV_ABS, ABS_X, 10000)))
    // A new touch takes the free slot 0; the pointer stays on 65540.
    let again = Self.events(&encoder, [(65_540, .moved, 100, 90, 2), (9, .began, 5, 5, 1)])
    #expect(again.contains(Self.e(EV_ABS, ABS_MT_SLOT, 0)))
    #expect(again.contains(Self.e(EV_ABS, ABS_MT_TRACKING_ID, 9)))
    #expect(again.contains(Self.e(EV_ABS, ABS_X, 10000)))
  }

  /// What a reader of the device sees after each SYN_REPORT, and whether
  /// any slot was both freed and taken within one report.
  struct DeviceState: Equatable {
    var slots: [Int32: (id: Int32, x: Int32)] = [:]
    var button: Int32 = 0
    var x: Int32 = 0
    static func == (a: DeviceState, b: DeviceState) -> Bool {
      a.button == b.button && a.x == b.x && a.slots.mapValues(\.id) == b.slots.mapValues(\.id)
    }
  }

  static func replay(_ frames: [[InputEvent]]) -> (states: [DeviceState], reusedInOneReport: Bool) {
    var state = DeviceState()
    var states: [DeviceState] = []
    var reused = false
    for events in frames {
      var slot: Int32 = 0
      var freed: Set<Int32> = []
      for e in events {
        switch (Int32(e.type), Int32(e.code)) {
        case (EV_ABS, ABS_MT_SLOT): slot = e.value
        case (EV_ABS, ABS_MT_TRACKING_ID):
          if e.value < 0 {
            state.slots[slot] = nil
            freed.insert(slot)
          } else {
            if freed.contains(slot) { reused = true }
            state.slots[slot] = (e.value, 0)
          }
        case (EV_ABS, ABS_MT_POSITION_X): state.slots[slot]?.x = e.value
        case (EV_KEY, BTN_TOUCH): state.button = e.value
        case (EV_ABS, ABS_X): state.x = e.value
        case (EV_SYN, SYN_REPORT): states.append(state)
        default: break
        }
      }
    }
    return (states, reused)
  }

  /// A hand-over frame: touch 1 lifts at x = 41 mm in the frame touch 2
  /// lands at x = 120 mm. No slot is freed and taken in one report, and the
  /// single-touch pointer lifts before it presses at the second place:
  /// two taps, not a drag from the first to the second.
  @Test(arguments: [10, 1])
  func aHandOverFrameNeitherReusesASlotNorDrags(slots: Int) {
    var board = Self.board
    board.interaction.maxTouches = slots
    var encoder = MultiTouchEncoder(axes: MultiTouchAxes(board: board))
    let frames = [
      Self.events(&encoder, [(1, .began, 41, 50, 1)]),
      Self.events(&encoder, [(1, .stationary, 41, 50, 1)]),
      Self.events(&encoder, [(1, .ended, 41, 50, 0), (2, .began, 120, 50, 1)]),
      Self.events(&encoder, [(2, .stationary, 120, 50, 1)]),
      Self.events(&encoder, [(2, .ended, 120, 50, 0)]),
    ]
    let (states, reused) = Self.replay(frames)
    #expect(!reused)
    // Touch 1 is down and lifts; touch 2 is down in the hand-over frame
    // (slot 1) when there is a second slot, in the next one otherwise.
    #expect(states[1].slots.mapValues(\.id) == [0: 1])
    #expect(states[2].slots.mapValues(\.id) == (slots > 1 ? [1: 2] : [:]))
    #expect(states[3].slots.values.map(\.id) == [2])
    #expect(states[4].slots.isEmpty)
    // The pointer: down at 4100, up in the hand-over frame, down at 12000.
    #expect(states.map(\.button) == [1, 1, 0, 1, 0])
    #expect(states[1].x == 4100 && states[3].x == 12000)
    #expect(encoder.unslotted == (slots > 1 ? 0 : 1))
  }

  /// A full frame (every touch beginning, the single-touch axes) is one
  /// write(): a SOCK_SEQPACKET socket keeps write boundaries, so the reader
  /// gets exactly one message per cuinput_write, with every event of it.
  @Test func aWholeFrameIsOneWrite() throws {
    #expect(MultiTouchEncoder.maxEventsPerFrame <= Int(CUINPUT_MAX_EVENTS))
    var board = Self.board
    board.interaction.maxTouches = 16
    var encoder = MultiTouchEncoder(axes: MultiTouchAxes(board: board))
    var touches: [(UInt32, TouchPhase, Double, Double, Double)] = []
    for id in 1...UInt32(Capacity.contacts) { touches.append((id, .began, Double(id) * 9, 50, 1)) }
    let out = InputEventBuffer(capacity: MultiTouchEncoder.maxEventsPerFrame)
    encoder.encode(Self.report(touches), into: out)
    #expect(out.count > 64, "\(out.count) events")
    var fds: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    let written = out.storage.withMemoryRebound(to: cuinput_event.self, capacity: out.count) {
      cuinput_write(fds[0], $0, UInt32(out.count))
    }
    #expect(written == out.count)
    shutdown(fds[0], Int32(SHUT_WR))
    var sizes: [Int] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(fds[1], &buffer, buffer.count, 0)
      if n <= 0 { break }
      sizes.append(n)
    }
    #expect(sizes == [out.count * MemoryLayout<input_event>.size])
    // More than a frame can hold is refused whole: nothing is written.
    let big = InputEventBuffer(capacity: Int(CUINPUT_MAX_EVENTS) + 1)
    for _ in 0..<big.capacity { big.append(EV_SYN, SYN_REPORT, 0) }
    let refused = big.storage.withMemoryRebound(to: cuinput_event.self, capacity: big.count) {
      cuinput_write(fds[0], $0, UInt32(big.count))
    }
    #expect(refused == -1 && errno == EMSGSIZE)
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
