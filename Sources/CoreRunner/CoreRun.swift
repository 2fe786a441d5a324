import ForceCore

/// Brackets each frame's `ForcePipeline.process` (a cycle counter on a
/// microcontroller); nothing else of the run is inside.
public protocol FrameMeter {
  mutating func willProcess()
  mutating func didProcess()
}

/// No measuring.
public struct NoMeter: FrameMeter {
  public init() {}
  @inline(__always) public func willProcess() {}
  @inline(__always) public func didProcess() {}
}

/// Runs ForceCore on a core script and writes its trace: the one entry
/// point that a host (`panelctl core run`) and a microcontroller
/// (Firmware/) both run, so that their traces can be compared byte for byte.
///
/// The trace has one line per frame,
///
///     <index> <t_us> <outcome s|m|i> <touched 0|1> <absorbed 0|1> <image> <n> [<x_um> <y_um> <force_mN_Q10> <peakCell> <cellCount>] x n
///
/// (`outcome`: seeding, measured, invalid; `image`: FNV-1a of every cell's
/// force, in hexadecimal; the contacts strongest first),
/// then one line of the core's health counters:
///
///     health <frames> <invalid> <spikes> <saturated> <reseeds> <absorbed>
public enum CoreRun {
  /// Runs the script from `source`, writing the trace to `sink`. Returns the
  /// number of frames. Allocates nothing; the pipeline lives on the stack.
  public static func run<S: ByteSource, W: ByteSink, M: FrameMeter>(
    _ source: inout S, _ sink: inout W, meter: inout M
  ) throws(CoreScriptError) -> Int {
    var reader = LineReader()
    var setup = ScriptSetup()
    try readSetup(&reader, &source, &setup)
    try setup.check(line: reader.number)
    var pipeline = ForcePipeline(
      geometry: setup.geometry!, calibration: setup.calibration, configuration: setup.configuration,
      coupling: setup.coupling)
    return try runFrames(&reader, &source, &sink, &pipeline, &meter)
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
    _ reader: inout LineReader, _ source: inout S, _ sink: inout W, _ pipeline: inout ForcePipeline,
    _ meter: inout M
  ) throws(CoreScriptError) -> Int {
    var out = LineWriter()
    var frame = RawFrame(cellCount: pipeline.cellCount)
    var frames = 0
    while true {
      var tokens = Tokens(reader)
      if let keyword = tokens.next(&reader), reader.bytes[keyword.lowerBound] != 35 {  // not blank, #
        guard reader.word(keyword, is: "frame") else {
          throw CoreScriptError(line: reader.number, message: "a setup line after the first frame")
        }
        try reader.readFrame(&tokens, into: &frame, cells: pipeline.cellCount)
        meter.willProcess()
        pipeline.process(&frame)
        meter.didProcess()
        writeFrame(frames, &frame, &pipeline, &out, &sink)
        frames += 1
        if out.failed { throw CoreScriptError(line: 0, message: "the trace could not be written") }
      }
      guard try advance(&reader, &source) else {
        writeHealth(&pipeline, &out, &sink)
        out.flush(&sink)
        if out.failed { throw CoreScriptError(line: 0, message: "the trace could not be written") }
        return frames
      }
    }
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

  static func writeFrame<W: ByteSink>(
    _ index: Int, _ frame: inout RawFrame, _ p: inout ForcePipeline, _ out: inout LineWriter, _ sink: inout W
  ) {
    out.decimal(Wide.int64(index), &sink)
    out.field(frame.time.rawValue, &sink)
    out.byte(32, &sink)
    switch p.outcome {
    case .seeding: out.byte(115, &sink)
    case .measured: out.byte(109, &sink)
    case .invalid: out.byte(105, &sink)
    }
    out.field(p.touched ? 1 : 0, &sink)
    out.field(p.loadAbsorbed ? 1 : 0, &sink)
    var hash = StateHash()
    let image = p.image
    for k in 0..<min(p.cellCount, Capacity.cells) { hash.add(Wide.int64(Int(image[k].rawValue))) }
    out.hex(hash.value, &sink)
    let contacts = p.contacts
    out.field(Wide.int64(contacts.count), &sink)
    for i in 0..<contacts.count {
      let c = contacts[i]
      out.field(Wide.int64(Int(c.x.rawValue)), &sink)
      out.field(Wide.int64(Int(c.y.rawValue)), &sink)
      out.field(Wide.int64(Int(c.force.rawValue)), &sink)
      out.field(Wide.int64(Int(c.peakCell)), &sink)
      out.field(Wide.int64(Int(c.cellCount)), &sink)
    }
    out.endLine(&sink)
  }

  static func writeHealth<W: ByteSink>(_ p: inout ForcePipeline, _ out: inout LineWriter, _ sink: inout W) {
    let h = p.health
    out.text("health", &sink)
    func count(_ v: UInt32) { out.field(Int64(_truncatingBits: UInt(v)), &sink) }
    count(h.frames)
    count(h.invalidFrames)
    count(h.spikes)
    count(h.saturatedSamples)
    count(h.reseeds)
    count(h.absorbedLoads)
    out.endLine(&sink)
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
