import PanelFactory
import PanelFactoryStore
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// A calibration's way into the factory database, in this order (the
/// order is what makes a crash or an outage at any moment recoverable;
/// docs/factory.md):
///
/// 1. the queue's pending entries of dead runs are settled (theirs first:
///    a commit of ours could hide whether theirs was made);
/// 2. the row is journaled as `ID.pending` in `factory.queue/` beside the
///    record, locked by this process, with the hashes of the files the
///    run is about to commit;
/// 3. the files are committed (the calibration's own commit point);
/// 4. the entry becomes `ID.row`;
/// 5. the row is inserted in one transaction (a row already there is
///    left as it is), and the entry removed; rows left by earlier runs are
///    delivered after it. A database that cannot be reached leaves the
///    entry for the next run or `panelctl factory sync`, and is said so:
///    a good panel does not fail because the database is away.
struct FactoryLog {
  /// When this run started (first use: the top of the command).
  nonisolated(unsafe) static var started = FactoryTime.now()

  let database: String?
  let queue: RowQueue
  let options: StationOptions

  init(options: StationOptions, record cal: String) {
    self.options = options
    database = options.database(besideRecord: cal)
    queue = RowQueue(directory: Paths.directory(of: cal) + "factory.queue")
  }

  /// Steps 1 and 2: the entry for `result`, whose files (path, text) the
  /// run commits next, in the order it writes them.
  func begin(_ result: CalibrationResult, record: String?, certificate: String, files: [(String, String)])
    throws(FileError) -> RowQueue.Pending?
  {
    guard database != nil else { return nil }
    _ = queue.recover()
    let files = files.map { (Self.absolute($0.0), $0.1) }
    let json = files.first { $0.0.hasSuffix(".json") }?.1 ?? ""
    let context = RunContext(
      station: options.stationID, fixture: options.fixture, operatorID: options.operatorID, lot: options.lot,
      firmware: "panelctl \(PanelCtl.configuration.version)", startedAt: Self.started, recordPath: record.map(Self.absolute),
      certificatePath: Self.absolute(certificate))
    let recordText = result.record.encoded()
    let row = CalibrationRow(result: result, context: context, recordText: recordText, certificateJSON: json)
    return try queue.begin(QueueEntry(row: row, files: files.map { CommittedFile(path: $0.0, text: $0.1) }))
  }

  /// `path` from the root (the queue is settled from other directories).
  static func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    var buffer = [CChar](repeating: 0, count: 4097)
    guard getcwd(&buffer, 4096) != nil else { return path }
    let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return cwd + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
  }

  /// Step 5, after the entry is committed: what to say on standard
  /// error — nothing when the row is in (the command's one line stays its
  /// only one), a line when it waits in the queue.
  func deliver() -> String {
    guard let database else { return "" }
    let shown = FactoryDatabase.shown(database)
    do {
      _ = try Self.sync(queue: queue, database: database)
      return ""
    } catch {
      let waiting = queue.count.rows
      return "factory database: \(error); the row is queued (\(waiting) waiting in \(queue.directory)): "
        + "panelctl factory sync --db \(shown) --queue \(queue.directory) delivers it\n"
    }
  }

  /// Settles the queue and delivers its rows, oldest first: (delivered,
  /// already there). Throws when the database cannot be reached; what was
  /// delivered before that stays delivered.
  static func sync(queue: RowQueue, database: String) throws -> (delivered: Int, duplicates: Int) {
    _ = queue.recover()
    let rows = queue.rows()
    if rows.isEmpty { return (0, 0) }
    return try Blocking.run {
      let db = try await FactoryDatabase.open(database)
      var delivered = 0
      var duplicates = 0
      do {
        for (_, entry) in rows {
          if try await db.insert(entry.row) { delivered += 1 } else { duplicates += 1 }
          queue.remove(entry.row.id)
        }
      } catch {
        await db.close()
        throw error
      }
      await db.close()
      return (delivered + duplicates, duplicates)
    }
  }
}
