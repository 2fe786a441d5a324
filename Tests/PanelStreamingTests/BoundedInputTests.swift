import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelStreaming

#if canImport(Glibc)
  import Glibc
#endif

/// The pieces that bound what outside input can cost: `InputFile`, the
/// control channel's budget per poll, `Quote`, `WarningLimiter`, `FileSet`.
@Suite struct BoundedInputTests {
  @Test func inputFileRefusesWhatIsNotARegularFileWithoutBlocking() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let fifo = dir + "/pipe"
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(FilesTestSupport.failure { _ = try InputFile.open(fifo) } == "\(fifo): is a named pipe, not a regular file")
    // Where a pipe is meant, it opens at once though nobody writes.
    let fd = try InputFile.open(fifo, accepting: .regularFileOrPipe)
    close(fd)
    #expect(
      FilesTestSupport.failure { _ = try InputFile.open("/dev/null", accepting: .regularFileOrPipe) }
        == "/dev/null: is a character device, not a regular file or a named pipe")
    #expect(FilesTestSupport.failure { _ = try InputFile.open(dir) } == "\(dir): is a directory, not a file")
  }

  @Test func inputFileCapsWhatItReads() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/f"
    try Data(count: 100).write(to: URL(fileURLWithPath: path))
    let limit = InputFile.SizeLimit(bytes: 99, kind: "a test file")
    #expect(FilesTestSupport.failure { _ = try InputFile.read(path, limit: limit) } == "\(path): larger than 99 bytes (the limit for a test file)")
    #expect(try InputFile.read(path, limit: InputFile.SizeLimit(bytes: 100, kind: "a test file")).count == 100)
    // A file that says it is empty but is not (/proc) is capped while read.
    #expect(
      FilesTestSupport.failure { _ = try InputFile.read("/proc/self/maps", limit: InputFile.SizeLimit(bytes: 16, kind: "x")) }
        == "/proc/self/maps: larger than 16 bytes (the limit for x)")
  }

  @Test func aRecordingLineIsAtMostOneMebibyte() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/r.csv"
    try ("t_us,raw_0\n0," + String(repeating: "1", count: 2 << 20) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    var reader = try RecordingReader(path: path)
    let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 1)
    defer { counts.deallocate() }
    #expect(FilesTestSupport.failure { _ = try reader.next(into: counts) } == "\(path):2: line is longer than 1 MiB (the limit)")
  }

  @Test func aControlChannelTakesABoundedAmountPerPoll() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/c.control"
    try String(repeating: "sensitivity firm\n", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
    var channel = try ControlChannel(path: path, board: try Repo.board("sim-plate4"))
    defer { channel.close() }
    var counts: [Int] = []
    for k in 0..<8 {
      let (due, errors) = channel.poll(time: Time_us(rawValue: Int64(k) * 1000))
      #expect(errors.isEmpty)
      counts.append(due.count)
    }
    #expect(counts == [16, 16, 16, 16, 16, 16, 4, 0])
  }

  @Test func aControlChannelCapsTimedLines() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/c.control"
    try String(repeating: "at 5 force_touch off\n", count: ControlChannel.maxScheduled + 3)
      .write(toFile: path, atomically: true, encoding: .utf8)
    var channel = try ControlChannel(path: path, board: try Repo.board("sim-plate4"))
    defer { channel.close() }
    var errors: [FileError] = []
    for k in 0..<200 { errors += channel.poll(time: Time_us(rawValue: Int64(k))).errors }
    #expect(errors.count == 3)
    #expect(errors.first?.line == ControlChannel.maxScheduled + 1)
    // When they are due, at most 16 apply per poll.
    let due = channel.poll(time: Time_us(rawValue: 5_000_000)).due
    #expect(due.count == ControlChannel.maxLinesPerPoll)
  }

  @Test func quotesAreShortAndEscaped() {
    #expect(Quote.text("fast") == "\"fast\"")
    #expect(Quote.text(String(repeating: "a", count: 61)) == "\"" + String(repeating: "a", count: 60) + "\"...")
    #expect(Quote.text(String(repeating: "a", count: 60)) == "\"" + String(repeating: "a", count: 60) + "\"")
    #expect(Quote.text("a\u{1B}[2J\"\\\n\u{202E}") == #""a\u{1B}[2J\"\\\n\u{202E}""#)
    #expect(Quote.bytes([0x61, 0xFF, 0x62]) == "\"a\u{FFFD}b\"")
    let message = FileError(file: "f", line: 1, message: String(repeating: "m", count: 10_000) + "\u{7}")
    #expect(message.description.count <= Quote.maxLineCharacters + 3)
    #expect(!FileError(file: "f", message: "bell\u{7}").description.contains("\u{7}"))
  }

  @Test func warningsOfAKindAreTenAMinuteThenCounted() {
    var limiter = WarningLimiter()
    var shown = 0
    for i in 0..<1000 where limiter.admit("control line", now_us: Int64(i) * 1000) { shown += 1 }
    #expect(shown == 10)
    let other = limiter.admit("front end", now_us: 0)
    #expect(other)
    #expect(limiter.summary == ["990 control line warnings not shown (at most 10 a minute)"])
    // A minute later, ten more.
    let later = limiter.admit("control line", now_us: 61_000_000)
    #expect(later)
  }

  @Test func aFileSetCommitsItsFilesTogether() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let set = FileSet(directory: dir, names: ["a.txt", "b.txt"], runsName: "ab.runs")
    func read(_ name: String) -> String? { try? String(contentsOfFile: dir + "/" + name, encoding: .utf8) }
    let first = try set.prepare(["a.txt": Array("a1".utf8), "b.txt": Array("b1".utf8)])
    // Prepared is not visible.
    #expect(read("a.txt") == nil && read("b.txt") == nil)
    try first.commit()
    #expect(read("a.txt") == "a1" && read("b.txt") == "b1")
    // A prepared run discarded, and one left behind (as by a kill), change nothing.
    try set.prepare(["a.txt": Array("a2".utf8), "b.txt": Array("b2".utf8)]).discard()
    _ = try set.prepare(["a.txt": Array("a3".utf8), "b.txt": Array("b3".utf8)])
    #expect(read("a.txt") == "a1" && read("b.txt") == "b1")
    // The next run sweeps the leftover and commits.
    let next = try set.prepare(["a.txt": Array("a4".utf8), "b.txt": Array("b4".utf8)])
    try next.rewrite("b.txt", Array("b4 rewritten".utf8))
    try next.commit()
    #expect(read("a.txt") == "a4" && read("b.txt") == "b4 rewritten")
    let runs = try FilesTestSupport.contents(of: dir + "/ab.runs")
    #expect(runs.count == 2 && runs.contains("current"), "\(runs)")
  }
}
