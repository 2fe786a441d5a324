import NIOCore
import PanelFactory
import SQLKit

/// The database's schema: numbered, forward-only migrations recorded in
/// `schema_migrations`, all that are missing applied in one transaction
/// when a database is opened (PostgreSQL: under an advisory lock; SQLite:
/// under BEGIN IMMEDIATE), so that stations opening one at once migrate it
/// once. One portable type subset: TEXT, INTEGER, DOUBLE PRECISION, and
/// BLOB (BYTEA on PostgreSQL); times as ISO 8601 text; booleans as 0/1.
///
/// 1. `calibrations` (one row a run, the record's TOML in a column),
///    `checks`, `cells`.
/// 2. The model stored generically in `models` (format, SHA-256, bytes),
///    moved there from `calibrations.record_toml`; the cell lot; an index
///    for the Pareto of failures by check.
public enum FactorySchema {
  public static let latest = 2

  struct Migration: Sendable {
    var version: Int
    var description: String
    var apply: @Sendable (FactoryDatabase) async throws -> Void
  }

  static let migrations: [Migration] = [
    Migration(version: 1, description: "calibrations, checks, cells") { db in
      try await db.sql.raw(
        """
        CREATE TABLE calibrations (
          id TEXT PRIMARY KEY,
          serial TEXT NOT NULL,
          board TEXT NOT NULL,
          plan TEXT NOT NULL,
          plan_sha256 TEXT NOT NULL,
          station TEXT NOT NULL,
          fixture TEXT,
          operator_id TEXT,
          firmware TEXT NOT NULL,
          started_at TEXT NOT NULL,
          ended_at TEXT NOT NULL,
          temp_low_c DOUBLE PRECISION,
          temp_high_c DOUBLE PRECISION,
          result TEXT NOT NULL,
          failure TEXT,
          residual_pct DOUBLE PRECISION,
          accuracy_method TEXT NOT NULL,
          accuracy_force_pct DOUBLE PRECISION,
          accuracy_position_mm DOUBLE PRECISION,
          creep_pct DOUBLE PRECISION,
          record_path TEXT,
          record_sha256 TEXT,
          record_toml TEXT NOT NULL,
          certificate_path TEXT NOT NULL,
          certificate_json TEXT NOT NULL
        )
        """
      ).run()
      try await db.sql.raw("CREATE INDEX calibrations_serial ON calibrations (serial, started_at)").run()
      try await db.sql.raw("CREATE INDEX calibrations_station ON calibrations (station, started_at)").run()
      try await db.sql.raw("CREATE INDEX calibrations_started ON calibrations (started_at)").run()
      try await db.sql.raw(
        """
        CREATE TABLE checks (
          calibration_id TEXT NOT NULL REFERENCES calibrations (id),
          seq INTEGER NOT NULL,
          name TEXT NOT NULL,
          subject TEXT NOT NULL,
          value DOUBLE PRECISION,
          limit_value DOUBLE PRECISION,
          unit TEXT NOT NULL,
          passed INTEGER NOT NULL,
          PRIMARY KEY (calibration_id, seq)
        )
        """
      ).run()
      try await db.sql.raw(
        """
        CREATE TABLE cells (
          calibration_id TEXT NOT NULL REFERENCES calibrations (id),
          cell INTEGER NOT NULL,
          offset_counts DOUBLE PRECISION,
          sensitivity_counts_per_n DOUBLE PRECISION,
          nonlinearity_pct DOUBLE PRECISION,
          tc_zero_counts_per_c DOUBLE PRECISION,
          tc_span_per_c DOUBLE PRECISION,
          noise_counts DOUBLE PRECISION,
          noise_n DOUBLE PRECISION,
          hysteresis_pct DOUBLE PRECISION,
          zero_return_pct DOUBLE PRECISION,
          PRIMARY KEY (calibration_id, cell)
        )
        """
      ).run()
    },
    Migration(version: 2, description: "models (format, sha256, bytes) from record_toml; cell lot; checks by name") { db in
      try await db.sql.raw(
        """
        CREATE TABLE models (
          calibration_id TEXT PRIMARY KEY REFERENCES calibrations (id),
          format TEXT NOT NULL,
          sha256 TEXT NOT NULL,
          bytes \(unsafeRaw: db.blobType) NOT NULL
        )
        """
      ).run()
      // Every record so far is a version-2 calibration record's TOML.
      let format = CalibrationRow.recordFormat
      var after = ""
      while true {
        let rows = try await db.sql.raw(
          "SELECT id, record_toml FROM calibrations WHERE id > \(bind: after) ORDER BY id LIMIT 500"
        ).all()
        guard !rows.isEmpty else { break }
        for r in rows {
          let id = try r.decode(column: "id", as: String.self)
          let toml = try r.decode(column: "record_toml", as: String.self)
          let model = CalibrationRow.Model(format: format, bytes: Array(toml.utf8))
          try await db.sql.insert(into: "models").columns("calibration_id", "format", "sha256", "bytes")
            .values(id, model.format, model.sha256, ByteBuffer(bytes: model.bytes)).run()
          after = id
        }
      }
      try await db.sql.raw("ALTER TABLE calibrations DROP COLUMN record_toml").run()
      try await db.sql.raw("ALTER TABLE calibrations ADD COLUMN lot TEXT").run()
      try await db.sql.raw("CREATE INDEX checks_name ON checks (name, calibration_id)").run()
      try await db.sql.raw("CREATE INDEX calibrations_lot ON calibrations (lot, started_at)").run()
    },
  ]

  /// The schema's version (0: an empty database).
  public static func version(_ db: FactoryDatabase) async throws -> Int {
    let exists: Bool
    switch db.engine {
    case .sqlite:
      exists = try await db.sql.raw(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
      ).first() != nil
    case .postgres:
      exists = try await db.sql.raw(
        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_migrations'"
      ).first() != nil
    }
    guard exists else { return 0 }
    let row = try await db.sql.raw("SELECT MAX(version) AS v FROM schema_migrations").first()
    return try row?.decodeNil(column: "v") == false ? row!.decode(column: "v", as: Int.self) : 0
  }

  /// Applies the migrations up to `target` that the database lacks.
  static func migrate(_ db: FactoryDatabase, to target: Int) async throws {
    if try await version(db) >= target { return }
    try await db.transaction {
      if db.engine == .postgres {
        // One migrating station at a time; the others wait, then find it done.
        try await db.sql.raw("SELECT pg_advisory_xact_lock(7081425)").run()
      }
      try await db.sql.raw(
        """
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version INTEGER PRIMARY KEY,
          description TEXT NOT NULL,
          applied_at TEXT NOT NULL
        )
        """
      ).run()
      let current = try await version(db)
      for m in migrations where m.version > current && m.version <= target {
        try await m.apply(db)
        try await db.sql.insert(into: "schema_migrations").columns("version", "description", "applied_at")
          .values(m.version, m.description, FactoryTime.now()).run()
      }
    }
  }
}
