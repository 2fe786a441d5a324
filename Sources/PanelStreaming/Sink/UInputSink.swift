import CUInput
import PanelFiles
import PanelFormats
import PanelHardware

#if canImport(Glibc)
  import Glibc
#endif

/// A Linux multi-touch input device made through uinput
/// (Documentation/input/uinput.rst): a direct touchscreen
/// (`INPUT_PROP_DIRECT`) with protocol B slots, tracking ids, position and
/// `ABS_MT_PRESSURE`, plus single-touch emulation (`BTN_TOUCH`, `ABS_X/Y`,
/// `ABS_PRESSURE`). Destroyed (UI_DEV_DESTROY) when released.
public final class UInputDevice {
  let fd: Int32
  /// The device under /sys/devices/virtual/input ("input12").
  public let sysname: String
  /// Its event node ("/dev/input/event5"), when the kernel made one.
  public let eventNode: String?
  public let name: String

  /// Opens `path` and creates the device; errors name the ioctl that failed.
  public init(name: String, axes: MultiTouchAxes, path: String = "/dev/uinput") throws(SinkError) {
    let device: FileDescriptor
    do throws(Errno) {
      device = try FileDescriptor.open(path, O_WRONLY | O_NONBLOCK)
    } catch {
      let hint =
        error == .noSuchFileOrDirectory
        ? " (load the uinput module: modprobe uinput)" : error == .permissionDenied ? " (needs root or the input group)" : ""
      throw .device("uinput: cannot open \(path): \(error)\(hint)")
    }
    let fd = device.rawValue
    func check(_ status: Int32, _ what: String) throws(SinkError) {
      guard status >= 0 else {
        let e = Errno.current
        device.close()
        throw .device("uinput \(path): \(what) failed: \(e)")
      }
    }
    var version: UInt32 = 0
    try check(cuinput_version(fd, &version), "UI_GET_VERSION")
    guard version >= 5 else {
      device.close()
      throw .device("uinput \(path): version \(version) has no UI_ABS_SETUP (needs 5, Linux 4.5)")
    }
    try check(cuinput_set_evbit(fd, EV_SYN), "UI_SET_EVBIT EV_SYN")
    try check(cuinput_set_evbit(fd, EV_KEY), "UI_SET_EVBIT EV_KEY")
    try check(cuinput_set_keybit(fd, BTN_TOUCH), "UI_SET_KEYBIT BTN_TOUCH")
    try check(cuinput_set_evbit(fd, EV_ABS), "UI_SET_EVBIT EV_ABS")
    try check(cuinput_set_propbit(fd, INPUT_PROP_DIRECT), "UI_SET_PROPBIT INPUT_PROP_DIRECT")
    let r = MultiTouchAxes.resolution
    let absolute: [(Int32, String, Int32, Int32)] = [
      (ABS_X, "ABS_X", axes.maxX, r),
      (ABS_Y, "ABS_Y", axes.maxY, r),
      (ABS_PRESSURE, "ABS_PRESSURE", axes.maxPressure, 0),
      (ABS_MT_SLOT, "ABS_MT_SLOT", Int32(axes.slots - 1), 0),
      (ABS_MT_TRACKING_ID, "ABS_MT_TRACKING_ID", 65535, 0),
      (ABS_MT_POSITION_X, "ABS_MT_POSITION_X", axes.maxX, r),
      (ABS_MT_POSITION_Y, "ABS_MT_POSITION_Y", axes.maxY, r),
      (ABS_MT_PRESSURE, "ABS_MT_PRESSURE", axes.maxPressure, 0),
    ]
    for (code, label, maximum, resolution) in absolute {
      try check(cuinput_set_absbit(fd, code), "UI_SET_ABSBIT \(label)")
      try check(cuinput_abs_setup(fd, UInt16(code), 0, maximum, resolution), "UI_ABS_SETUP \(label)")
    }
    try check(cuinput_dev_setup(fd, name, UInt16(BUS_VIRTUAL), 0, 0, 1), "UI_DEV_SETUP")
    try check(cuinput_dev_create(fd), "UI_DEV_CREATE")
    var buffer = [CChar](repeating: 0, count: 64)
    let named = cuinput_sysname(fd, &buffer, UInt32(buffer.count)) >= 0
    sysname = named ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    eventNode = named ? UInputDevice.eventNode(sysname: sysname) : nil
    self.fd = fd
    self.name = name
  }

  deinit {
    _ = cuinput_dev_destroy(fd)
    FileDescriptor(rawValue: fd).close()
  }

  /// Writes the events (a whole frame) in one write(), so the frame
  /// reaches the device whole or not at all. False when it was refused.
  func write(_ events: InputEventBuffer) -> Bool {
    events.storage.withMemoryRebound(to: cuinput_event.self, capacity: events.count) {
      cuinput_write(fd, $0, UInt32(events.count)) == events.count
    }
  }

  /// `/dev/input/eventN` of /sys/devices/virtual/input/SYSNAME/eventN.
  static func eventNode(sysname: String) -> String? {
    let names = (try? FileSystem.entries(of: "/sys/devices/virtual/input/" + sysname)) ?? []
    return names.first { $0.hasPrefix("event") }.map { "/dev/input/" + $0 }
  }
}

/// The report stream as a multi-touch device on the board itself: its
/// desktop sees a touchscreen; programs reading the evdev device directly
/// also get the pressure (libinput has none for touch).
public struct UInputSink: FrameSink {
  public let device: UInputDevice
  var encoder: MultiTouchEncoder
  let events = InputEventBuffer(capacity: MultiTouchEncoder.maxEventsPerFrame)
  public private(set) var frames: UInt64 = 0
  public private(set) var failed: UInt64 = 0

  public init(board: Board, path: String = "/dev/uinput") throws(SinkError) {
    let axes = MultiTouchAxes(board: board)
    device = try UInputDevice(name: "ForcePanel \(board.name)", axes: axes, path: path)
    encoder = MultiTouchEncoder(axes: axes)
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    encoder.encode(&loop.report, into: events)
    guard events.count > 0 else { return }
    if device.write(events) { frames += 1 } else { failed += 1 }
  }

  public mutating func finish() throws(SinkError) {}

  public var summary: String? {
    "uinput \(device.eventNode ?? device.sysname): frames \(frames), failed \(failed)"
  }
}
