// ForceCore's instructions per frame on the benchmark's fixture
// (ForceCoreBenchmarks' frames, seeded the same way), for callgrind:
//
//   ForceCoreCount CELLS FRAMES
//
// seeds a pipeline with one pass over the 2000 fixture frames, then runs
// FRAMES more through `countedFrames` (looped, as the benchmark does);
// count with `valgrind --tool=callgrind --toggle-collect='*countedFrames*'`
// and divide by FRAMES. Prints a hash of the fixture's frames, so two builds
// can be shown to run the same input, and a hash of what the pipeline made
// of them (every frame's outcome, forces, contacts and gate through the
// seeding pass and one more uncounted pass after the counted frames, then
// each cell's baseline and noise), so two builds can be shown to give the
// same output.
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
var output: UInt64 = 0xcbf2_9ce4_8422_2325
func mix(_ output: inout UInt64, _ v: Int64) { output = (output ^ UInt64(bitPattern: v)) &* 0x100_0000_01b3 }
func mixOutputs(_ output: inout UInt64, _ p: inout ForcePipeline) {
  func mix(_ v: Int64) { ForceCoreCount.mix(&output, v) }
  switch p.outcome {
  case .seeding: mix(1)
  case .invalid: mix(2)
  case .measured: mix(3)
  }
  mix(p.touched ? 1 : 0)
  mix(p.loadAbsorbed ? 1 : 0)
  for c in 0..<p.cellCount { mix(Int64(p.image[c].rawValue)) }
  let list = p.contacts
  mix(Int64(list.count))
  for i in 0..<list.count {
    let c = list[i]
    for v in [c.x.rawValue, c.y.rawValue, c.force.rawValue, Int32(c.peakCell), Int32(c.cellCount), c.snr_Q8,
      c.noise.rawValue, c.positionNoise.rawValue, c.merged ? 1 : 0, c.spread.rawValue] { mix(Int64(v)) }
  }
}
for i in frames.indices {
  pipeline.process(&frames[i])
  mixOutputs(&output, &pipeline)
}
let contacts = countedFrames(&pipeline, &frames, n)
for i in frames.indices {
  pipeline.process(&frames[i])
  mixOutputs(&output, &pipeline)
}
for c in 0..<pipeline.cellCount {
  mix(&output, pipeline.baseline(of: c).rawValue)
  mix(&output, Int64(pipeline.noise(of: c).rawValue))
  mix(&output, Int64(pipeline.noise.sigma[c]))
}
print(
  "cells \(cells) frames \(n) fixture hash \(String(hash, radix: 16)) contacts \(contacts)"
    + " output hash \(String(output, radix: 16))")
