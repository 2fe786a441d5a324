import Benchmark
import ForceCore
import PanelFirmware

/// The stage machine (Interaction.update: stages, hysteresis, hold, drag,
/// swipe, long press, regions, events) per frame with 1, 4 and 10 touches,
/// each pressing through hint, peek and pop and lifting, on the items of a
/// home screen; and the same frames with only the report filled, to take
/// that out. Figures are per frame; per touch = per frame / touches.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
    timeUnits: .nanoseconds, scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)

  // A click: the driver's one write (and the next frame's MODE check) on a
  // bus that only counts bytes, so the figure is the firmware's own cost.
  Benchmark("Haptic click and check") { benchmark in
    var feedback = HapticFeedback(bus: NullBus(), settings: HapticsSettings())
    try feedback.start()
    var click = FrameReport()
    click.append(TouchEvent(kind: .peek, touch: 1))
    var quiet = FrameReport()
    var t: Int64 = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      t += 2_000_000  // 2 s apart: no cancel
      click.time = Time_us(rawValue: t)
      feedback.respond(to: &click)
      feedback.respond(to: &quiet)
    }
    benchmark.stopMeasurement()
    blackHole(feedback.bus.bytes)
  }

  for touches in [1, 4, 10] {
    Benchmark("Stage machine \(touches) touches") { benchmark in
      let script = StageScript(touches: touches)
      var interaction = Interaction(board: script.board, regions: script.regions)
      var report = FrameReport()
      var frame = 0
      var events = 0
      for _ in 0..<StageScript.frames { script.fill(&report, frame: &frame); interaction.update(&report) }
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        script.fill(&report, frame: &frame)
        interaction.update(&report)
        events &+= report.eventCount
      }
      benchmark.stopMeasurement()
      blackHole(events)
    }

    Benchmark("Report fill only \(touches) touches") { benchmark in
      let script = StageScript(touches: touches)
      var report = FrameReport()
      var frame = 0
      var n = 0
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        script.fill(&report, frame: &frame)
        n &+= report.touchCount
      }
      benchmark.stopMeasurement()
      blackHole(n)
    }
  }
}

/// Pre-computed touches: touch k presses every 2 s (offset by k x 37
/// frames): 1 s ramp to 5 N (through hint, peek, pop), 0.5 s hold, release,
/// lift; then a new touch with a new id. Positions on a message row, with a
/// small wobble.
struct StageScript {
  static let frames = 2560
  static let cycle = 640
  let board: Board
  let regions: RegionMap
  let touches: Int
  /// `frames x touches` entries, frame-major.
  let table: [TrackedTouch]
  let active: [Bool]

  init(touches: Int) {
    var b = Board(
      name: "bench", width_mm: 160, height_mm: 100,
      cells: [CellPosition(x_mm: 0, y_mm: 0), CellPosition(x_mm: 160, y_mm: 0)],
      frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: 320)
    b.interaction.maxTouches = 16
    board = b
    var items: [RegionItem] = []
    for k in 0..<10 {
      items.append(
        RegionItem(
          name: "row\(k)", x_mm: 0, y_mm: Double(k) * 10, width_mm: 160, height_mm: 10, peek: true, pop: true,
          quickActions: [QuickAction(title: "Reply"), QuickAction(title: "Archive")]))
    }
    regions = try! RegionMap(items: items, panelWidth_mm: 160, panelHeight_mm: 100)
    self.touches = touches
    var table: [TrackedTouch] = []
    var active: [Bool] = []
    for f in 0..<StageScript.frames {
      for k in 0..<touches {
        let local = (f + k * 37) % StageScript.cycle
        let round = (f + k * 37) / StageScript.cycle
        let id = UInt32(1 + round * touches + k)
        let force: Double
        switch local {
        case 0..<320: force = 0.1 + 4.9 * Double(local) / 320
        case 320..<480: force = 5.0
        case 480..<600: force = 5.0 * Double(600 - local) / 120
        default: force = 0
        }
        let phase: TouchPhase = local == 0 ? .began : (local == 600 ? .ended : (local % 3 == 0 ? .moved : .stationary))
        table.append(
          TrackedTouch(
            id: id, phase: phase, x: Length_um(millimetres: 20 + Double(k) * 12 + Double(local % 5) * 0.1),
            y: Length_um(millimetres: Double(k) * 10 + 5), force: Force_mN(newtons: force)))
        active.append(local <= 600)
      }
    }
    self.table = table
    self.active = active
  }

  /// The touches of the next frame, as the tracker would report them.
  @inline(__always)
  func fill(_ report: inout FrameReport, frame: inout Int) {
    report.removeAll()
    report.time = Time_us(rawValue: Int64(frame) * 3125)
    report.frame = UInt64(frame)
    let f = frame % StageScript.frames
    for k in 0..<touches where active[f * touches + k] {
      report.append(TouchReport(touch: table[f * touches + k]))
    }
    frame += 1
  }
}

/// A bus that takes every transfer: reads return 0 (MODE: running) except
/// STATUS (a DRV2605L). Counts the bytes.
struct NullBus: I2CBus {
  var bytes = 0
  var pointer: UInt8 = 0
  mutating func write(_ bytes: UnsafeRawBufferPointer, to address: I2CAddress) throws(I2CError) {
    self.bytes &+= bytes.count
  }
  mutating func read(into buffer: UnsafeMutableRawBufferPointer, from address: I2CAddress) throws(I2CError) {
    for i in 0..<buffer.count { buffer[i] = 0 }
  }
  mutating func writeRead(
    _ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer, address: I2CAddress
  ) throws(I2CError) {
    self.bytes &+= bytes.count + buffer.count
    let status = bytes.first == 0
    for i in 0..<buffer.count { buffer[i] = status ? 0xE0 : 0 }
  }
}
