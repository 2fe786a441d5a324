// The whole frame path's instructions per frame on the benchmark's fixture
// (FramePathBenchmarks' loop: frame -> ForceCore -> contacts -> tracker ->
// interaction -> NDJSON bytes, seeded the same way), for callgrind:
//
//   FramePathCount CELLS TOUCHES FRAMES
//
// runs 2000 frames to seed, then FRAMES more through `countedFrames`; count
// with `valgrind --tool=callgrind --toggle-collect='*countedFrames*'` and
// divide by FRAMES; ForceCore's share is `ForcePipeline.process`'s
// inclusive cost (count.sh --path). Prints a hash of the fixture's frames
// and of the NDJSON bytes made in the seeding pass and in one more
// uncounted pass after the counted frames, so two builds can be shown to
// run the same input and give the same output; and the counted loop's
// wall-clock time a frame (meaningful without valgrind only).
import DoubleReference
import PanelFirmware

@inline(never)
func countedFrames(
  _ loop: ScanLoop<LoopedFrames>, _ encoder: NDJSONEncoder, _ buffer: ByteBuffer, _ n: Int
) throws -> Int {
  var bytes = 0
  for _ in 0..<n {
    _ = try loop.step()
    loop.withReport { r in if !r.isEmpty { encoder.encode(&r, into: buffer) } }
    bytes &+= buffer.count
    buffer.removeAll()
  }
  return bytes
}

/// FNV-1a over the buffer's bytes.
func mixBytes(_ output: inout UInt64, _ buffer: ByteBuffer) {
  for b in buffer.bytes { output = (output ^ UInt64(b)) &* 0x100_0000_01b3 }
}

/// One pass over the fixture's 2000 frames, the NDJSON bytes hashed.
func uncountedPass(
  _ loop: ScanLoop<LoopedFrames>, _ encoder: NDJSONEncoder, _ buffer: ByteBuffer, _ output: inout UInt64
) throws -> Int {
  var most = 0
  for _ in 0..<2000 {
    _ = try loop.step()
    most = max(most, loop.report.touchCount)
    loop.withReport { r in if !r.isEmpty { encoder.encode(&r, into: buffer) } }
    mixBytes(&output, buffer)
    buffer.removeAll()
  }
  return most
}

let arguments = CommandLine.arguments
let cells = arguments.count > 1 ? Int(arguments[1]) ?? 48 : 48
let fingers = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0
let n = arguments.count > 3 ? Int(arguments[3]) ?? 2000 : 2000
let board = BenchmarkFixtures.board(cells: cells)
let frames = BenchmarkFixtures.frames(board, count: 2000, fingers: fingers)
var hash: UInt64 = 0xcbf2_9ce4_8422_2325
for f in frames {
  for c in 0..<f.cellCount { hash = (hash ^ UInt64(UInt32(bitPattern: f.counts[c]))) &* 0x100_0000_01b3 }
  hash = (hash ^ UInt64(UInt32(bitPattern: f.temperature.rawValue))) &* 0x100_0000_01b3
}
let loop = ScanLoop(
  source: LoopedFrames(frames), board: board, calibration: BenchmarkFixtures.calibration(board))
let encoder = NDJSONEncoder(interaction: board.interaction)
let buffer = ByteBuffer(capacity: 64 * 1024)
var output: UInt64 = 0xcbf2_9ce4_8422_2325
let most = try uncountedPass(loop, encoder, buffer, &output)
precondition(fingers == 0 || most == fingers, "\(most) of the scenario's \(fingers) touches found")
let start = ContinuousClock.now
let bytes = try countedFrames(loop, encoder, buffer, n)
let elapsed = ContinuousClock.now - start
_ = try uncountedPass(loop, encoder, buffer, &output)
print(
  "cells \(cells) touches \(fingers) frames \(n) fixture hash \(String(hash, radix: 16)) bytes \(bytes)"
    + " output hash \(String(output, radix: 16))"
    + " ns a frame \((elapsed / n).components.attoseconds / 1_000_000_000)")
