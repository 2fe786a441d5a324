import FuzzSupport
import PanelFirmware

// A recording as replay reads it: written to a file (named `.partial` for
// inputs of odd length, so the cut-off last row is exercised too) and read
// row by row to its end or its first error.
let plain = scratchDirectory + "/fuzz.csv"
let partial = scratchDirectory + "/fuzz.csv.partial"

runFuzzer { data, size in
  let path = size % 2 == 0 ? plain : partial
  writeFile(input(data, size), to: path)
  guard var reader = try? RecordingReader(path: path) else { return 0 }
  let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reader.header.cellCount)
  defer { counts.deallocate() }
  while true {
    do {
      guard let row = try reader.next(into: counts) else { break }
      precondition(row.tUs.magnitude <= RecordingReader.maxTime_us.magnitude)
    } catch {
      break
    }
  }
  _ = reader.cutOffNote
  return 0
}
