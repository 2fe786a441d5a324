/// The report lines of a run, newest last, in storage sized at setup: a
/// byte ring holding the lines back to back and a ring of entries saying
/// where each one is. Appending never waits and never allocates: when
/// either ring is full the oldest lines give way. Readers keep a cursor and
/// take lines at their own pace; one that falls behind the oldest line
/// still held has lost the lines in between (`Cursor.dropped`).
///
/// A line is *loud* when its frame has a touch or an event: clients of
/// the plain stream read only those, clients of the idle stream every
/// line. Not thread-safe: `ServeHub` holds it under its lock.
struct LineRing: ~Copyable {
  struct Entry {
    var offset: Int
    var count: Int
    /// Loud lines appended before this one.
    var loudBefore: UInt64
    var loud: Bool
  }

  /// Where a reader is: the next line to read and the next loud line's
  /// number (loud lines counted from the first).
  struct Cursor: Sendable {
    var sequence: UInt64
    var loud: UInt64
  }

  let bytes: UnsafeMutablePointer<UInt8>
  let byteCapacity: Int
  let entries: UnsafeMutablePointer<Entry>
  let entryCapacity: Int
  /// The sequence number the next line gets.
  private(set) var next: UInt64 = 0
  /// The oldest line still held.
  private(set) var oldest: UInt64 = 0
  /// Loud lines appended so far.
  private(set) var loudCount: UInt64 = 0
  var writeAt = 0

  init(bytes: Int, lines: Int) {
    byteCapacity = max(bytes, 1)
    entryCapacity = max(lines, 1)
    self.bytes = .allocate(capacity: byteCapacity)
    entries = .allocate(capacity: entryCapacity)
  }

  deinit {
    bytes.deallocate()
    entries.deallocate()
  }

  /// A cursor at the end: it reads the lines appended from now on.
  var end: Cursor { Cursor(sequence: next, loud: loudCount) }

  /// Appends `line`, letting the oldest lines go to make room. Returns
  /// false (and appends nothing) for a line longer than the whole ring.
  mutating func append(_ line: UnsafeBufferPointer<UInt8>, loud: Bool) -> Bool {
    let n = line.count
    guard n <= byteCapacity, let source = line.baseAddress else { return n == 0 }
    // The line goes at writeAt, or at 0 when it does not fit before the
    // end; then the tail it skips is given up too.
    let at = writeAt + n <= byteCapacity ? writeAt : 0
    let skipFrom = at == 0 ? writeAt : byteCapacity
    while oldest < next {
      let e = entries[slot(oldest)]
      let overlaps = e.offset < at + n && at < e.offset + e.count
      let skipped = e.offset + e.count > skipFrom
      guard overlaps || skipped || next - oldest >= UInt64(entryCapacity) else { break }
      oldest += 1
    }
    (bytes + at).update(from: source, count: n)
    entries[slot(next)] = Entry(offset: at, count: n, loudBefore: loudCount, loud: loud)
    writeAt = at + n
    next += 1
    if loud { loudCount += 1 }
    return true
  }

  /// The next line for `cursor` (only loud lines when `loudOnly`), handed
  /// to `body` in place; the cursor moves past it, and past lines lost
  /// since it last read, which are added to `dropped`. Nil when the
  /// cursor is at the end.
  ///
  /// After a loss, the first line still held is read even when it is not
  /// loud: each report lists every touch still down, so the reader learns
  /// which touches ended in the lines it lost (a touch whose `ended` was
  /// lost is missing from it), also when the panel has gone quiet since.
  mutating func read<R>(
    _ cursor: inout Cursor, loudOnly: Bool, dropped: inout UInt64, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R? {
    var resync = false
    if cursor.sequence < oldest {
      let first = entries[slot(oldest)]
      let lost = loudOnly ? first.loudBefore - cursor.loud : oldest - cursor.sequence
      dropped += lost
      resync = lost > 0
      cursor = Cursor(sequence: oldest, loud: first.loudBefore)
    }
    while cursor.sequence < next {
      let e = entries[slot(cursor.sequence)]
      cursor.sequence += 1
      if e.loud { cursor.loud = e.loudBefore + 1 }
      if loudOnly && !e.loud && !resync { continue }
      return body(UnsafeBufferPointer(start: bytes + e.offset, count: e.count))
    }
    return nil
  }

  /// Whether `cursor` has a line to read (a lost line counts: reading
  /// tells the loss).
  func hasLine(for cursor: Cursor, loudOnly: Bool) -> Bool {
    loudOnly ? cursor.loud < loudCount : cursor.sequence < next
  }

  /// Lines appended that `cursor` has not read (loud ones when
  /// `loudOnly`): what a reader that leaves now never gets.
  func unread(_ cursor: Cursor, loudOnly: Bool) -> UInt64 {
    loudOnly ? loudCount - min(cursor.loud, loudCount) : next - min(cursor.sequence, next)
  }

  @inline(__always)
  func slot(_ sequence: UInt64) -> Int { Int(sequence % UInt64(entryCapacity)) }
}
