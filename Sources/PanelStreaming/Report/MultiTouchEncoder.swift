import CUInput
import ForceCore
import PanelFormats
import PanelTouch

/// One evdev event, without its time (struct input_event's type, code and
/// value; the same layout as `cuinput_event`).
public struct InputEvent: Equatable, Sendable, CustomStringConvertible {
  public var type: UInt16
  public var code: UInt16
  public var value: Int32

  public init(_ type: Int32, _ code: Int32, _ value: Int32) {
    self.type = UInt16(truncatingIfNeeded: type)
    self.code = UInt16(truncatingIfNeeded: code)
    self.value = value
  }

  public var description: String { "(\(type), \(code), \(value))" }
}

/// Events for one write, in a buffer allocated at setup.
public final class InputEventBuffer {
  public let capacity: Int
  let storage: UnsafeMutablePointer<InputEvent>
  public private(set) var count = 0

  public init(capacity: Int) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
  }

  deinit { storage.deallocate() }

  public var events: UnsafeBufferPointer<InputEvent> { UnsafeBufferPointer(start: storage, count: count) }

  @inline(__always)
  func append(_ type: Int32, _ code: Int32, _ value: Int32) {
    guard count < capacity else { return }
    storage[count] = InputEvent(type, code, value)
    count += 1
  }

  public func removeAll() { count = 0 }
}

/// The ranges a multi-touch device announces, from the board: positions in
/// hundredths of a millimetre (resolution 100 units/mm), pressure in
/// millinewtons up to the board's maximumPossibleForce.
public struct MultiTouchAxes: Sendable, Equatable {
  public var slots: Int
  public var maxX: Int32
  public var maxY: Int32
  public var maxPressure: Int32
  /// Units per millimetre of x and y.
  public static let resolution: Int32 = 100

  public init(board: Board) {
    slots = max(1, min(board.interaction.maxTouches, Capacity.contacts))
    maxX = max(0, Saturating.int32(rounding: board.width_mm * 100))
    maxY = max(0, Saturating.int32(rounding: board.height_mm * 100))
    let maxForce_n = board.interaction.maxForce * board.interaction.averageTouch_n
    maxPressure = max(1, Saturating.int32(rounding: maxForce_n * 1000))
  }
}

/// Turns frame reports into Linux multi-touch protocol B events
/// (Documentation/input/multi-touch-protocol.rst), allocation-free:
///
/// - each touch gets a slot while it is down: `ABS_MT_SLOT`, then
///   `ABS_MT_TRACKING_ID` (the touch id, 0...65535) when it begins and -1
///   when it ends or is cancelled;
/// - a slot freed in a frame is not given out again in that frame: a slot
///   both ended and begun within one `SYN_REPORT` is, to a reader, one
///   touch that never lifted (libinput: "multiple touch down for the same
///   slot"). A touch that finds no other free slot takes it in the next
///   frame;
/// - per active touch `ABS_MT_POSITION_X/Y` (0.01 mm) and `ABS_MT_PRESSURE`
///   (mN, clamped to the axis);
/// - single-touch emulation for older clients: `BTN_TOUCH`, and `ABS_X`,
///   `ABS_Y`, `ABS_PRESSURE` follow one touch, the oldest down when the
///   pointer was last up, from its frame to its end. When it ends,
///   `BTN_TOUCH` goes to 0 in that frame even if other touches are down;
///   the next frame presses again on the oldest touch down. The pointer
///   never jumps from one finger to another while pressed, so two taps
///   stay two taps, never a drag from the first to the second;
/// - `SYN_REPORT` closes the frame. Frames with no touches emit nothing.
///
/// The kernel drops values that did not change; the encoder does not need to.
public struct MultiTouchEncoder {
  public let axes: MultiTouchAxes
  /// Touch id per slot; 0 = free (touch ids start at 1).
  var slotIDs: TouchArray<UInt32> = TouchArray(repeating: 0)
  /// The touch the single-touch axes follow; 0 = none (BTN_TOUCH up).
  var emulated: UInt32 = 0
  /// Times a touch found no free slot for a frame (more than `axes.slots`
  /// at once, or its slot was freed in the same frame).
  public private(set) var unslotted: UInt64 = 0

  public init(axes: MultiTouchAxes) { self.axes = axes }

  /// The most events one frame can produce.
  public static let maxEventsPerFrame = Capacity.contacts * 6 + 6

  /// The events for `report` (`inout` only so that it is read in place;
  /// it is not modified).
  public mutating func encode(_ report: inout FrameReport, into out: InputEventBuffer) {
    out.removeAll()
    guard report.touchCount > 0 else { return }
    /// Slots freed in this frame, one bit each.
    var freed: UInt32 = 0
    var oldest = -1
    var oldestID = UInt32.max
    var followed = -1
    var followedEnded = false
    for i in 0..<report.touchCount {
      let t = report[touch: i].touch
      var slot = slot(of: t.id)
      if slot < 0 {
        if t.phase.isFinal { continue }
        slot = freeSlot(except: freed)
        guard slot >= 0 else {
          unslotted += 1
          continue
        }
        slotIDs[slot] = t.id
        out.append(EV_ABS, ABS_MT_SLOT, Int32(slot))
        out.append(EV_ABS, ABS_MT_TRACKING_ID, Int32(t.id & 0xFFFF))
      } else {
        out.append(EV_ABS, ABS_MT_SLOT, Int32(slot))
      }
      if t.phase.isFinal {
        out.append(EV_ABS, ABS_MT_TRACKING_ID, -1)
        slotIDs[slot] = 0
        freed |= 1 << UInt32(slot)
        if t.id == emulated { followedEnded = true }
        continue
      }
      out.append(EV_ABS, ABS_MT_POSITION_X, x(t))
      out.append(EV_ABS, ABS_MT_POSITION_Y, y(t))
      out.append(EV_ABS, ABS_MT_PRESSURE, pressure(t))
      if t.id == emulated { followed = i }
      if t.id < oldestID {
        oldestID = t.id
        oldest = i
      }
    }
    if emulated != 0 && (followedEnded || followed < 0) {
      // The followed touch ended (or is gone): the pointer lifts.
      emulated = 0
    } else {
      if emulated == 0 && oldest >= 0 {
        emulated = oldestID
        followed = oldest
      }
    }
    if emulated != 0 && followed >= 0 {
      let t = report[touch: followed].touch
      out.append(EV_KEY, BTN_TOUCH, 1)
      out.append(EV_ABS, ABS_X, x(t))
      out.append(EV_ABS, ABS_Y, y(t))
      out.append(EV_ABS, ABS_PRESSURE, pressure(t))
    } else {
      out.append(EV_KEY, BTN_TOUCH, 0)
      out.append(EV_ABS, ABS_PRESSURE, 0)
    }
    out.append(EV_SYN, SYN_REPORT, 0)
  }

  mutating func slot(of id: UInt32) -> Int {
    for s in 0..<axes.slots where slotIDs[s] == id { return s }
    return -1
  }

  /// A free slot not freed in this frame (`freed`, one bit per slot).
  mutating func freeSlot(except freed: UInt32) -> Int {
    for s in 0..<axes.slots where slotIDs[s] == 0 && freed & (1 << UInt32(s)) == 0 { return s }
    return -1
  }

  /// 0.01 mm, as the NDJSON stream rounds `x_mm`.
  @inline(__always)
  func x(_ t: TrackedTouch) -> Int32 { Int32(max(0, min(Int64(axes.maxX), ReportUnits.hundredths_mm(t.x)))) }
  @inline(__always)
  func y(_ t: TrackedTouch) -> Int32 { Int32(max(0, min(Int64(axes.maxY), ReportUnits.hundredths_mm(t.y)))) }
  /// Millinewtons, as the NDJSON stream rounds `force_n`.
  @inline(__always)
  func pressure(_ t: TrackedTouch) -> Int32 {
    Int32(max(0, min(Int64(axes.maxPressure), ReportUnits.millinewtons(t.force))))
  }
}
