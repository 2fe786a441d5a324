import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import PanelFirmware
import PanelServe
import ServiceLifecycle

#if canImport(Glibc)
  import Glibc
#endif

/// Why the server could not start.
package struct ServeError: Error, Sendable, CustomStringConvertible {
  package var message: String
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

/// The HTTP and WebSocket server of `panelctl serve` (Hummingbird 2 over
/// SwiftNIO, on its own threads):
///
/// - `GET /` the dashboard, `/forcepanel.js` the client library (and its
///   classic script and declarations), `/demo` the demo page (`WebFiles`,
///   compiled in); `/app/...` the folder of `--static` (`StaticFolder`);
/// - `GET /panel.json` the board, thresholds and calibration (`PanelInfo`),
///   `GET /status.json` frame rate, health and clients (`ServeStatus`),
///   `GET /metrics` the same for Prometheus (`PanelMetrics`);
/// - `GET /ws` a WebSocket: one text message per report line (`/ws?idle=1`
///   every frame, `/ws?image=1` every frame with its force image); what a
///   client sends are control lines, answered one by one (`ControlReply`).
///
/// Every request meets `Site` first (the `Host` check, HEAD, 405, 404,
/// CORS). Access is `ServeAccess`'s; how many connections, and how long each may
/// take, `ConnectionPolicy`'s (every connection passes a `ConnectionGuard`
/// first). The scan loop never waits for the server: it hands each report
/// to the hub (`ServeSink`), which every client reads at its own pace.
package final class PanelServer: Sendable {
  package let hub: ServeHub
  package let address: ListenAddress
  package let access: ServeAccess
  package let policy: ConnectionPolicy
  let connections: ConnectionTable
  /// The control input of all clients together (`InputBudget.allClients`).
  let sharedInput: Locked<InputBudget>
  /// Where clients' control lines are parsed: off the threads that hand
  /// out reports, below them in priority.
  let parsing = WorkThread()
  let info: PanelInfo
  let board: Board
  let metrics: PanelMetrics
  /// `--static DIR`, served under `/app/`.
  let folder: StaticFolder?
  /// `--db`: the factory's report page, made when asked for.
  let factoryReport: FactoryReportPage?

  /// Makes the factory report's page (HTML) from the database.
  package typealias FactoryReportPage = @Sendable () async throws -> String
  /// Where the report is served.
  package static let factoryReportPath = "/factory/report"
  let phase = Locked<Phase>(.starting)

  enum Phase: Sendable {
    case starting
    case listening(port: Int)
    case failed(any Error)
  }

  /// The largest control message taken (a regions line of many items; a
  /// regions file may have as many bytes).
  static let maxMessageBytes = 256 << 10

  /// What a request's head may hold (a browser's is under 2 KiB).
  static let headLimits = HTTP1Channel.Configuration.DecoderConfiguration(
    maxHeaderFieldSize: 8 << 10, maxHeaderListSize: 16 << 10, maxHeaderFieldCount: 100)

  package init(
    address: ListenAddress, access: ServeAccess, policy: ConnectionPolicy, board: Board, calibration: CalibrationRecord,
    hub: ServeHub, staticFolder: String? = nil, factoryReport: FactoryReportPage? = nil
  ) throws(ServeError) {
    self.factoryReport = factoryReport
    folder = try staticFolder.map { (path) throws(ServeError) in try StaticFolder(path: path) }
    metrics = PanelMetrics(board: board, calibration: calibration)
    self.address = address
    self.access = access
    self.policy = policy
    self.board = board
    self.hub = hub
    connections = ConnectionTable(cap: policy.maxConnections)
    sharedInput = Locked(.allClients(rate_hz: board.rate_hz, now_ns: monotonicNanoseconds()))
    info = PanelInfo(
      board: board, calibration: calibration, factoryReport: factoryReport == nil ? nil : Self.factoryReportPath)
  }

  /// The port listened on (0 before `start`).
  var port: Int {
    if case .listening(let port) = phase.withLock({ $0 }) { return port }
    return 0
  }

  /// The server's connections so far.
  package var connectionCounts: ConnectionCounts { connections.counts }

  /// What was not written for the rate limit: `123 refused WebSocket
  /// warnings not shown (at most 10 a minute)`.
  package var warningsNotShown: [String] { ServeLog.summary }

  /// Starts listening (on other threads) and returns the port, once the
  /// socket is bound; throws when it cannot be (address in use, ...).
  package func start() throws(ServeError) -> Int {
    var logger = Logger(label: "panelctl.serve") { _ in ServeLogHandler() }
    logger.logLevel = .warning
    let channel = HTTP1WebSocketUpgradeChannel.Configuration(
      http1: .init(httpDecoderConfiguration: Self.headLimits),
      ws: .init(
        maxFrameSize: Self.maxMessageBytes, autoPing: .enabled(timePeriod: policy.pingPeriod),
        closeTimeout: .seconds(2)))
    let server = HTTPServerBuilder { [self] responder in
      GuardedChannel(
        inner: HTTP1WebSocketUpgradeChannel(
          responder: responder, configuration: channel,
          shouldUpgrade: { [self] head, channel, _ in try upgrade(head, channel) }),
        table: connections, policy: policy)
    }
    let app = Application(
      responder: Site(routes: router().buildResponder(), access: access, folder: folder == nil ? nil : StaticFolder.mount),
      server: server,
      configuration: .init(
        address: .hostname(address.ip, port: address.port), serverName: "panelctl",
        availableConnectionsDelegate: connections.delegate),
      onServerRunning: { [phase] channel in
        phase.withLock { $0 = .listening(port: channel.localAddress?.port ?? 0) }
      },
      logger: logger)
    // Runs until the process exits (signals are panelctl's to handle: the
    // run ends cleanly, then the clients get their grace).
    let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
    let phase = self.phase
    Task.detached {
      do {
        try await services.run()
      } catch {
        phase.withLock { p in
          if case .starting = p { p = .failed(error) }
        }
      }
    }
    // Bound in milliseconds; a server that has said nothing in 30 s is stuck.
    let deadline = monotonicMicroseconds() + 30_000_000
    while true {
      switch phase.withLock({ $0 }) {
      case .listening(let port): return port
      case .failed(let error):
        throw ServeError("cannot listen on \(address.text): \(Self.reason(error, address))")
      case .starting:
        if monotonicMicroseconds() > deadline { throw ServeError("cannot listen on \(address.text): no answer in 30 s") }
        Self.pause_ms(2)
      }
    }
  }

  /// After the stream has ended (`ServeSink.finish`): gives the clients up
  /// to `grace_s` to take what is left, then counts what the ones still
  /// behind (stalled) never got as dropped, and returns their counts.
  package func finish(grace_s: Double) -> [ClientCounts] {
    let deadline = monotonicMicroseconds() + Int64(grace_s * 1e6)
    while !hub.drained && monotonicMicroseconds() < deadline { Self.pause_ms(5) }
    // Closing handshakes of the clients that have read everything.
    while hub.connected > 0 && hub.drained && monotonicMicroseconds() < deadline { Self.pause_ms(5) }
    var stalled: [ClientCounts] = []
    for c in hub.handles {
      if let counts = hub.leave(c) { stalled.append(counts) }
    }
    return stalled
  }

  /// Why binding failed, in words, with what to do.
  static func reason(_ error: any Error, _ address: ListenAddress) -> String {
    guard let io = error as? IOError else { return "\(error)" }
    switch io.errnoCode {
    case EADDRINUSE:
      return "the port is in use (another server, or another panelctl serve, listens there): stop it, or choose another port; --listen \(address.ip.contains(":") ? "[\(address.ip)]" : address.ip):0 takes a free one"
    case EACCES:
      return "permission denied (ports below 1024 need privileges): choose a port from 1024 on"
    case EADDRNOTAVAIL:
      return "\(address.ip) is not an address of this machine"
    default:
      return String(cString: strerror(io.errnoCode))
    }
  }

  static func pause_ms(_ ms: Int) {
    var t = timespec(tv_sec: 0, tv_nsec: ms * 1_000_000)
    var rest = timespec()
    while nanosleep(&t, &rest) != 0 && errno == EINTR { t = rest }
  }

  // MARK: HTTP

  func router() -> Router<BasicRequestContext> {
    let router = Router(options: .autoGenerateHeadEndpoints)
    for file in WebFiles.all {
      let body = NIOCore.ByteBuffer(bytes: file.bytes)
      var headers = HTTPFields()
      headers[.contentType] = file.contentType
      headers[.cacheControl] = "no-cache"
      headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
      let response = Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
      router.get(RouterPath(file.path)) { _, _ in response }
    }
    router.get("/panel.json") { [info, access] request, _ in
      let control = access.grantsControl(token: request.uri.queryParameters["token"].map(String.init))
      return Self.json(info.json(control: control, tokenRequired: !access.loopback))
    }
    router.get("/status.json") { [hub, connections] _, _ in
      Self.json(hub.status.json(clients: hub.clients, totals: hub.totals, connections: connections.counts))
    }
    router.get("/metrics") { [hub, connections, metrics] _, _ in
      var headers = HTTPFields()
      headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
      headers[.cacheControl] = "no-cache"
      let text = metrics.scrape(status: hub.status, totals: hub.totals, connections: connections.counts)
      return Response(status: .ok, headers: headers, body: .init(byteBuffer: NIOCore.ByteBuffer(bytes: text)))
    }
    if let factoryReport {
      // The line's data (serials, operators): off loopback, for the token's holder.
      router.get(RouterPath(Self.factoryReportPath)) { [access] request, _ in
        guard access.grantsControl(token: request.uri.queryParameters["token"].map(String.init)) else {
          return Self.text(.forbidden, "the factory report needs the token: \(Self.factoryReportPath)?token=…")
        }
        do {
          var headers = HTTPFields()
          headers[.contentType] = "text/html; charset=utf-8"
          headers[.cacheControl] = "no-cache"
          return Response(status: .ok, headers: headers, body: .init(byteBuffer: NIOCore.ByteBuffer(string: try await factoryReport())))
        } catch {
          ServeLog.warn("factory report", "the factory report failed: \(error)")
          return Self.text(.serviceUnavailable, "the factory database cannot be read now: \(error)")
        }
      }
    }
    // A request for /ws that was not upgraded: say why.
    router.get("/ws") { [self] request, _ in
      if let refusal = access.check(
        host: request.head.authority, origin: request.headers[HTTPField.Name("Origin")!], port: port)
      {
        return Self.text(.forbidden, refusal.description)
      }
      if !hub.hasRoom {
        ServeLog.warn("refused WebSocket", "refused a WebSocket request: too many clients (at most \(hub.capacity))")
        return Self.text(.serviceUnavailable, "too many clients (at most \(hub.capacity))")
      }
      return Self.text(.badRequest, "a WebSocket upgrade request was expected")
    }
    if let folder {
      // Last: it serves what no route took.
      router.add(middleware: FileMiddleware(fileProvider: folder, urlBasePath: StaticFolder.mount, searchForIndexHtml: true))
    }
    return router
  }

  static func json(_ text: String) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-cache"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: NIOCore.ByteBuffer(string: text)))
  }

  static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "text/plain; charset=utf-8"
    return Response(status: status, headers: headers, body: .init(byteBuffer: NIOCore.ByteBuffer(string: text + "\n")))
  }

  // MARK: WebSocket

  typealias Upgrade = ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>

  /// Upgrades `GET /ws` when `ServeAccess` lets it in and there is room;
  /// anything else goes on to the router (which says why).
  func upgrade(_ head: HTTPRequest, _ channel: any Channel) throws -> Upgrade {
    let uri = URI(head.path ?? "/")
    guard uri.path == "/ws" else { return .dontUpgrade }
    let peer = channel.remoteAddress
    let address = "\(peer?.ipAddress ?? "?"):\(peer?.port ?? 0)"
    // A refused upgrade is answered 400 by Hummingbird; the reason goes to
    // the log (and a plain GET of /ws gives it with 403).
    if let refusal = access.check(host: head.authority, origin: head.headerFields[HTTPField.Name("Origin")!], port: port) {
      ServeLog.warn("refused WebSocket", "refused a WebSocket from \(address): \(refusal)")
      return .dontUpgrade
    }
    // The run has ended: the process is about to exit.
    if hub.status.ended { return .dontUpgrade }
    let query = uri.queryParameters
    let kind: StreamKind = query["image"] == "1" ? .image : query["idle"] == "1" ? .idle : .reports
    let control = access.grantsControl(token: query["token"].map(String.init))
    let pipeline = channel.pipeline.syncOperations
    let connection = try pipeline.handler(type: ConnectionGuard.self)
    let context = try pipeline.context(handlerType: ConnectionGuard.self)
    // Its place is taken now, before the 101 goes out (the session starts
    // later, on another task): a client that asks meanwhile finds it taken.
    guard let client = hub.join(kind: kind, address: address, control: control) else {
      ServeLog.warn("refused WebSocket", "refused a WebSocket from \(address): too many clients (at most \(hub.capacity))")
      return .dontUpgrade
    }
    // From here on its guard pings instead of timing requests, and gives
    // the place back if the connection closes before the session starts.
    connection.upgradedToWebSocket(context) { [hub] in hub.abandon(client) }
    return .upgrade([:]) { [self] inbound, outbound, _ in
      try await session(inbound, outbound, client: client, kind: kind, address: address, control: control)
    }
  }

  /// One client (its place taken at the upgrade): report lines out as the
  /// hub has them, control lines in.
  func session(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
    client: ClientHandle, kind: StreamKind, address: String, control: Bool
  ) async throws {
    // Its connection closed before the session began: its place is given back.
    guard hub.claim(client) else { return }
    ServeLog.write("client #\(client.id) \(address) connected (\(kind.rawValue)\(control ? "" : ", read-only"))")
    do {
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { [self] in
          defer { hub.gone(client) }
          try await readControl(inbound, from: client, control: control)
        }
        while let message = await hub.next(client, copy: { NIOCore.ByteBuffer(bytes: $0) }) {
          switch message {
          case .line(let bytes):
            do {
              try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: bytes)))
              hub.delivered(client, true)
            } catch {
              hub.delivered(client, false)
              throw error
            }
          case .reply(let text):
            try await outbound.write(.text(text))
          }
        }
        if hub.status.ended { try await outbound.close(.normalClosure, reason: "stream ended") }
        try await group.waitForAll()
      }
    } catch {
      // The connection broke: what it had not taken is counted below.
    }
    if let counts = hub.leave(client) {
      ServeLog.write("client #\(counts.id) \(address) closed: sent \(counts.sent), dropped \(counts.dropped)")
    }
  }

  /// The control lines `client` sends, under its `InputBudget` and the one
  /// all clients share: a line is parsed once paid for in both and once
  /// fewer than `ServeHub.maxWaitingControl` of its lines wait for the
  /// panel; meanwhile nothing more is read from its connection. Lines are
  /// parsed on `parsing`'s thread, one at a time (a client's in order). A
  /// message is split into lines by `ControlText` (every line answered
  /// once); a binary message counts as one line and is answered with an
  /// error.
  func readControl(_ inbound: WebSocketInboundStream, from client: ClientHandle, control: Bool) async throws {
    var own = InputBudget.perClient(rate_hz: board.rate_hz, now_ns: monotonicNanoseconds())
    for try await message in inbound.messages(maxSize: Self.maxMessageBytes) {
      let lines: [ArraySlice<UInt8>]
      switch message {
      case .text(let text): lines = ControlText.lines(Array(text.utf8))
      case .binary(let bytes): lines = [ArraySlice(bytes.readableBytesView)]
      }
      let binary = if case .binary = message { true } else { false }
      for line in lines {
        let size = line.count
        while case let wait = own.take(size: size, now_ns: monotonicNanoseconds()), wait > 0 {
          try await Task.sleep(nanoseconds: UInt64(wait))
        }
        while case let wait = sharedInput.withLock({ $0.take(size: size, now_ns: monotonicNanoseconds()) }), wait > 0 {
          try await Task.sleep(nanoseconds: UInt64(wait))
        }
        guard await hub.roomForControl(client) else { return }
        await parsing.run { [self] in received(line, binary: binary, from: client, control: control) }
      }
    }
  }

  /// A control line from `client`: refused without control; else parsed
  /// (errors answered at once) and queued for the scan loop. A `regions`
  /// line's items are read one by one (`ClientItems`) into the client's
  /// own layer.
  func received(_ bytes: ArraySlice<UInt8>, binary: Bool, from client: ClientHandle, control: Bool) {
    guard let number = hub.nextLineNumber(client) else { return }
    let source = ControlReply.source(client)
    if binary {
      hub.reply(
        client, ControlReply.error(line: number, "\(source):\(number): a binary message; control lines are text (UTF-8)"))
      return
    }
    if let why = ControlText.tooLong(bytes) {
      hub.reply(client, ControlReply.error(line: number, "\(source):\(number): \(why)"))
      return
    }
    guard control else {
      hub.reply(
        client,
        ControlReply.refused(
          line: number,
          "read-only: this server listens on \(address.text), so control lines need its token (/ws?token=...)"))
      return
    }
    let text = String(decoding: bytes, as: UTF8.self)
    do {
      if let (at, list) = try ClientItems.itemsLine(text, source: source, line: number) {
        let items = try ClientItems(
          list: list, scope: ClientItems.scope(client), board: board, source: source, line: number)
        hub.submit(ControlLine(at_s: at, command: .regions(items.map)), from: client, number: number, items: items)
        return
      }
      guard let line = try ControlLine.parse(text, file: source, line: number, board: board, files: false) else {
        hub.reply(client, ControlReply.ok(line: number))
        return
      }
      // There is room: `readControl` waited for it.
      hub.submit(line, from: client, number: number)
    } catch {
      hub.reply(client, ControlReply.error(line: number, error.description))
    }
  }
}

/// swift-log's messages of the server (warnings and worse) as
/// `panelctl: serve:` lines on standard error, at most 10 of one message a
/// minute (a peer can make the library repeat itself: a connection closed
/// before its request, for one).
struct ServeLogHandler: LogHandler {
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .warning

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let error = event.metadata?["error.type"].map { " (\($0))" } ?? ""
    ServeLog.warn("\(event.message)", "\(event.level): \(event.message)\(error)")
  }
}
