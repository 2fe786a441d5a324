import ForceCore
import PanelTouch

/// Brackets a frame: the whole touch stack (`willProcessFrame`,
/// `didProcessFrame`) and, inside it, ForceCore's part (`CoreMeter`): a
/// cycle counter on a microcontroller. Nothing else of the run is inside.
public protocol FrameMeter: CoreMeter {
  mutating func willProcessFrame()
  mutating func didProcessFrame()
}

/// No measuring.
public struct NoMeter: FrameMeter {
  public init() {}
  @inline(__always) public func willProcessFrame() {}
  @inline(__always) public func didProcessFrame() {}
  @inline(__always) public func willProcessCore() {}
  @inline(__always) public func didProcessCore() {}
}

/// Everything a run keeps: the script's setup, the touch stack (ForceCore's
/// pipeline, the tracker, the interaction, the frame's report), the frame
/// and the line buffers. About 120 kB at 256 cells: a firmware keeps it in
/// static storage (`CoreRun.run(_:_:meter:state:)` sets it up in place,
/// building nothing large on the stack); a host allocates it once.
public struct CoreRunState {
  var reader = LineReader()
  var setup = ScriptSetup()
  var pipeline = ForcePipeline()
  var tracker = Tracker(settings: TouchSettings.standard)
  var interaction = Interaction(
    settings: InteractionSettings(), rate_hz: 1, regions: .whole(panelWidth_mm: 0, panelHeight_mm: 0),
    failedCells: FailedCellEstimate())
  var report = FrameReport()
  var frame = RawFrame(cellCount: 0)
  var out = LineWriter()
  /// A map the script is giving (`region` lines between frames) until its
  /// `regions` line.
  var pending = RegionMap.whole(panelWidth_mm: 0, panelHeight_mm: 0)

  public init() {}

  /// `ForcePipeline`'s size and the whole state's, in bytes (a firmware's
  /// figures).
  public static var pipelineBytes: Int { MemoryLayout<ForcePipeline>.size }
  public static var bytes: Int { MemoryLayout<CoreRunState>.size }
}

/// Runs the touch stack on a core script and writes its trace: the one
/// entry point that a host (`panelctl core run`) and a microcontroller
/// (Firmware/) both run, so that their traces can be compared byte for
/// byte.
///
/// The trace has one line per frame,
///
///     <index> <t_us> <outcome s|m|i> <touched 0|1> <absorbed 0|1> <image> <n> [<x_um> <y_um> <force_mN_Q10> <peakCell> <cellCount>] x n
///
/// (`outcome`: seeding, measured, invalid; `image`: FNV-1a of every cell's
/// force, in hexadecimal; the contacts strongest first), followed, with
/// the touch layer, by the frame's report when it has touches or events:
///
///     report <index> <t_us> <capability> <reason> <sensitivity> <n> [<id> <phase> <cancel reason> <merged into> <x_um> <y_um> <force_mN_Q10> <stage> <progress> <item> <degraded>] x n <m> [<event> <touch> <item> <origin>] x m
///
/// (the enumerations' raw values, docs/firmware.md), then one line of the
/// core's health counters:
///
///     health <frames> <invalid> <spikes> <saturated> <reseeds> <absorbed>
public enum CoreRun {
  /// Runs the script from `source`, writing the trace to `sink`, with
  /// `state` as its storage (set up in place). Returns the number of
  /// frames. Allocates nothing.
  public static func run<S: ByteSource, W: ByteSink, M: FrameMeter>(
    _ source: inout S, _ sink: inout W, meter: inout M, state: inout CoreRunState
  ) throws(CoreScriptError) -> Int {
    state.reader.reset()
    state.setup.reset()
    state.out.count = 0
    state.out.failed = false
    try readSetup(&state.reader, &source, &state.setup)
    try state.setup.check(line: state.reader.number)
    setUp(&state)
    return try runFrames(&source, &sink, &meter, &state)
  }

  #if !hasFeature(Embedded)
    /// `run` with its state allocated here (on a host).
    public static func run<S: ByteSource, W: ByteSink, M: FrameMeter>(
      _ source: inout S, _ sink: inout W, meter: inout M
    ) throws(CoreScriptError) -> Int {
      let state = UnsafeMutablePointer<CoreRunState>.allocate(capacity: 1)
      state.initialize(to: CoreRunState())
      defer {
        state.deinitialize(count: 1)
        state.deallocate()
      }
      return try run(&source, &sink, meter: &meter, state: &state.pointee)
    }
  #endif

  /// The stack for the script's setup, in place.
  @inline(never)
  static func setUp(_ state: inout CoreRunState) {
    let c = state.setup.configuration
    state.pipeline.setUp(
      geometry: &state.setup.geometry, calibration: &state.setup.calibration, configuration: c,
      coupling: state.setup.coupling)
    state.frame.cellCount = state.setup.geometry.cellCount
    state.report.removeAll()
    state.pending = RegionMap.whole(panelWidth_mm: 0, panelHeight_mm: 0)
    guard state.setup.touchLayer else { return }
    state.tracker = Tracker(settings: state.setup.tracker)
    var columns = 0
    var rows = 0
    if case .grid(let gc, let gr, _) = state.setup.geometry.layout {
      columns = gc
      rows = gr
    }
    state.interaction.setUp(
      settings: state.setup.interaction, rate_hz: c.frameRate_hz, regions: state.setup.regions,
      calibrated: state.setup.calibrated, cellCount: state.setup.geometry.cellCount, x_mm: &state.setup.positionX,
      y_mm: &state.setup.positionY, columns: columns, rows: rows, pitch_mm: state.setup.pitch_mm,
      cellFloor: c.cellFloor)
  }

  /// Reads the setup into `setup`, up to the first `frame` line (left as
  /// the current line).
  @inline(never)
  static func readSetup<S: ByteSource>(_ reader: inout LineReader, _ source: inout S, _ setup: inout ScriptSetup)
    throws(CoreScriptError)
  {
    while true {
      guard try advance(&reader, &source) else {
        throw CoreScriptError(line: reader.number, message: "a script without frames")
      }
      var tokens = Tokens(reader)
      guard let keyword = tokens.next(&reader), reader.bytes[keyword.lowerBound] != 35 else { continue }  // blank, #
      if setup.sawHeader && reader.word(keyword, is: "frame") { return }
      try setup.read(&reader, keyword, &tokens)
    }
  }

  /// Runs the current `frame` line and every line after it.
  @inline(never)
  static func runFrames<S: ByteSource, W: ByteSink, M: FrameMeter>(
    _ source: inout S, _ sink: inout W, _ meter: inout M, _ state: inout CoreRunState
  ) throws(CoreScriptError) -> Int {
    var frames = 0
    let touchLayer = state.setup.touchLayer
    while true {
      var tokens = Tokens(state.reader)
      if let keyword = tokens.next(&state.reader), state.reader.bytes[keyword.lowerBound] != 35 {  // not blank, #
        if state.reader.word(keyword, is: "frame") {
          try state.reader.readFrame(&tokens, into: &state.frame, cells: state.pipeline.cellCount)
          if let declared = state.setup.frames, frames >= declared {
            throw CoreScriptError(line: state.reader.number, message: "more frames than the `frames` line says")
          }
          meter.willProcessFrame()
          if touchLayer {
            TouchFrame.process(
              &state.frame, number: UInt64(bitPattern: Int64(frames)), last: frames + 1 == state.setup.frames,
              pipeline: &state.pipeline, tracker: &state.tracker, interaction: &state.interaction,
              report: &state.report, meter: &meter)
          } else {
            meter.willProcessCore()
            state.pipeline.process(&state.frame)
            meter.didProcessCore()
          }
          meter.didProcessFrame()
          writeFrame(frames, &state, &sink)
          if touchLayer && !state.report.isEmpty { writeReport(&state, &sink) }
          frames += 1
        } else if touchLayer {
          try control(keyword, &tokens, &state)
        } else {
          throw CoreScriptError(line: state.reader.number, message: "a setup line after the first frame")
        }
        if state.out.failed { throw CoreScriptError(line: 0, message: "the trace could not be written") }
      }
      guard try advance(&state.reader, &source) else {
        // A script that ends before the frame its `frames` line named (or
        // has none): the touches still down are cancelled in a closing
        // report, as a host's stream that ends unannounced.
        if touchLayer && frames != state.setup.frames && frames > 0
          && TouchFrame.finish(
            time: Time_us(rawValue: Saturating.add(state.frame.time.rawValue, 1)),
            number: UInt64(bitPattern: Int64(frames)), tracker: &state.tracker, interaction: &state.interaction,
            report: &state.report)
        {
          writeReport(&state, &sink)
        }
        writeHealth(&state, &sink)
        state.out.flush(&sink)
        if state.out.failed { throw CoreScriptError(line: 0, message: "the trace could not be written") }
        return frames
      }
    }
  }

  /// A line between frames: what the host changes (from the next frame on).
  static func control(_ keyword: Range<Int>, _ tokens: inout Tokens, _ state: inout CoreRunState)
    throws(CoreScriptError)
  {
    let line = state.reader.number
    func fail(_ message: StaticString) -> CoreScriptError { CoreScriptError(line: line, message: message) }
    if state.reader.word(keyword, is: "sensitivity") {
      guard let word = tokens.next(&state.reader) else { throw fail("`sensitivity` without a value") }
      if state.reader.word(word, is: "light") {
        state.interaction.setSensitivity(.light)
      } else if state.reader.word(word, is: "medium") {
        state.interaction.setSensitivity(.medium)
      } else if state.reader.word(word, is: "firm") {
        state.interaction.setSensitivity(.firm)
      } else {
        throw fail("a sensitivity is light, medium or firm")
      }
    } else if state.reader.word(keyword, is: "force_touch") {
      guard let word = tokens.next(&state.reader), let v = state.reader.integer(word), v == 0 || v == 1 else {
        throw fail("`force_touch` is 0 or 1")
      }
      state.interaction.setForceTouch(v == 1)
    } else if state.reader.word(keyword, is: "region") {
      try state.reader.readRegion(&tokens, into: &state.pending)
    } else if state.reader.word(keyword, is: "regions") {
      state.interaction.replaceRegions(state.pending)
      state.pending = RegionMap.whole(panelWidth_mm: 0, panelHeight_mm: 0)
    } else {
      throw fail("not a line between frames (frame, sensitivity, force_touch, region, regions)")
    }
    guard tokens.isAtEnd(&state.reader) else { throw fail("more words than the line takes") }
  }

  /// Moves to the next line; false at the end of the script.
  static func advance<S: ByteSource>(_ reader: inout LineReader, _ source: inout S) throws(CoreScriptError) -> Bool {
    switch reader.advance(&source) {
    case .line: return true
    case .end: return false
    case .tooLong: throw CoreScriptError(line: reader.number + 1, message: "a line longer than 8192 bytes")
    case .readError: throw CoreScriptError(line: 0, message: "the script could not be read")
    }
  }

  static func writeFrame<W: ByteSink>(_ index: Int, _ state: inout CoreRunState, _ sink: inout W) {
    state.out.decimal(Wide.int64(index), &sink)
    state.out.field(state.frame.time.rawValue, &sink)
    state.out.byte(32, &sink)
    switch state.pipeline.outcome {
    case .seeding: state.out.byte(115, &sink)
    case .measured: state.out.byte(109, &sink)
    case .invalid: state.out.byte(105, &sink)
    }
    state.out.field(state.pipeline.touched ? 1 : 0, &sink)
    state.out.field(state.pipeline.loadAbsorbed ? 1 : 0, &sink)
    var hash = StateHash()
    for k in 0..<min(state.pipeline.cellCount, Capacity.cells) {
      hash.add(Wide.int64(Int(state.pipeline.image[k].rawValue)))
    }
    state.out.hex(hash.value, &sink)
    let contacts = state.pipeline.contacts
    state.out.field(Wide.int64(contacts.count), &sink)
    for i in 0..<contacts.count {
      let c = contacts[i]
      state.out.field(Wide.int64(Int(c.x.rawValue)), &sink)
      state.out.field(Wide.int64(Int(c.y.rawValue)), &sink)
      state.out.field(Wide.int64(Int(c.force.rawValue)), &sink)
      state.out.field(Wide.int64(Int(c.peakCell)), &sink)
      state.out.field(Wide.int64(Int(c.cellCount)), &sink)
    }
    state.out.endLine(&sink)
  }

  /// The frame's report (`report` line).
  static func writeReport<W: ByteSink>(_ state: inout CoreRunState, _ sink: inout W) {
    // (Int64's concrete conversions, ForceCore's Integers32.swift: the
    // standard library's generic ones allocate on 32-bit targets.)
    state.out.text("report", &sink)
    state.out.field(Int64(bitPattern: state.report.frame), &sink)
    state.out.field(state.report.time.rawValue, &sink)
    state.out.field(Int64(state.report.capability.state.rawValue), &sink)
    state.out.field(Int64(state.report.capability.reason.rawValue), &sink)
    state.out.field(TouchSettings.code(state.report.sensitivity), &sink)
    state.out.field(Int64(state.report.touchCount), &sink)
    for i in 0..<state.report.touchCount {
      let t = state.report[touch: i]
      state.out.field(Int64(t.touch.id), &sink)
      state.out.field(Int64(t.touch.phase.rawValue), &sink)
      state.out.field(Int64(t.touch.reason.rawValue), &sink)
      state.out.field(Int64(t.touch.mergedInto), &sink)
      state.out.field(Int64(t.touch.x.rawValue), &sink)
      state.out.field(Int64(t.touch.y.rawValue), &sink)
      state.out.field(Int64(t.touch.force.rawValue), &sink)
      state.out.field(Int64(t.stage.rawValue), &sink)
      state.out.field(Int64(t.progress_milli), &sink)
      state.out.field(Int64(t.item), &sink)
      state.out.field(t.degraded ? 1 : 0, &sink)
    }
    state.out.field(Int64(state.report.eventCount), &sink)
    for i in 0..<state.report.eventCount {
      let e = state.report[event: i]
      state.out.field(Int64(e.kind.rawValue), &sink)
      state.out.field(Int64(e.touch), &sink)
      state.out.field(Int64(e.item), &sink)
      state.out.field(Int64(e.origin.rawValue), &sink)
    }
    state.out.endLine(&sink)
  }

  static func writeHealth<W: ByteSink>(_ state: inout CoreRunState, _ sink: inout W) {
    let h = state.pipeline.health
    state.out.text("health", &sink)
    func count(_ v: UInt32, _ out: inout LineWriter) { out.field(Int64(_truncatingBits: UInt(v)), &sink) }
    count(h.frames, &state.out)
    count(h.invalidFrames, &state.out)
    count(h.spikes, &state.out)
    count(h.saturatedSamples, &state.out)
    count(h.reseeds, &state.out)
    count(h.absorbedLoads, &state.out)
    state.out.endLine(&sink)
  }
}

/// FNV-1a, 32 bits, over 64-bit values (little-endian bytes).
struct StateHash {
  var value: UInt32 = 0x811C_9DC5

  @inline(__always)
  mutating func add(_ v: Int64) {
    var bits = UInt64(bitPattern: v)
    for _ in 0..<8 {
      value = (value ^ UInt32(truncatingIfNeeded: bits & 0xFF)) &* 0x0100_0193
      bits &>>= 8
    }
  }
}
