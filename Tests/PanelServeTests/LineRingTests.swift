import Testing

@testable import PanelServe

/// The ring the scan loop writes and every client reads at its own pace:
/// order, the loud-only filter, and the oldest lines giving way (counted)
/// when a reader falls behind, by entries or by bytes.
@Suite struct LineRingTests {
  @Test func readersGetEveryLineInOrderAndQuietOnesOnlyWhenAsked() {
    var ring = LineRing(bytes: 1024, lines: 16)
    var all = ring.end
    var loud = ring.end
    #expect(append(&ring, "a"))
    #expect(append(&ring, "quiet", loud: false))
    #expect(append(&ring, "b"))
    var dropped: UInt64 = 0
    var seen: [String] = []
    while let line = read(&ring, &all, dropped: &dropped) { seen.append(line) }
    #expect(seen == ["a", "quiet", "b"])
    seen = []
    while let line = read(&ring, &loud, loudOnly: true, dropped: &dropped) { seen.append(line) }
    #expect(seen == ["a", "b"])
    #expect(dropped == 0)
    #expect(!ring.hasLine(for: all, loudOnly: false) && !ring.hasLine(for: loud, loudOnly: true))
    // A reader that joins now starts with the next line.
    var late = ring.end
    #expect(read(&ring, &late, dropped: &dropped) == nil)
  }

  @Test func aReaderThatFallsAWholeRingBehindLosesTheOldestLinesCounted() {
    var ring = LineRing(bytes: 1 << 16, lines: 8)
    var slow = ring.end
    var slowLoud = ring.end
    for i in 0..<20 { #expect(append(&ring, "line \(i)", loud: i % 2 == 0)) }
    var dropped: UInt64 = 0
    // 8 entries held: lines 12...19; 0...11 lost.
    #expect(read(&ring, &slow, dropped: &dropped) == "line 12")
    #expect(dropped == 12)
    var loudDropped: UInt64 = 0
    // Loud lines are the even ones: 0, 2, ..., 10 lost (6), 12 next.
    #expect(read(&ring, &slowLoud, loudOnly: true, dropped: &loudDropped) == "line 12")
    #expect(loudDropped == 6)
    #expect(read(&ring, &slowLoud, loudOnly: true, dropped: &loudDropped) == "line 14")
    #expect(ring.unread(slowLoud, loudOnly: true) == 2)
    #expect(ring.unread(slow, loudOnly: false) == 7)
  }

  @Test func longLinesPushOutAsManyOldOnesAsTheirBytesNeedAndTheRingWraps() {
    var ring = LineRing(bytes: 100, lines: 64)
    var reader = ring.end
    var dropped: UInt64 = 0
    let forty = String(repeating: "x", count: 39)
    for i in 0..<5 { #expect(append(&ring, "\(i)" + forty)) }
    // 100 bytes hold two 40-byte lines; the 5th went to the start again.
    var seen: [String] = []
    while let line = read(&ring, &reader, dropped: &dropped) { seen.append(String(line.prefix(1))) }
    #expect(seen == ["3", "4"])
    #expect(dropped == 3)
    // Every byte of what is held reads back intact after many wraps.
    for i in 0..<300 { #expect(append(&ring, "line \(i) " + String(repeating: "\(i % 10)", count: i % 23))) }
    var fresh = LineRing.Cursor(sequence: ring.oldest, loud: 0)
    dropped = 0
    var last = -1
    while let line = ring.read(&fresh, loudOnly: false, dropped: &dropped, { Array($0).text }) {
      let parts = line.split(separator: " ")
      let i = Int(parts[1])!
      #expect(i == last + 1 || last == -1)
      #expect(line == "line \(i) " + String(repeating: "\(i % 10)", count: i % 23))
      last = i
    }
    #expect(last == 299)
  }

  @Test func aLineLongerThanTheRingIsRefused() {
    var ring = LineRing(bytes: 8, lines: 4)
    #expect(!append(&ring, "123456789"))
    #expect(append(&ring, "12345678"))
    var reader = LineRing.Cursor(sequence: 0, loud: 0)
    var dropped: UInt64 = 0
    #expect(read(&ring, &reader, dropped: &dropped) == "12345678")
  }
}

/// After lines were lost, a reader of loud lines gets the first line
/// still held even when it is quiet: a report lists every touch still
/// down, so the reader learns of the touches that ended in what it lost.
@Suite struct LineRingResyncTests {
  @Test func aLossIsFollowedByTheNextLineEvenWhenQuiet() {
    var ring = LineRing(bytes: 1 << 16, lines: 2)
    var cursor = ring.end
    var dropped: UInt64 = 0
    #expect(append(&ring, "touch 1 began"))
    #expect(append(&ring, "touch 1 moved"))
    #expect(append(&ring, "touch 1 ended"))
    for i in 0..<3 { #expect(append(&ring, "quiet \(i)", loud: false)) }
    // The ring holds the last two lines, both quiet: the touch's end was lost.
    #expect(read(&ring, &cursor, loudOnly: true, dropped: &dropped) == "quiet 1")
    #expect(dropped == 3)
    #expect(read(&ring, &cursor, loudOnly: true, dropped: &dropped) == nil, "then loud lines only again")
    // Nothing lost: quiet lines stay unread.
    var other = ring.end
    #expect(append(&ring, "quiet 3", loud: false))
    #expect(read(&ring, &other, loudOnly: true, dropped: &dropped) == nil)
  }
}
