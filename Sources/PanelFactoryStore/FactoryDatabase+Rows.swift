import NIOCore
import PanelFactory
import SQLKit

extension FactoryDatabase {
  /// Inserts a calibration, its checks, cells and model in one
  /// transaction. Returns false when a row with its id is already there
  /// (delivered before): rows are never updated.
  @discardableResult
  public func insert(_ row: CalibrationRow) async throws(StoreError) -> Bool {
    try await insert([row]) == 1
  }

  /// Inserts `rows` in one transaction; returns how many were new.
  public func insert(_ rows: [CalibrationRow]) async throws(StoreError) -> Int {
    do {
      return try await transaction {
        var added = 0
        for row in rows where try await insertRow(row) { added += 1 }
        return added
      }
    } catch {
      throw StoreError(location: location, message: "insert: \(StoreError.describe(error))", unreachable: true)
    }
  }

  /// One row's statements (inside a transaction).
  func insertRow(_ row: CalibrationRow) async throws -> Bool {
    let inserted = try await sql.insert(into: "calibrations")
      .columns(
        "id", "serial", "board", "plan", "plan_sha256", "station", "fixture", "operator_id", "lot", "firmware",
        "started_at", "ended_at", "temp_low_c", "temp_high_c", "result", "failure", "residual_pct",
        "accuracy_method", "accuracy_force_pct", "accuracy_position_mm", "creep_pct", "record_path",
        "record_sha256", "certificate_path", "certificate_json"
      )
      .values(
        row.id, row.serial, row.board, row.plan, row.planSHA256, row.station, row.fixture, row.operatorID, row.lot,
        row.firmware, row.startedAt, row.endedAt, finite(row.tempLow_c), finite(row.tempHigh_c), row.result,
        row.failure, finite(row.residual_pct), row.accuracyMethod, finite(row.accuracyForce_pct),
        finite(row.accuracyPosition_mm), finite(row.creep_pct), row.recordPath, row.recordSHA256,
        row.certificatePath, row.certificateJSON
      )
      .ignoringConflicts(with: "id")
      .returning("id")
      .all()
    guard !inserted.isEmpty else { return false }
    if !row.checks.isEmpty {
      try await sql.insert(into: "checks")
        .columns("calibration_id", "seq", "name", "subject", "value", "limit_value", "unit", "passed")
        .rows(
          bound(row.checks.enumerated().map { i, c -> [any Encodable & Sendable] in
            [row.id, i, c.name, c.subject, finite(c.value), finite(c.limit), c.unit, c.passed ? 1 : 0]
          })
        ).run()
    }
    if !row.cells.isEmpty {
      try await sql.insert(into: "cells")
        .columns(
          "calibration_id", "cell", "offset_counts", "sensitivity_counts_per_n", "nonlinearity_pct",
          "tc_zero_counts_per_c", "tc_span_per_c", "noise_counts", "noise_n", "hysteresis_pct", "zero_return_pct"
        )
        .rows(
          bound(row.cells.map { c -> [any Encodable & Sendable] in
            [
              row.id, c.index, finite(c.offset_counts), finite(c.sensitivity_counts_per_n),
              finite(c.nonlinearity_pct), finite(c.tcZero_counts_per_c), finite(c.tcSpan_per_c),
              finite(c.noise_counts), finite(c.noise_n), finite(c.hysteresis_pct), finite(c.zeroReturn_pct),
            ]
          })
        ).run()
    }
    try await sql.insert(into: "models").columns("calibration_id", "format", "sha256", "bytes")
      .values(row.id, row.model.format, row.model.sha256, ByteBuffer(bytes: row.model.bytes)).run()
    return true
  }

  /// What selects calibrations for a report or an export.
  public struct Filter: Sendable {
    /// ISO 8601 UTC times (a date alone is its midnight): started at or after / before.
    public var since: String?
    public var until: String?
    public var station: String?
    public var plan: String?
    public var board: String?
    public var serial: String?
    public init(
      since: String? = nil, until: String? = nil, station: String? = nil, plan: String? = nil, board: String? = nil,
      serial: String? = nil
    ) {
      self.since = since
      self.until = until
      self.station = station
      self.plan = plan
      self.board = board
      self.serial = serial
    }

    /// In words, for a report's heading.
    public var shown: String {
      var parts: [String] = []
      if let since { parts.append("since \(since)") }
      if let until { parts.append("until \(until)") }
      if let station { parts.append("station \(station)") }
      if let plan { parts.append("plan \(plan)") }
      if let board { parts.append("board \(board)") }
      if let serial { parts.append("serial \(serial)") }
      return parts.isEmpty ? "all calibrations" : parts.joined(separator: ", ")
    }

    func apply<B: SQLPredicateBuilder>(_ b: B, table: String? = nil) -> B {
      func c(_ name: String) -> SQLColumn { table.map { SQLColumn(name, table: $0) } ?? SQLColumn(name) }
      if let since { b.where(c("started_at"), .greaterThanOrEqual, SQLBind(since)) }
      if let until { b.where(c("started_at"), .lessThan, SQLBind(until)) }
      if let station { b.where(c("station"), .equal, SQLBind(station)) }
      if let plan { b.where(c("plan"), .equal, SQLBind(plan)) }
      if let board { b.where(c("board"), .equal, SQLBind(board)) }
      if let serial { b.where(c("serial"), .equal, SQLBind(serial)) }
      return b
    }
  }

  /// The selected calibrations as the report reads them, in time order,
  /// with each serial's attempt number over the whole database.
  public func summaries(_ filter: Filter) async throws(StoreError) -> [CalibrationSummary] {
    do {
      let rows = try await filter.apply(
        sql.select()
          .columns(
            "id", "serial", "board", "plan", "station", "lot", "started_at", "result", "failure", "residual_pct",
            "accuracy_force_pct"
          )
          .from("calibrations")
      )
      .orderBy("started_at").orderBy("id").all()
      // Per-cell figures as each calibration's mean over its cells.
      var means: [String: (Double, Double, Double)] = [:]
      let cellQuery = sql.select()
        .column(SQLColumn("calibration_id", table: "x"))
        .column(SQLFunction("AVG", args: SQLColumn("sensitivity_counts_per_n", table: "x")), as: "s")
        .column(SQLFunction("AVG", args: SQLColumn("noise_counts", table: "x")), as: "n")
        .column(SQLFunction("AVG", args: SQLColumn("offset_counts", table: "x")), as: "o")
        .from(SQLAlias(SQLIdentifier("cells"), as: SQLIdentifier("x")))
        .join(
          SQLAlias(SQLIdentifier("calibrations"), as: SQLIdentifier("c")), method: SQLJoinMethod.inner,
          on: SQLColumn("id", table: "c"), .equal, SQLColumn("calibration_id", table: "x"))
        .groupBy(SQLColumn("calibration_id", table: "x"))
      for r in try await filter.apply(cellQuery, table: "c").all() {
        means[try r.decode(column: "calibration_id", as: String.self)] = (
          try r.decode(column: "s", as: Double?.self) ?? 0, try r.decode(column: "n", as: Double?.self) ?? 0,
          try r.decode(column: "o", as: Double?.self) ?? 0
        )
      }
      // Attempts: a calibration after the serial's first one is a retest.
      let serials = Set(try rows.map { try $0.decode(column: "serial", as: String.self) })
      let starts = try await filter.serial == nil
        ? sql.select().columns("serial", "started_at", "id").from("calibrations").all()
        : sql.select().columns("serial", "started_at", "id").from("calibrations")
          .where("serial", .equal, SQLBind(filter.serial!)).all()
      var attempts: [String: Int] = [:]
      var bySerial: [String: [(String, String)]] = [:]
      for r in starts {
        let serial = try r.decode(column: "serial", as: String.self)
        guard serials.contains(serial) else { continue }
        bySerial[serial, default: []].append((try r.decode(column: "started_at", as: String.self), try r.decode(column: "id", as: String.self)))
      }
      for (_, list) in bySerial {
        for (i, e) in list.sorted(by: { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }).enumerated() { attempts[e.1] = i + 1 }
      }
      return try rows.map { r in
        let id = try r.decode(column: "id", as: String.self)
        let m = means[id] ?? (0, 0, 0)
        return CalibrationSummary(
          id: id, serial: try r.decode(column: "serial", as: String.self),
          board: try r.decode(column: "board", as: String.self), plan: try r.decode(column: "plan", as: String.self),
          station: try r.decode(column: "station", as: String.self),
          lot: try r.decode(column: "lot", as: String?.self),
          startedAt: try r.decode(column: "started_at", as: String.self),
          result: try r.decode(column: "result", as: String.self),
          failure: try r.decode(column: "failure", as: String?.self),
          residual_pct: try r.decode(column: "residual_pct", as: Double?.self) ?? 0,
          accuracyForce_pct: try r.decode(column: "accuracy_force_pct", as: Double?.self) ?? 0,
          sensitivity_counts_per_n: m.0, noise_counts: m.1, offset_counts: m.2, attempt: attempts[id] ?? 1)
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(location: location, message: "query: \(StoreError.describe(error))", unreachable: true)
    }
  }

  /// Whole rows (checks, cells, model), in time order: the export, and
  /// what `history` shows. `newestFirst` reverses the order.
  public func rows(_ filter: Filter, newestFirst: Bool = false) async throws(StoreError) -> [CalibrationRow] {
    do {
      let direction: SQLDirection = newestFirst ? .descending : .ascending
      let found = try await filter.apply(sql.select().column(SQLLiteral.all).from("calibrations"))
        .orderBy("started_at", direction).orderBy("ended_at", direction).orderBy("id", direction).all()
      var rows: [CalibrationRow] = []
      var index: [String: Int] = [:]
      for r in found {
        var row = CalibrationRow(id: try r.decode(column: "id", as: String.self))
        row.serial = try r.decode(column: "serial", as: String.self)
        row.board = try r.decode(column: "board", as: String.self)
        row.plan = try r.decode(column: "plan", as: String.self)
        row.planSHA256 = try r.decode(column: "plan_sha256", as: String.self)
        row.station = try r.decode(column: "station", as: String.self)
        row.fixture = try r.decode(column: "fixture", as: String?.self)
        row.operatorID = try r.decode(column: "operator_id", as: String?.self)
        row.lot = try r.decode(column: "lot", as: String?.self)
        row.firmware = try r.decode(column: "firmware", as: String.self)
        row.startedAt = try r.decode(column: "started_at", as: String.self)
        row.endedAt = try r.decode(column: "ended_at", as: String.self)
        row.tempLow_c = try r.decode(column: "temp_low_c", as: Double?.self) ?? .nan
        row.tempHigh_c = try r.decode(column: "temp_high_c", as: Double?.self) ?? .nan
        row.result = try r.decode(column: "result", as: String.self)
        row.failure = try r.decode(column: "failure", as: String?.self)
        row.residual_pct = try r.decode(column: "residual_pct", as: Double?.self) ?? .nan
        row.accuracyMethod = try r.decode(column: "accuracy_method", as: String.self)
        row.accuracyForce_pct = try r.decode(column: "accuracy_force_pct", as: Double?.self) ?? .nan
        row.accuracyPosition_mm = try r.decode(column: "accuracy_position_mm", as: Double?.self) ?? .nan
        row.creep_pct = try r.decode(column: "creep_pct", as: Double?.self)
        row.recordPath = try r.decode(column: "record_path", as: String?.self)
        row.recordSHA256 = try r.decode(column: "record_sha256", as: String?.self)
        row.certificatePath = try r.decode(column: "certificate_path", as: String.self)
        row.certificateJSON = try r.decode(column: "certificate_json", as: String.self)
        index[row.id] = rows.count
        rows.append(row)
      }
      guard !rows.isEmpty else { return [] }
      func children(_ table: String, _ order: String) -> SQLSelectBuilder {
        filter.apply(
          sql.select().column(SQLColumn(SQLLiteral.all, table: SQLIdentifier("x"))).from(SQLAlias(SQLIdentifier(table), as: SQLIdentifier("x")))
            .join(
              SQLAlias(SQLIdentifier("calibrations"), as: SQLIdentifier("c")), method: SQLJoinMethod.inner,
              on: SQLColumn("id", table: "c"), .equal, SQLColumn("calibration_id", table: "x")),
          table: "c"
        ).orderBy(SQLColumn("calibration_id", table: "x")).orderBy(SQLColumn(order, table: "x"))
      }
      for r in try await children("checks", "seq").all() {
        guard let i = index[try r.decode(column: "calibration_id", as: String.self)] else { continue }
        rows[i].checks.append(
          CalibrationRow.Check(
            name: try r.decode(column: "name", as: String.self), subject: try r.decode(column: "subject", as: String.self),
            value: try r.decode(column: "value", as: Double?.self) ?? .nan,
            limit: try r.decode(column: "limit_value", as: Double?.self) ?? .nan,
            unit: try r.decode(column: "unit", as: String.self), passed: try r.decode(column: "passed", as: Int.self) != 0))
      }
      for r in try await children("cells", "cell").all() {
        guard let i = index[try r.decode(column: "calibration_id", as: String.self)] else { continue }
        func d(_ c: String) throws -> Double { try r.decode(column: c, as: Double?.self) ?? .nan }
        rows[i].cells.append(
          CalibrationRow.Cell(
            index: try r.decode(column: "cell", as: Int.self), offset_counts: try d("offset_counts"),
            sensitivity_counts_per_n: try d("sensitivity_counts_per_n"), nonlinearity_pct: try d("nonlinearity_pct"),
            tcZero_counts_per_c: try d("tc_zero_counts_per_c"), tcSpan_per_c: try d("tc_span_per_c"),
            noise_counts: try d("noise_counts"), noise_n: try d("noise_n"),
            hysteresis_pct: try r.decode(column: "hysteresis_pct", as: Double?.self),
            zeroReturn_pct: try r.decode(column: "zero_return_pct", as: Double?.self)))
      }
      for r in try await children("models", "calibration_id").all() {
        guard let i = index[try r.decode(column: "calibration_id", as: String.self)] else { continue }
        let bytes = try r.decode(column: "bytes", as: ByteBuffer.self)
        rows[i].model = CalibrationRow.Model(
          format: try r.decode(column: "format", as: String.self), sha256: try r.decode(column: "sha256", as: String.self),
          bytes: Array(bytes.readableBytesView))
      }
      return rows
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError(location: location, message: "query: \(StoreError.describe(error))", unreachable: true)
    }
  }

  /// How many calibrations the database holds.
  public func count() async throws(StoreError) -> Int {
    do {
      let r = try await sql.raw("SELECT COUNT(*) AS n FROM calibrations").first()
      return try r?.decode(column: "n", as: Int.self) ?? 0
    } catch {
      throw StoreError(location: location, message: "query: \(StoreError.describe(error))", unreachable: true)
    }
  }
}

/// Rows of values as bound parameters.
func bound(_ rows: [[any Encodable & Sendable]]) -> [[any SQLExpression]] {
  rows.map { $0.map { SQLBind($0) } }
}

/// NULL for what a column cannot hold (SQLite stores NaN as NULL anyway).
func finite(_ v: Double?) -> Double? {
  guard let v, v.isFinite else { return nil }
  return v
}
