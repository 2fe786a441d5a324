import Foundation
import PanelFactory
import PanelFirmware
import PanelTestSupport
import Testing

/// The station's queue: what a run that dies at each point leaves, and how
/// the next run settles it.
@Suite struct RowQueueTests {
  static func entry(_ id: String, file: String, text: String) -> QueueEntry {
    var row = CalibrationRow(id: id)
    row.serial = "P-1"
    row.endedAt = FactoryTime.now()
    row.model = CalibrationRow.Model(format: "test/1", bytes: Array("model".utf8))
    return QueueEntry(row: row, files: [CommittedFile(path: file, text: text)])
  }

  @Test func aRunThatCommittedBecomesARowAndOneThatDidNotIsDropped() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    let queue = RowQueue(directory: dir + "/factory.queue")
    // Run a: journaled, its file committed, then killed (the lock goes with it).
    var a: RowQueue.Pending? = try queue.begin(Self.entry("a", file: dir + "/a.toml", text: "record a"))
    try "record a".write(toFile: dir + "/a.toml", atomically: true, encoding: .utf8)
    // Run b: journaled, killed before its commit.
    var b: RowQueue.Pending? = try queue.begin(Self.entry("b", file: dir + "/b.toml", text: "record b"))
    // Run c: still running (holds its lock).
    let c = try queue.begin(Self.entry("c", file: dir + "/c.toml", text: "record c"))
    #expect(queue.count == (pending: 3, rows: 0))
    a = nil  // the descriptor closes: as if the process died
    b = nil
    _ = (a, b)
    let found = queue.recover()
    #expect(found == RowQueue.Recovery(completed: 1, dropped: 1, running: 1))
    #expect(queue.rows().map(\.entry.row.id) == ["a"])
    // c commits after all; its entry becomes a row.
    try "record c".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
    try c.committed()
    #expect(Set(queue.rows().map(\.entry.row.id)) == ["a", "c"])
    queue.remove("a")
    #expect(queue.rows().map(\.entry.row.id) == ["c"])
  }

  @Test func anEntryReadsBackAsWritten() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    let queue = RowQueue(directory: dir + "/q")
    var e = Self.entry(RowID.make(), file: dir + "/x", text: "x")
    e.row.checks = [CalibrationRow.Check(name: "noise", subject: "cell 0", value: 0.01, limit: 0.02, unit: "N", passed: true)]
    e.row.creep_pct = nil
    e.row.lot = "L1"
    try queue.enqueue(e)
    let read = try #require(queue.rows().first)
    #expect(read.entry == e)
    #expect(read.entry.row.model.isIntact)
    // A corrupt entry is an error naming its file, never a row.
    try "{not json".write(toFile: dir + "/q/bad.row", atomically: true, encoding: .utf8)
    #expect(throws: FileError.self) { try queue.load(dir + "/q/bad.row") }
    #expect(queue.rows().count == 1)
  }
}
