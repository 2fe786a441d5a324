// ForceCore alone on a core script's frames, on the host: the frames read
// with CoreRunner's parser, then `ForcePipeline.process` over all of them
// `passes` times (a pipeline set up afresh each pass); prints the best
// pass's nanoseconds per frame. Built and run by Firmware/host/count.sh,
// which also counts its instructions under callgrind.
import ForceCore

#if canImport(Glibc)
  import Glibc
#endif

struct FileSource: ByteSource {
  let fd: Int32
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    Glibc.read(fd, buffer.baseAddress, buffer.count)
  }
}

final class Pipeline {
  var core: ForcePipeline
  init(_ core: ForcePipeline) { self.core = core }
}

func now_ns() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

@main struct HostCount {
  static func main() throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2 else {
      print("usage: host-count SCRIPT.core [PASSES]")
      exit(64)
    }
    let passes = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
    let fd = open(arguments[1], O_RDONLY)
    guard fd >= 0 else {
      print("host-count: cannot open \(arguments[1])")
      exit(1)
    }
    var source = FileSource(fd: fd)
    var reader = LineReader()
    var setup = ScriptSetup()
    try CoreRun.readSetup(&reader, &source, &setup)
    let cells = setup.geometry.cellCount
    var frames: [RawFrame] = []
    while true {
      var tokens = Tokens(reader)
      if let keyword = tokens.next(&reader), reader.word(keyword, is: "frame") {
        var frame = RawFrame(cellCount: cells)
        try reader.readFrame(&tokens, into: &frame, cells: cells)
        frames.append(frame)
      }
      guard try CoreRun.advance(&reader, &source) else { break }
    }
    var best = Double.infinity
    var contacts = 0
    for _ in 0..<passes {
      let pipeline = Pipeline(
        ForcePipeline(
          geometry: setup.geometry, calibration: setup.calibration, configuration: setup.configuration,
          coupling: setup.coupling))
      let start = now_ns()
      for i in frames.indices {
        pipeline.core.process(&frames[i])
        contacts &+= pipeline.core.contacts.count
      }
      best = min(best, (now_ns() - start) / Double(frames.count))
    }
    print("\(frames.count) frames, \(cells) cells: best of \(passes) passes \(Int(best)) ns a frame (contacts \(contacts))")
  }
}
