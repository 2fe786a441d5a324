// ForceCore's instructions per frame on the benchmark's fixture
// (ForceCoreBenchmarks' frames, seeded the same way), for callgrind:
//
//   ForceCoreCount CELLS FRAMES
//
// seeds a pipeline with one pass over the 2000 fixture frames, then runs
// FRAMES more through `countedFrames` (looped, as the benchmark does);
// count with `valgrind --tool=callgrind --toggle-collect='*countedFrames*'`
// and divide by FRAMES. Prints a hash of the fixture's frames, so two builds
// can be shown to run the same input.
import DoubleReference
import ForceCore
import PanelFirmware

@inline(never)
func countedFrames(_ pipeline: inout ForcePipeline, _ frames: inout [RawFrame], _ n: Int) -> Int {
  var i = 0
  var contacts = 0
  for _ in 0..<n {
    pipeline.process(&frames[i])
    contacts &+= pipeline.contacts.count
    i = i + 1 == frames.count ? 0 : i + 1
  }
  return contacts
}

let arguments = CommandLine.arguments
let cells = arguments.count > 1 ? Int(arguments[1]) ?? 48 : 48
let n = arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000
let board = BenchmarkFixtures.board(cells: cells)
var frames = BenchmarkFixtures.frames(board, count: 2000)
var hash: UInt64 = 0xcbf2_9ce4_8422_2325
for f in frames {
  for c in 0..<f.cellCount { hash = (hash ^ UInt64(UInt32(bitPattern: f.counts[c]))) &* 0x100_0000_01b3 }
  hash = (hash ^ UInt64(UInt32(bitPattern: f.temperature.rawValue))) &* 0x100_0000_01b3
}
var pipeline = ForcePipeline(
  geometry: board.geometry, calibration: BenchmarkFixtures.calibration(board).coreCalibration,
  configuration: board.coreConfiguration)
for i in frames.indices { pipeline.process(&frames[i]) }
let contacts = countedFrames(&pipeline, &frames, n)
print("cells \(cells) frames \(n) fixture hash \(String(hash, radix: 16)) contacts \(contacts)")
