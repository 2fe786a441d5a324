import ArgumentParser
import PanelFactory
import PanelFactoryStore
import PanelFirmware
import PanelServe
import PanelWeb

/// `--listen`, `--token`, `--allow-origin`, `--hostname`, `--static`, `--db`,
/// `--max-clients`, `--max-connections`, `--wait-clients`.
struct ServeOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("Where to listen; port 0 takes a free one.", valueName: "HOST:PORT"))
  var listen = "127.0.0.1:8080"

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The token that grants control when not listening on loopback (default: a new one, printed).",
      valueName: "TOKEN"))
  var token: String?

  @Option(
    name: .customLong("allow-origin"),
    help: ArgumentHelp(
      "Also accept WebSockets from pages of this origin (repeatable), e.g. http://localhost:3000.",
      valueName: "ORIGIN"))
  var allowOrigin: [String] = []

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Also answer requests that name the server so (repeatable): a DNS name of it, a reverse proxy's.",
      valueName: "NAME"))
  var hostname: [String] = []

  @Option(
    name: .customLong("static"),
    help: ArgumentHelp("Also serve this folder of pages under /app/ (an integrator's pages).", valueName: "DIR"))
  var staticFolder: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The factory database (a SQLite file or postgres://USER@HOST[:PORT]/DB): its report at /factory/report, linked from the dashboard.",
      valueName: "DB"))
  var db: String?

  @Option(name: .customLong("max-clients"), help: "The most WebSocket clients at once.")
  var maxClients = 64

  @Option(
    name: .customLong("max-connections"),
    help: "The most connections at once (HTTP and WebSocket; fewer when the descriptor limit is lower).")
  var maxConnections = ConnectionPolicy.defaultMaxConnections

  @Option(
    name: .customLong("wait-clients"),
    help: ArgumentHelp("Start the panel once this many WebSocket clients are connected.", valueName: "N"))
  var waitClients = 0

  func validate() throws {
    do {
      _ = try SocketAddress.parse(listen, defaultPort: nil, ports: 0...65535)
    } catch {
      throw ValidationError("--listen \(error)")
    }
    for origin in allowOrigin {
      if case .failure(let why) = ServeAccess.origin(allowing: origin) { throw ValidationError("--allow-origin \(why)") }
    }
    if let token, token.utf8.count < 8 || token.contains(where: { $0 == " " || $0 == "&" || $0 == "#" }) {
      throw ValidationError("--token must be at least 8 characters, without spaces, & or #")
    }
    guard (1...1024).contains(maxClients) else { throw ValidationError("--max-clients must be 1...1024, is \(maxClients)") }
    guard (maxClients + ServeOptions.httpRoom...65536).contains(maxConnections) else {
      throw ValidationError(
        "--max-connections must be \(maxClients + ServeOptions.httpRoom)...65536 (--max-clients + \(ServeOptions.httpRoom)), is \(maxConnections)")
    }
    for name in hostname where name.isEmpty || name.contains(where: { $0 == ":" || $0 == "/" || $0 == " " }) {
      throw ValidationError("--hostname takes a name without port or scheme, e.g. panel.example.org; got \"\(name)\"")
    }
    if let db, !db.hasPrefix("postgres://"), !TextFile.exists(db) {
      throw ValidationError("--db \(Quote.text(db)): no such file (a station's database is made by calibrate)")
    }
    guard (0...maxClients).contains(waitClients) else {
      throw ValidationError("--wait-clients must be 0...\(maxClients) (--max-clients), is \(waitClients)")
    }
  }

  /// `--db`'s report page, made from the database at each request.
  var factoryReport: PanelServer.FactoryReportPage? {
    guard let location = db else { return nil }
    return {
      let db = try await FactoryDatabase.open(location)
      do {
        let filter = FactoryDatabase.Filter()
        let rows = try await db.summaries(filter)
        await db.close()
        return ReportHTML.page(FactoryReport(rows: rows, selection: filter.shown))
      } catch {
        await db.close()
        throw error
      }
    }
  }

  /// Connections kept for HTTP beside the most WebSocket clients.
  static let httpRoom = 16

  /// The connection cap and the client cap under the process's descriptor
  /// limit (raised to its hard limit first), and a line saying so when
  /// that limit lowered them.
  func caps() -> (connections: Int, clients: Int, note: String?) {
    let limit: DescriptorLimit
    var note: String? = nil
    do {
      limit = try DescriptorLimit.raiseSoftToHard()
    } catch {
      limit = (try? DescriptorLimit.current()) ?? DescriptorLimit(soft: 1024, hard: 1024)
      note = "cannot raise the descriptor limit (\(error)); it stays \(limit.soft)"
    }
    let connections = ConnectionPolicy.cap(requested: maxConnections, limit: limit)
    let clients = max(1, min(maxClients, connections - Self.httpRoom))
    if connections < maxConnections {
      note = (note.map { $0 + "; " } ?? "")
        + "at most \(connections) connections and \(clients) WebSocket clients: the descriptor limit is \(limit.soft) (\(ConnectionPolicy.reservedDescriptors) kept for files)"
    }
    return (connections, clients, note)
  }
}

extension PanelCtl {
  struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run the panel and serve it to browsers: a live dashboard, a WebSocket stream and forcepanel.js.",
      discussion: """
        GET / is the dashboard, /ws a WebSocket with one message per report \
        (the NDJSON lines of `stream`; /ws?idle=1 every frame, /ws?image=1 \
        with the force image) that takes control lines, /forcepanel.js the \
        client library for web pages, /demo its demo, /metrics the figures \
        for Prometheus (docs/serve.md). It runs until stopped (a scenario is \
        how the run starts), or for --duration or --frames. A slow browser \
        costs that browser dropped messages, never frames. On loopback \
        anyone on this machine may control the panel; elsewhere control \
        needs --token (a new one is printed when none is given).
        """)

    @OptionGroup var panel: PanelRunOptions
    @OptionGroup var serve: ServeOptions
    @OptionGroup var devices: DeviceOutputOptions

    /// How long clients get at the end to take what is left.
    static let grace_s = 2.0

    func run() throws {
      try devices.checkOutputs()
      let (run, frontEnd) = try panel.open(command: "serve", untilStopped: true)
      let extra = try devices.sinks(board: run.board)
      let address: ListenAddress
      do {
        address = try ListenAddress(serve.listen)
      } catch {
        throw CommandFailure(message: "--listen \(error)", status: .error)
      }
      var token = serve.token
      if !address.loopback && token == nil { token = ServeAccess.generateToken() }
      let caps = serve.caps()
      if let note = caps.note { Terminal.writeError("panelctl: serve: \(note)\n") }
      let hub = ServeHub(capacity: caps.clients)
      let server: PanelServer
      do {
        server = try PanelServer(
        address: address,
        access: ServeAccess(
          loopback: address.loopback, token: address.loopback ? nil : token, allowedOrigins: serve.allowOrigin,
          names: ServerNames(listen: address.ip, hostnames: serve.hostname)),
        policy: ConnectionPolicy(maxConnections: caps.connections),
        board: run.board, calibration: run.calibration, hub: hub, staticFolder: serve.staticFolder,
        factoryReport: serve.factoryReport)
      } catch {
        throw CommandFailure(message: error.description, status: .error)
      }
      let port: Int
      do {
        port = try server.start()
      } catch {
        throw CommandFailure(message: error.description, status: .error)
      }
      announce(address, port: port, token: address.loopback ? nil : token)
      Terminal.stopOnSignals()
      guard waitForClients(hub) else { return }
      try run.run(frontEnd, SinkPair(ServeSink(hub: hub, board: run.board), extra))
      for c in server.finish(grace_s: Self.grace_s) {
        Terminal.writeError(
          "panelctl: serve: client #\(c.id) \(c.address) still behind at the end: sent \(c.sent), dropped \(c.dropped)\n")
      }
      let t = hub.totals
      Terminal.writeError(
        "panelctl: serve: frames \(hub.status.frames); ws clients \(t.clients) (at most \(t.mostAtOnce) at once): sent \(t.sent), dropped \(t.dropped)\n"
      )
      for line in server.warningsNotShown { Terminal.writeError("panelctl: serve: \(line)\n") }
      let c = server.connectionCounts
      Terminal.writeError(
        "panelctl: serve: connections \(c.accepted) (at most \(c.most) at once, the cap \(c.cap)): closed \(c.evicted) for room, \(c.requestTimeouts) without a request in time, \(c.stalled) that took nothing\n"
      )
    }

    func announce(_ address: ListenAddress, port: Int, token: String?) {
      let base = address.url(port: port)
      let ws = address.url(port: port, scheme: "ws") + "/ws"
      Terminal.writeError("panelctl: serve: listening on \(base)/ (dashboard), \(ws) (stream), \(base)/forcepanel.js\n")
      if serve.staticFolder != nil { Terminal.writeError("panelctl: serve: pages of --static at \(base)/app/\n") }
      if serve.db != nil { Terminal.writeError("panelctl: serve: the factory report at \(base)\(PanelServer.factoryReportPath)\n") }
      if let token {
        let generated = serve.token == nil ? "a new token" : "the token"
        // Listening on every address: the URLs another machine can open.
        let urls = address.reachable(port: port).map { "\($0)/?token=\(token)" }
        Terminal.writeError(
          "panelctl: serve: not on loopback: control needs \(generated): \(urls.joined(separator: " or ")) (\(ws)?token=\(token))\n")
      }
    }

    /// Holds the start until `--wait-clients` clients are connected;
    /// false when a stop was asked for meanwhile.
    func waitForClients(_ hub: ServeHub) -> Bool {
      guard serve.waitClients > 0 else { return true }
      Terminal.writeError("panelctl: serve: waiting for \(serve.waitClients) WebSocket clients\n")
      while hub.connected < serve.waitClients {
        if Terminal.shouldStop { return false }
        Terminal.pause_ms(5)
      }
      return true
    }
  }
}
