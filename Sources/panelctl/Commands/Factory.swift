import ArgumentParser
import PanelEvaluationHarness
import PanelFactory
import PanelFactoryStore
import PanelFirmware

extension PanelCtl {
  struct Factory: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "The factory database: a panel's history, the line's report, the export, the queue.",
      discussion: """
        Every calibrate run is a row of the factory database (--db: a SQLite file, or \
        postgres://USER@HOST[:PORT]/DB for a line). docs/factory.md.
        """,
      subcommands: [History.self, Report.self, Export.self, Sync.self, SimulateLine.self])
  }
}

/// What selects calibrations: `--since`, `--until`, `--station`, `--plan`, `--board`.
struct SelectionOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("Calibrations started at or after (UTC).", valueName: "YYYY-MM-DD[THH:MM:SSZ]"))
  var since: String?
  @Option(name: .long, help: ArgumentHelp("Calibrations started before (UTC).", valueName: "YYYY-MM-DD[THH:MM:SSZ]"))
  var until: String?
  @Option(name: .long, help: "One station.") var station: String?
  @Option(name: .long, help: "One plan (its name).") var plan: String?
  @Option(name: .long, help: "One board (its name).") var board: String?

  func validate() throws {
    for (name, value) in [("--since", since), ("--until", until)] {
      if let value, FactoryTime.milliseconds(value) == nil {
        throw ValidationError("\(name) \(value): expected a UTC date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ")
      }
    }
  }

  var filter: FactoryDatabase.Filter {
    func time(_ s: String?) -> String? { s.flatMap(FactoryTime.milliseconds).map(FactoryTime.text) }
    return FactoryDatabase.Filter(
      since: time(since), until: time(until), station: station, plan: plan, board: board)
  }
}

/// Opens the database for a `factory` command, or fails with one line.
func withFactoryDatabase<T: Sendable>(
  _ location: String, _ work: @escaping @Sendable (FactoryDatabase) async throws -> T
) throws -> T {
  do {
    return try Blocking.run {
      let db = try await FactoryDatabase.open(location)
      do {
        let result = try await work(db)
        await db.close()
        return result
      } catch {
        await db.close()
        throw error
      }
    }
  } catch let error as StoreError {
    throw CommandFailure(message: "factory database \(error)", status: .error)
  }
}

extension PanelCtl.Factory {
  struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Every calibration of one panel, newest first, with its result.")

    @Argument(help: "The panel's serial number.") var serial: String
    @OptionGroup var database: DatabaseOption
    @Flag(name: .long, help: "One JSON object per calibration (the export's rows) instead of a table.")
    var json = false

    func run() throws {
      let serial = self.serial
      let rows = try withFactoryDatabase(database.db) { db in
        try await db.rows(FactoryDatabase.Filter(serial: serial), newestFirst: true)
      }
      if json {
        for r in rows { StandardOutput.write(try ExportFormat.json(r) + "\n") }
        return
      }
      guard !rows.isEmpty else {
        throw CommandFailure(message: "\(serial): no calibration in \(FactoryDatabase.shown(database.db))", status: .error)
      }
      var lines = ["\(serial): \(rows.count) calibration\(rows.count == 1 ? "" : "s"), newest first"]
      lines.append(
        ["started (UTC)", "station", "board", "plan", "result", "first failed check", "residual %", "worst force %",
         "record"].joined(separator: "\t"))
      for r in rows {
        lines.append(
          [
            r.startedAt, r.station, r.board, r.plan, r.result, r.failure ?? "-", Format.fixed(r.residual_pct, 3),
            Format.fixed(r.accuracyForce_pct, 2), r.recordPath ?? r.certificatePath,
          ].joined(separator: "\t"))
      }
      StandardOutput.write(lines.joined(separator: "\n") + "\n")
    }
  }

  struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "The line's report: yield, failures by check, control charts with run rules, cell lots.",
      discussion: """
        Writes a self-contained HTML page (--html, default factory-report.html) and, when asked, \
        the same as CSV (--csv) and JSON (--json). Exit status 0 whether or not a rule fired.
        """)

    @OptionGroup var database: DatabaseOption
    @OptionGroup var selection: SelectionOptions
    @Option(name: .long, help: ArgumentHelp("The HTML page.", valueName: "FILE")) var html: String?
    @Option(name: .long, help: ArgumentHelp("Also the tables and flags as CSV.", valueName: "FILE")) var csv: String?
    @Option(name: .long, help: ArgumentHelp("Also the report as JSON.", valueName: "FILE")) var json: String?
    @Option(name: .long, help: "Calibrations a subgroup (consecutive, one station).") var subgroup: Int = 5
    @Option(name: .long, help: "Subgroups of each chart that set its limits.") var baseline: Int = 25

    func validate() throws {
      guard (2...100).contains(subgroup) else { throw ValidationError("--subgroup: 2 to 100") }
      guard (2...1000).contains(baseline) else { throw ValidationError("--baseline: 2 to 1000") }
    }

    func run() throws {
      let filter = selection.filter
      let t0 = monotonicMicroseconds()
      let rows = try withFactoryDatabase(database.db) { db in try await db.summaries(filter) }
      let t1 = monotonicMicroseconds()
      let report = FactoryReport(rows: rows, selection: filter.shown, subgroup: subgroup, baseline: baseline)
      let page = html ?? (csv == nil && json == nil ? "factory-report.html" : nil)
      if let page { try AtomicFile.write(ReportHTML.page(report), to: page) }
      if let csv { try AtomicFile.write(ReportCSV.text(report), to: csv) }
      if let json { try AtomicFile.write(ReportJSON.text(report), to: json) }
      let flags = report.flags
      let written = [page, csv, json].compactMap { $0 }.joined(separator: ", ")
      let t2 = monotonicMicroseconds()
      Terminal.writeError(
        "factory report: \(report.calibrations) calibrations, \(flags.count) signal\(flags.count == 1 ? "" : "s") "
          + "(\(Set(flags.map { $0.kind + " " + $0.subject }).sorted().joined(separator: ", "))): \(written); "
          + "query \(Format.fixed(Double(t1 - t0) / 1e6, 2)) s, charts and pages \(Format.fixed(Double(t2 - t1) / 1e6, 2)) s\n")
    }
  }

  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Calibrations for an MES: one JSON object a line (NDJSON) or CSV, oldest first.")

    @OptionGroup var database: DatabaseOption
    @OptionGroup var selection: SelectionOptions
    @Option(name: .long, help: "ndjson (whole rows: checks, cells, model) or csv (one line a calibration).")
    var format: ExportFormat = .ndjson
    @Option(name: .long, help: ArgumentHelp("Write here (atomically) instead of standard output.", valueName: "FILE"))
    var out: String?

    func run() throws {
      let filter = selection.filter
      let rows = try withFactoryDatabase(database.db) { db in try await db.rows(filter) }
      let text = try format.text(rows)
      if let out { try AtomicFile.write(text, to: out) } else { StandardOutput.write(text) }
    }
  }

  struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Deliver the rows queued while the database was away.",
      discussion: """
        Settles what interrupted runs left (a row whose files were committed is delivered, one \
        whose files were not is dropped) and inserts every queued row; a row already in the \
        database is not inserted again. Exit status 1 when the database cannot be reached.
        """)

    @OptionGroup var database: DatabaseOption
    @Option(name: .long, help: ArgumentHelp("The queue (factory.queue beside the records).", valueName: "DIR"))
    var queue: String = "calibration/factory.queue"

    func run() throws {
      let q = RowQueue(directory: queue)
      let recovery = q.recover()
      do {
        let (delivered, duplicates) = try FactoryLog.sync(queue: q, database: database.db)
        let left = q.count
        Terminal.writeError(
          "factory sync: \(delivered - duplicates) delivered, \(duplicates) already there, "
            + "\(recovery.completed) completed and \(recovery.dropped) dropped of interrupted runs, "
            + "\(left.pending) still running, \(left.rows) left\n")
      } catch {
        throw CommandFailure(
          message: "factory database \(FactoryDatabase.shown(database.db)): \(error); \(q.count.rows) rows stay queued in \(queue)",
          status: .error)
      }
    }
  }
}

extension PanelCtl.Factory {
  struct SimulateLine: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "simulate-line",
      abstract: "Fill a database with a seeded simulated line (the report's and the scale figures' data).",
      discussion: """
        Calibrates the board's simulated panel live once (--work DIR keeps that session), then \
        writes --calibrations rows over --stations stations and --days days: each a panel drawn \
        from the seed, its cells' lot, the fixture of its station, fitted by the product's fit \
        from the session's levels. Station --drift-station's reference masses grow heavier over \
        the second half (to --drift-pct); lot --noisy-lot's cells are --noise-factor times noisier. \
        docs/factory.md.
        """)

    @OptionGroup var database: DatabaseOption
    @Option(name: .long, help: ArgumentHelp("The simulated board.", valueName: "BOARD.toml"))
    var board = "boards/sim-plate4.toml"
    @Option(name: .long, help: ArgumentHelp("Its plan.", valueName: "PLAN.toml"))
    var plan = "calibration/plans/sim-plate4.toml"
    @Option(name: .long, help: ArgumentHelp("Where the base session is recorded (reused when there).", valueName: "DIR"))
    var work: String?
    @Option(name: .long) var calibrations = 10_000
    @Option(name: .long) var stations = 8
    @Option(name: .long) var days = 20
    @Option(name: .long) var lots = 12
    @Option(name: .long) var seed: UInt64 = 1
    @Option(name: .long, help: "The station (1...stations) whose fixture drifts; 0: none.") var driftStation = 3
    @Option(name: .long) var driftPct = 4.0
    @Option(name: .long, help: "The lot (1...lots) with noisier cells; 0: none.") var noisyLot = 8
    @Option(name: .long) var noiseFactor = 1.6
    @Option(name: .long, help: "First day (UTC).") var start = "2026-01-05"
    @Option(name: .long, help: "Rows a transaction (1: as calibrate writes them).") var batch = 500

    func validate() throws {
      guard (1...10_000_000).contains(calibrations) else { throw ValidationError("--calibrations: 1 to 10000000") }
      guard (1...1000).contains(stations), (1...100_000).contains(days), (1...10_000).contains(lots) else {
        throw ValidationError("--stations 1...1000, --days 1...100000, --lots 1...10000")
      }
      guard (0...stations).contains(driftStation), (0...lots).contains(noisyLot) else {
        throw ValidationError("--drift-station 0...stations, --noisy-lot 0...lots")
      }
      guard (1...100_000).contains(batch) else { throw ValidationError("--batch: 1 to 100000") }
      guard FactoryTime.milliseconds(start) != nil else { throw ValidationError("--start: YYYY-MM-DD") }
    }

    func run() throws {
      let b = try Board.load(path: board)
      let p = try CalibrationPlan.load(path: plan, board: b)
      let directory = work ?? "\(Paths.directory(of: b.file))../calibration/sessions/\(b.name)-line-base"
      if !TextFile.exists(directory + "/" + CalibrationSession.planFile) {
        do {
          try EvaluationSteps.calibrateLive(board: b, plan: p, directory: directory, date: UTCDate.now())
        } catch {
          throw CommandFailure(message: "the base session: \(error)", status: .error)
        }
      }
      let session = try CalibrationSession.load(directory: directory, board: b)
      var data: [StepData] = []
      for step in session.steps { data.append(try StepData.read(step, session: session, board: b)) }
      var settings = SeededLine.Settings()
      settings.calibrations = calibrations
      settings.stations = stations
      settings.days = days
      settings.lots = lots
      settings.seed = seed
      settings.driftStation = driftStation == 0 ? nil : driftStation
      settings.drift_pct = driftPct
      settings.noisyLot = noisyLot == 0 ? nil : noisyLot
      settings.noiseFactor = noiseFactor
      settings.start = start
      let line = SeededLine(board: b, session: session, data: data, settings: settings)
      let batch = self.batch
      let total = calibrations
      let started = monotonicMicroseconds()
      let (written, writing) = try withFactoryDatabase(database.db) { db in
        var pending: [CalibrationRow] = []
        var written = 0
        var writing: Int64 = 0  // microseconds in the database
        var shown = monotonicMicroseconds()
        var rows = line.makeIterator()
        while let row = rows.next() {
          pending.append(row)
          if pending.count >= batch {
            let t = monotonicMicroseconds()
            written += try await db.insert(pending)
            writing += monotonicMicroseconds() - t
            pending.removeAll(keepingCapacity: true)
            if Terminal.errorIsTerminal, monotonicMicroseconds() - shown > 200_000 {
              shown = monotonicMicroseconds()
              Terminal.writeError("\rsimulate-line: \(written)/\(total) calibrations   ")
            }
          }
        }
        if !pending.isEmpty {
          let t = monotonicMicroseconds()
          written += try await db.insert(pending)
          writing += monotonicMicroseconds() - t
        }
        if Terminal.errorIsTerminal { Terminal.writeError("\n") }
        return (written, writing)
      }
      let seconds = Double(monotonicMicroseconds() - started) / 1e6
      Terminal.writeError(
        "simulate-line: \(written) calibrations into \(FactoryDatabase.shown(database.db)) in \(Format.fixed(seconds, 1)) s "
          + "(generated and written, \(batch) a transaction); writing \(Format.fixed(Double(writing) / 1e6, 1)) s, "
          + "\(Format.fixed(Double(written) / max(Double(writing) / 1e6, 1e-9), 0)) rows/s\n")
    }
  }
}
