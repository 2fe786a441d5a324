import Foundation
import PanelFactory
import PanelFactoryStore
import PanelTestSupport
import SQLKit
import Testing

/// The factory database on both engines: SQLite files, and a real
/// PostgreSQL server when FACTORY_TEST_POSTGRES names one (scripts/test.sh
/// starts a throw-away cluster and sets it; CI fails without it).
@Suite(.serialized) struct FactoryDatabaseTests {
  /// The databases to run on: a new SQLite file, and PostgreSQL (emptied).
  static func databases() throws -> [String] {
    var out = [try FilesTestSupport.makeTemporaryDirectory() + "/factory.sqlite"]
    if let url = ProcessInfo.processInfo.environment["FACTORY_TEST_POSTGRES"], !url.isEmpty {
      out.append(url)
    } else if ProcessInfo.processInfo.environment["CI"] == "true" {
      Issue.record("FACTORY_TEST_POSTGRES is not set: CI must run these tests on PostgreSQL too (scripts/test.sh)")
    }
    return out
  }

  /// Drops every table of a PostgreSQL test database (SQLite files are new).
  /// The work in place (the tests are async: a blocking wait would hold
  /// one of the few threads Swift Testing runs every suite on).
  static func run<T>(_ body: () async throws -> T) async rethrows -> T { try await body() }

  static func empty(_ location: String) async throws {
    guard FactoryDatabase.isServer(location) else { return }
    try await Self.run {
      let db = try await FactoryDatabase.open(location, migratingTo: 0)
      try await db.raw("DROP TABLE IF EXISTS models, cells, checks, calibrations, schema_migrations CASCADE")
      await db.close()
    }
  }

  static func row(serial: String = "P-000123", started: String = "2026-03-14T09:00:00.000Z", lot: String? = "L1")
    -> CalibrationRow
  {
    var r = CalibrationRow(id: RowID.make())
    r.serial = serial
    r.board = "sim-plate4"
    r.plan = "sim-plate4-factory"
    r.planSHA256 = SHA256Hex.of("plan")
    r.station = "S1"
    r.fixture = "F1"
    r.operatorID = nil
    r.lot = lot
    r.firmware = "panelctl 0.1.0"
    r.startedAt = started
    r.endedAt = "2026-03-14T09:01:35.250Z"
    r.tempLow_c = 24.5
    r.tempHigh_c = 25.25
    r.result = "fail"
    r.failure = "noise"
    r.residual_pct = 0.125
    r.accuracyMethod = "verification"
    r.accuracyForce_pct = 0.5
    r.accuracyPosition_mm = 0.75
    r.creep_pct = -0.25
    r.recordPath = nil
    r.certificatePath = "/tmp/x.failed.certificate.html"
    r.certificateJSON = "{\"result\":\"fail\",\"quote\":\"it's\"}"
    r.checks = [
      .init(name: "noise", subject: "cell 0", value: 0.03, limit: 0.02, unit: "N", passed: false),
      .init(name: "fit residual", subject: "panel", value: 0.125, limit: 0.3, unit: "%", passed: true),
    ]
    r.cells = (0..<4).map {
      .init(
        index: $0, offset_counts: Double($0) * 1000 - 1500.5, sensitivity_counts_per_n: 40_000 + Double($0),
        nonlinearity_pct: 0.1, tcZero_counts_per_c: 2, tcSpan_per_c: 0.0001, noise_counts: 25, noise_n: 0.000625,
        hysteresis_pct: $0 == 0 ? nil : 0.05, zeroReturn_pct: 0.01)
    }
    r.model = .init(format: "forcepanel-calibration/2", bytes: Array("[calibration]\nboard = \"sim-plate4\"\n\u{0}\u{ff}".utf8))
    return r
  }

  @Test func rowsRoundTripAndAreInsertedOnce() async throws {
    for location in try Self.databases() {
      try await Self.empty(location)
      let a = Self.row()
      var b = Self.row(serial: "P-000123", started: "2026-03-15T10:00:00.000Z")
      b.result = "pass"
      b.failure = nil
      b.recordPath = "/tmp/x.toml"
      b.recordSHA256 = SHA256Hex.of("record")
      let passed = b
      let other = Self.row(serial: "P-000124")
      let (inserted, again, history, version) = try await Self.run {
        let db = try await FactoryDatabase.open(location)
        let inserted = try await db.insert([a, passed, other])
        let again = try await db.insert(a)
        let history = try await db.rows(FactoryDatabase.Filter(serial: "P-000123"), newestFirst: true)
        let version = try await FactorySchema.version(db)
        await db.close()
        return (inserted, again, history, version)
      }
      #expect(inserted == 3, "\(location)")
      #expect(!again, "a row delivered twice is one row (\(location))")
      #expect(history == [passed, a], "newest first, every field as written (\(location))")
      #expect(history.allSatisfy { $0.model.isIntact })
      #expect(version == FactorySchema.latest)
    }
  }

  @Test func summariesCountAttemptsOverTheWholeDatabase() async throws {
    for location in try Self.databases() {
      try await Self.empty(location)
      let first = Self.row(started: "2026-03-01T08:00:00.000Z")
      var retest = Self.row(started: "2026-03-02T08:00:00.000Z")
      retest.station = "S2"
      let second = retest
      let summaries = try await Self.run {
        let db = try await FactoryDatabase.open(location)
        try await db.insert([first, second])
        let s = try await db.summaries(FactoryDatabase.Filter(since: "2026-03-02T00:00:00.000Z"))
        await db.close()
        return s
      }
      #expect(summaries.map(\.id) == [second.id], "\(location)")
      #expect(summaries.first?.attempt == 2, "the first attempt is before --since, still counted")
      #expect(abs((summaries.first?.sensitivity_counts_per_n ?? 0) - 40_001.5) < 1e-9)
    }
  }

  /// A database written by the previous schema (version 1: the record's
  /// TOML in a column, no lot) opens at version 2 with its rows intact and
  /// its models moved to `models`.
  @Test func migratesFromThePreviousVersion() async throws {
    for location in try Self.databases() {
      try await Self.empty(location)
      let toml = "[calibration]\nboard = \"sim-plate4\"\nserial = \"P-000007\"\n"
      let id = RowID.make()
      try await Self.run {
        let db = try await FactoryDatabase.open(location, migratingTo: 1)
        #expect(try await FactorySchema.version(db) == 1)
        // What a version-1 station wrote.
        try await db.sql.insert(into: "calibrations")
          .columns(
            "id", "serial", "board", "plan", "plan_sha256", "station", "firmware", "started_at", "ended_at", "result",
            "accuracy_method", "record_toml", "certificate_path", "certificate_json")
          .values(
            id, "P-000007", "sim-plate4", "p", "h", "S1", "panelctl 0.1.0", "2026-01-01T00:00:00.000Z",
            "2026-01-01T00:01:00.000Z", "pass", "verification", toml, "/c.html", "{}")
          .run()
        try await db.sql.insert(into: "cells").columns("calibration_id", "cell", "sensitivity_counts_per_n")
          .values(id, 0, 41_000.0).run()
        await db.close()
      }
      let rows = try await Self.run {
        let db = try await FactoryDatabase.open(location)
        let rows = try await db.rows(FactoryDatabase.Filter())
        #expect(try await FactorySchema.version(db) == 2)
        await db.close()
        return rows
      }
      let row = try #require(rows.first, "\(location)")
      #expect(row.id == id && row.serial == "P-000007" && row.lot == nil)
      #expect(row.model.format == CalibrationRow.recordFormat)
      #expect(row.model.bytes == Array(toml.utf8) && row.model.isIntact)
      #expect(row.cells.map(\.sensitivity_counts_per_n) == [41_000])
    }
  }

  /// Eight connections writing at once (eight stations): every row arrives.
  @Test func eightWritersAtOnce() async throws {
    for location in try Self.databases() {
      try await Self.empty(location)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for station in 1...8 {
          group.addTask {
            let db = try await FactoryDatabase.open(location)
            for i in 0..<10 {
              var r = Self.row(serial: "P-\(station)-\(i)")
              r.station = "S\(station)"
              try await db.insert(r)
            }
            await db.close()
          }
        }
        try await group.waitForAll()
      }
      let count = try await { () async throws -> Int in
        let db = try await FactoryDatabase.open(location)
        let n = try await db.count()
        await db.close()
        return n
      }()
      #expect(count == 80, "\(location)")
    }
  }
}
