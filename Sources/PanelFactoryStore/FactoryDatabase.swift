import Logging
import NIOCore
import NIOPosix
import PanelFactory
import PostgresKit
import SQLKit
import SQLiteKit

/// The factory database: a SQLite file on a station or a PostgreSQL
/// server for a line, through one query layer (SQLKit over sqlite-nio and
/// postgres-nio). Opening one runs the schema's migrations
/// (`FactorySchema`). One connection: a `calibrate` run writes one row, a
/// report reads. docs/factory.md.
public final class FactoryDatabase: @unchecked Sendable {
  public enum Engine: String, Sendable {
    case sqlite, postgres
  }

  public let engine: Engine
  /// Where it is, as given (a PostgreSQL password is not shown).
  public let location: String
  /// The query layer (SQLKit), for the schema and the rows.
  package let sql: any SQLDatabase
  private let closeConnection: @Sendable () async -> Void
  private var closed = false

  init(engine: Engine, location: String, sql: any SQLDatabase, close: @escaping @Sendable () async -> Void) {
    self.engine = engine
    self.location = location
    self.sql = sql
    self.closeConnection = close
  }

  /// Opens `location` — `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (also
  /// `postgresql://`) or a SQLite file's path, created on first use — and
  /// brings its schema to `version` (the latest by default).
  public static func open(_ location: String, migratingTo version: Int = FactorySchema.latest) async throws(StoreError)
    -> FactoryDatabase
  {
    let db: FactoryDatabase
    var logger = Logger(label: "forcepanel.factory")
    logger.logLevel = .critical
    if let url = PostgresLocation(location) {
      var configuration = PostgresConnection.Configuration(
        host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
        tls: .disable)
      configuration.options.connectTimeout = .seconds(5)
      let connection: PostgresConnection
      do {
        connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
      } catch {
        throw StoreError(location: url.shown, message: "cannot connect: \(StoreError.describe(error))", unreachable: true)
      }
      db = FactoryDatabase(
        engine: .postgres, location: url.shown, sql: connection.sql(queryLogLevel: nil),
        close: { try? await connection.close() })
    } else {
      // A thread of its own: a connection waiting for another's write lock
      // blocks its thread, never the one the lock's holder needs to commit.
      let thread = NIOThreadPool(numberOfThreads: 1)
      thread.start()
      let connection: SQLiteConnection
      do {
        connection = try await SQLiteConnection.open(
          storage: .file(path: location), threadPool: thread, logger: logger,
          on: MultiThreadedEventLoopGroup.singleton.any())
      } catch {
        try? await thread.shutdownGracefully()
        throw StoreError(location: location, message: "cannot open: \(StoreError.describe(error))", unreachable: true)
      }
      db = FactoryDatabase(
        engine: .sqlite, location: location, sql: connection.sql(queryLogLevel: nil),
        close: {
          try? await connection.close()
          try? await thread.shutdownGracefully()
        })
      do {
        // A writer waits for the one before it, up to a minute (then the
        // row is queued); WAL: readers and one writer at once; FULL: a
        // committed row survives a power cut too.
        try await db.sql.raw("PRAGMA busy_timeout = 60000").run()
        try await db.sql.raw("PRAGMA journal_mode = WAL").run()
        try await db.sql.raw("PRAGMA synchronous = FULL").run()
        try await db.sql.raw("PRAGMA foreign_keys = ON").run()
      } catch {
        await db.close()
        throw StoreError(location: location, message: "cannot use it: \(StoreError.describe(error))", unreachable: true)
      }
    }
    do {
      try await FactorySchema.migrate(db, to: version)
    } catch {
      await db.close()
      throw StoreError(location: db.location, message: "schema: \(StoreError.describe(error))", unreachable: false)
    }
    return db
  }

  /// Runs one statement without values (tests drop their tables).
  package func raw(_ statement: SQLQueryString) async throws { try await sql.raw(statement).run() }

  public func close() async {
    guard !closed else { return }
    closed = true
    await closeConnection()
  }

  /// Runs `body` in one transaction (SQLite: BEGIN IMMEDIATE, so that
  /// the write lock is taken first and waited for, never upgraded).
  func transaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    switch engine {
    case .sqlite: try await sql.raw("BEGIN IMMEDIATE").run()
    case .postgres: try await sql.raw("BEGIN").run()
    }
    do {
      let result = try await body()
      try await sql.raw("COMMIT").run()
      return result
    } catch {
      try? await sql.raw("ROLLBACK").run()
      throw error
    }
  }

  /// The type of a column of bytes.
  var blobType: String { engine == .postgres ? "BYTEA" : "BLOB" }
}

/// A database that cannot be used: where, why, and whether it is away
/// (the row is queued) rather than wrong.
public struct StoreError: Error, CustomStringConvertible, Sendable {
  public var location: String
  public var message: String
  /// True when the database could not be reached or opened at all.
  public var unreachable: Bool
  public init(location: String, message: String, unreachable: Bool) {
    self.location = location
    self.message = message
    self.unreachable = unreachable
  }
  public var description: String { "\(location): \(message)" }

  static func describe(_ error: any Error) -> String {
    if let e = error as? StoreError { return e.message }
    if let e = error as? PSQLError {
      if let message = e.serverInfo?[.message] { return message }
      return "\(e.code)"
    }
    return "\(error)"
  }
}

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
struct PostgresLocation {
  var user: String
  var password: String?
  var host: String
  var port: Int
  var database: String

  init?(_ text: String) {
    var rest: Substring
    if text.hasPrefix("postgres://") {
      rest = text.dropFirst(11)
    } else if text.hasPrefix("postgresql://") {
      rest = text.dropFirst(13)
    } else {
      return nil
    }
    if let q = rest.firstIndex(of: "?") { rest = rest[..<q] }
    guard let at = rest.lastIndex(of: "@") else { return nil }
    let credentials = rest[..<at]
    var hostPart = rest[rest.index(after: at)...]
    guard let slash = hostPart.firstIndex(of: "/") else { return nil }
    database = Self.unescape(hostPart[hostPart.index(after: slash)...])
    hostPart = hostPart[..<slash]
    if let colon = credentials.firstIndex(of: ":") {
      user = Self.unescape(credentials[..<colon])
      password = Self.unescape(credentials[credentials.index(after: colon)...])
    } else {
      user = Self.unescape(credentials)
    }
    if let colon = hostPart.lastIndex(of: ":") {
      guard let p = Int(hostPart[hostPart.index(after: colon)...]), (1...65535).contains(p) else { return nil }
      port = p
      host = String(hostPart[..<colon])
    } else {
      port = 5432
      host = String(hostPart)
    }
    guard !user.isEmpty, !host.isEmpty, !database.isEmpty else { return nil }
  }

  /// The location without the password.
  var shown: String { "postgres://\(user)@\(host):\(port)/\(database)" }

  static func unescape(_ s: Substring) -> String {
    var bytes: [UInt8] = []
    var i = s.utf8.startIndex
    let u = s.utf8
    while i < u.endIndex {
      let b = u[i]
      if b == UInt8(ascii: "%"), let h = u.index(i, offsetBy: 2, limitedBy: u.endIndex), h < u.endIndex,
        let v = UInt8(String(decoding: u[u.index(after: i)...h], as: UTF8.self), radix: 16)
      {
        bytes.append(v)
        i = u.index(after: h)
      } else {
        bytes.append(b)
        i = u.index(after: i)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension FactoryDatabase {
  /// Whether `location` names a PostgreSQL server (else a SQLite file).
  public static func isServer(_ location: String) -> Bool { PostgresLocation(location) != nil }

  /// `location` as it may be shown (without a password).
  public static func shown(_ location: String) -> String { PostgresLocation(location)?.shown ?? location }
}
