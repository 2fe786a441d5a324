// The firmware: runs a core script (CoreRunner) from the emulator's host
// and writes its trace there, both through semihosting.
//
//   qemu-system-arm -M mps2-an386 -icount shift=0 -nographic -kernel firmware.elf \
//     -semihosting-config enable=on,target=native,arg=firmware,arg=SCRIPT,arg=TRACE
//
// Standard error gets one line of measurements: frames, SysTick ticks inside
// each frame's touch stack (TouchFrame.process: all frames, and the largest
// frame) and inside ForcePipeline.process alone (likewise), the ticks of a
// loop of known length (to turn ticks into instructions), the stack used
// inside a frame, the whole run's stack high-water, and the size of the
// core's state and of the whole run's (static storage, not the stack).
import CoreRunner
import ForceCore

@_extern(c, "systick_now") func systickNow() -> UInt32
@_extern(c, "instruction_loop") func instructionLoop(_ n: UInt32)
@_extern(c, "stack_high_water") func stackHighWater() -> UInt32
@_extern(c, "stack_size") func stackSize() -> UInt32
@_extern(c, "stack_mark") func stackMark()
@_extern(c, "stack_since_mark") func stackSinceMark() -> UInt32

/// SysTick ticks inside each frame (the touch stack) and inside its
/// `ForcePipeline.process`, the sums and the largest frame's, and the most
/// stack a frame used.
struct SysTickMeter: FrameMeter {
  var frameStart: UInt32 = 0
  var coreStart: UInt32 = 0
  var total: UInt64 = 0
  var largest: UInt32 = 0
  var coreTotal: UInt64 = 0
  var coreLargest: UInt32 = 0
  var stack: UInt32 = 0

  mutating func willProcessFrame() {
    stackMark()
    frameStart = systickNow()
  }

  mutating func didProcessFrame() {
    let ticks = (frameStart &- systickNow()) & 0xFF_FFFF  // counts down, 24 bits
    total &+= UInt64(_truncatingBits: UInt(ticks))
    if ticks > largest { largest = ticks }
    let used = stackSinceMark()
    if used > stack { stack = used }
  }

  mutating func willProcessCore() { coreStart = systickNow() }

  mutating func didProcessCore() {
    let ticks = (coreStart &- systickNow()) & 0xFF_FFFF
    coreTotal &+= UInt64(_truncatingBits: UInt(ticks))
    if ticks > coreLargest { coreLargest = ticks }
  }
}

@_extern(c, "run_state_address") func runStateAddress() -> UnsafeMutableRawPointer
@_extern(c, "run_state_capacity") func runStateCapacity() -> UInt32

/// The words of the semihosting command line (`arg=` options), each
/// NUL-terminated in place.
struct Arguments {
  var bytes: InlineArray<512, UInt8> = InlineArray(repeating: 0)
  var starts: InlineArray<4, Int> = InlineArray(repeating: 0)
  var lengths: InlineArray<4, Int> = InlineArray(repeating: 0)
  var count = 0

  mutating func read() -> Bool {
    var span = bytes.mutableSpan
    let n = span.withUnsafeMutableBytes { Semihosting.commandLine($0) }
    guard n >= 0 else { return false }
    var i = 0
    while i < n && i < 511 && count < 4 {
      while i < n && bytes[i] == 32 { i += 1 }
      guard i < n else { break }
      starts[count] = i
      while i < n && bytes[i] != 32 && bytes[i] != 0 { i += 1 }
      lengths[count] = i - starts[count]
      bytes[i] = 0
      i += 1
      count += 1
    }
    return true
  }

  /// Opens argument `index` as a file.
  mutating func open(_ index: Int, mode: Int32) -> Int32 {
    let start = starts[index]
    let length = lengths[index]
    var span = bytes.mutableSpan
    return span.withUnsafeMutableBytes { raw in
      Semihosting.open(raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, length: length, mode: mode)
    }
  }
}

/// Writes `text` and `value`s to standard error.
struct Console {
  var out = SemihostedFile(handle: -1)

  init() {
    var tt: (UInt8, UInt8, UInt8, UInt8) = (58, 116, 116, 0)  // ":tt"
    let handle = withUnsafeMutableBytes(of: &tt) {
      Semihosting.open($0.baseAddress!.assumingMemoryBound(to: UInt8.self), length: 3, mode: 8)
    }
    out = SemihostedFile(handle: handle)
  }

  func text(_ s: StaticString) { _ = out.write(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)) }

  func number(_ v: UInt64) {
    var digits: InlineArray<21, UInt8> = InlineArray(repeating: 32)
    var n = 20
    var m = v
    repeat {
      let q = m / 10
      digits[n] = 48 &+ UInt8(truncatingIfNeeded: m &- q &* 10)
      n -= 1
      m = q
    } while m != 0
    var span = digits.mutableSpan
    _ = span.withUnsafeMutableBytes { raw in out.write(UnsafeRawBufferPointer(rebasing: raw[n...])) }
  }

  func field(_ name: StaticString, _ v: UInt64) {
    text(name)
    number(v)
  }
}

@_cdecl("firmware_main")
func firmwareMain() -> Int32 {
  let console = Console()
  var arguments = Arguments()
  guard arguments.read(), arguments.count == 3 else {
    console.text("firmware: usage: firmware SCRIPT TRACE (semihosting arguments)\n")
    return 64
  }
  let input = arguments.open(1, mode: 0)
  let output = arguments.open(2, mode: 4)
  guard input >= 0, output >= 0 else {
    console.text("firmware: cannot open the script or the trace\n")
    return 1
  }
  // The yardstick: ticks for a loop of 2 * 10^6 instructions.
  let before = systickNow()
  instructionLoop(1_000_000)
  let yardstick = (before &- systickNow()) & 0xFF_FFFF

  // The run's state (the touch stack, the script's setup, the buffers) in
  // static storage (startup.c), cleared at reset: an empty CoreRunState,
  // which CoreRun.run sets up in place. Nothing large is on the stack.
  guard CoreRunState.bytes <= Int(bitPattern: UInt(runStateCapacity())) else {
    console.text("firmware: the run state does not fit its static storage (startup.c, RUN_STATE_BYTES)\n")
    return 1
  }
  let state = runStateAddress().bindMemory(to: CoreRunState.self, capacity: 1)
  var source = SemihostedFile(handle: input)
  var sink = SemihostedFile(handle: output)
  var meter = SysTickMeter()
  let frames: Int
  do throws(CoreScriptError) {
    frames = try CoreRun.run(&source, &sink, meter: &meter, state: &state.pointee)
  } catch {
    console.text("firmware: script line")
    console.number(UInt64(_truncatingBits: UInt(bitPattern: error.line)))
    console.text(": ")
    console.text(error.message)
    console.text("\n")
    return 1
  }
  Semihosting.close(input)
  Semihosting.close(output)
  console.field("firmware: frames", UInt64(_truncatingBits: UInt(bitPattern: frames)))
  console.field(" process_ticks", meter.total)
  console.field(" largest_frame_ticks", UInt64(_truncatingBits: UInt(meter.largest)))
  console.field(" core_ticks", meter.coreTotal)
  console.field(" largest_core_ticks", UInt64(_truncatingBits: UInt(meter.coreLargest)))
  console.field(" yardstick_ticks", UInt64(_truncatingBits: UInt(yardstick)))
  console.field(" yardstick_instructions", 2_000_000)
  console.field(" process_stack", UInt64(_truncatingBits: UInt(meter.stack)))
  console.field(" stack_high_water", UInt64(_truncatingBits: UInt(stackHighWater())))
  console.field(" stack_size", UInt64(_truncatingBits: UInt(stackSize())))
  console.field(" pipeline_bytes", UInt64(_truncatingBits: UInt(bitPattern: CoreRunState.pipelineBytes)))
  console.field(" state_bytes", UInt64(_truncatingBits: UInt(bitPattern: CoreRunState.bytes)))
  console.text("\n")
  return 0
}
