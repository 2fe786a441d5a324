import FoundationEssentials
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// A file a run commits, and the SHA-256 it has once committed.
public struct CommittedFile: Codable, Sendable, Equatable {
  public var path: String
  public var sha256: String
  public init(path: String, sha256: String) {
    self.path = path
    self.sha256 = sha256
  }
  public init(path: String, text: String) { self.init(path: path, sha256: SHA256Hex.of(text)) }

  /// Whether the file at `path` has that content now.
  public var isInPlace: Bool {
    guard let bytes = try? InputFile.read(path, limit: .init(bytes: 64 << 20, kind: "a committed file")) else {
      return false
    }
    return SHA256Hex.of(bytes) == sha256
  }
}

/// A queue entry: a row and the files whose commit makes it true.
public struct QueueEntry: Codable, Sendable, Equatable {
  public static let format = "forcepanel-factory-row"
  public var format = QueueEntry.format
  public var row: CalibrationRow
  /// The files, in the order they are committed: the last one is the
  /// commit point (a pass commits all of them with one rename).
  public var files: [CommittedFile]
  public init(row: CalibrationRow, files: [CommittedFile]) {
    self.row = row
    self.files = files
  }
}

/// The station's journal of rows on their way to the database, a
/// directory beside the records (`factory.queue/`). A run writes its entry
/// as `ID.pending` before it commits its files, locked (flock) for as long
/// as it lives; renames it `ID.row` once its files are committed; inserts
/// the row and removes the entry. Whatever kills it, the next run or
/// `panelctl factory sync` finds the state: a pending entry no process
/// holds is a row whose files are in place (it becomes `ID.row`) or a run
/// that never committed (removed); a `.row` is delivered, and delivering
/// twice is harmless (the id is the key). docs/factory.md.
public struct RowQueue: Sendable {
  public let directory: String
  public init(directory: String) { self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory }

  func path(_ id: String, _ suffix: String) -> String { "\(directory)/\(id).\(suffix)" }

  /// An entry written and locked: the run's files are not committed yet.
  public final class Pending: @unchecked Sendable {
    let queue: RowQueue
    let id: String
    var fd: Int32
    init(queue: RowQueue, id: String, fd: Int32) {
      self.queue = queue
      self.id = id
      self.fd = fd
    }
    deinit { if fd >= 0 { FileDescriptor(rawValue: fd).close() } }

    /// The files are committed: the entry becomes a row to deliver.
    public func committed() throws(FileError) {
      try FilesPOSIX.renameDurably(queue.path(id, "pending"), to: queue.path(id, "row"))
      FileDescriptor(rawValue: fd).close()
      fd = -1
    }

    /// The run did not commit: the entry goes.
    public func abandon() {
      try? FileSystem.unlink(queue.path(id, "pending"))
      FileDescriptor(rawValue: fd).close()
      fd = -1
    }
  }

  /// Writes `entry` as `ID.pending` (synced, locked by this process).
  public func begin(_ entry: QueueEntry) throws(FileError) -> Pending {
    try createDirectory()
    let bytes = try Self.encode(entry)
    let temporary = "\(directory)/.\(entry.row.id).tmp-\(getpid())"
    let file: FileDescriptor
    do throws(Errno) {
      file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
    } catch {
      throw Self.failure(temporary, "cannot create", error)
    }
    do throws(FileError) {
      do throws(Errno) { try file.lockExclusive() } catch { throw Self.failure(temporary, "cannot lock", error) }
      try FilesPOSIX.writeSynced(file.rawValue, bytes, path: temporary)
      try FilesPOSIX.renameDurably(temporary, to: path(entry.row.id, "pending"))
    } catch {
      file.close()
      try? FileSystem.unlink(temporary)
      throw error
    }
    return Pending(queue: self, id: entry.row.id, fd: file.rawValue)
  }

  /// Writes `entry` straight as a row to deliver (its files are committed).
  public func enqueue(_ entry: QueueEntry) throws(FileError) {
    let pending = try begin(entry)
    try pending.committed()
  }

  /// What `recover` found.
  public struct Recovery: Sendable, Equatable {
    /// Pending entries of dead runs whose files were in place: now rows.
    public var completed = 0
    /// Pending entries of dead runs that never committed: removed.
    public var dropped = 0
    /// Pending entries of runs still going: left alone.
    public var running = 0
    public init(completed: Int = 0, dropped: Int = 0, running: Int = 0) {
      self.completed = completed
      self.dropped = dropped
      self.running = running
    }
  }

  /// Settles the pending entries no living process holds (see the type).
  public func recover() -> Recovery {
    var found = Recovery()
    for name in Self.entries(directory) where name.hasSuffix(".pending") {
      let id = String(name.dropLast(8))
      let pendingPath = path(id, "pending")
      guard let fd = try? FileDescriptor.open(pendingPath, O_RDONLY) else { continue }
      defer { fd.close() }
      guard (try? fd.lockExclusive(wait: false)) != nil else {
        found.running += 1
        continue
      }
      // Still the same file under that name (its run may have renamed it
      // to .row, or another recovery settled it, while we waited)?
      guard let mine = try? fd.status(), let named = try? FileSystem.status(pendingPath), mine.isSameFile(as: named)
      else { continue }
      guard let entry = try? load(pendingPath), entry.row.id == id else {
        try? FileSystem.unlink(pendingPath)  // a torn entry: its run died before the rename that made it visible... cannot happen, but never deliver it
        found.dropped += 1
        continue
      }
      if let last = entry.files.last, last.isInPlace {
        if (try? FilesPOSIX.renameDurably(pendingPath, to: path(id, "row"))) != nil { found.completed += 1 }
      } else {
        try? FileSystem.unlink(pendingPath)
        found.dropped += 1
      }
    }
    return found
  }

  /// The rows waiting for the database, oldest first (by their run's end).
  public func rows() -> [(path: String, entry: QueueEntry)] {
    var out: [(String, QueueEntry)] = []
    for name in Self.entries(directory) where name.hasSuffix(".row") {
      let p = directory + "/" + name
      if let e = try? load(p) { out.append((p, e)) }
    }
    return out.sorted { $0.1.row.endedAt < $1.1.row.endedAt }
  }

  /// How many pending and ready entries the queue holds.
  public var count: (pending: Int, rows: Int) {
    let names = Self.entries(directory)
    return (names.filter { $0.hasSuffix(".pending") }.count, names.filter { $0.hasSuffix(".row") }.count)
  }

  /// Removes a delivered row.
  public func remove(_ id: String) { try? FileSystem.unlink(path(id, "row")) }

  /// Reads an entry.
  public func load(_ path: String) throws(FileError) -> QueueEntry {
    let bytes = try InputFile.read(path, limit: .init(bytes: 64 << 20, kind: "a queue entry"))
    do {
      let decoder = JSONDecoder()
      decoder.nonConformingFloatDecodingStrategy = .convertFromString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
      let entry = try decoder.decode(QueueEntry.self, from: Data(bytes))
      guard entry.format == QueueEntry.format else { throw FileError(file: path, message: "not a queue entry") }
      return entry
    } catch let error as FileError {
      throw error
    } catch {
      throw FileError(file: path, message: "not a valid queue entry: \(error)")
    }
  }

  // MARK: Files

  static func encode(_ entry: QueueEntry) throws(FileError) -> [UInt8] {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      // A dead cell's noise in newtons is infinite: kept as "inf" here, NULL in the database.
      encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
      return Array(try encoder.encode(entry))
    } catch {
      throw FileError(file: entry.row.id, message: "cannot encode the row: \(error)")
    }
  }

  func createDirectory() throws(FileError) {
    do throws(Errno) {
      try FileSystem.makeDirectory(directory)
    } catch where error == .fileExists {
    } catch {
      throw Self.failure(directory, "cannot create the directory", error)
    }
  }

  static func failure(_ path: String, _ what: String, _ error: Errno) -> FileError {
    FileError(file: path, message: "\(what): \(error)")
  }

  /// The queue's files (not the hidden temporaries), by name.
  static func entries(_ directory: String) -> [String] {
    FileSet.entries(of: directory).filter { !$0.hasPrefix(".") }.sorted()
  }
}
