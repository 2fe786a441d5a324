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
public struct ServeError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// The HTTP and WebSocket server of `panelctl serve` (Hummingbird 2 over
/// SwiftNIO, on its own threads):
///
/// - `GET /` the dashboard, `/forcepanel.js` the client library, `/demo`
///   the demo page (`WebFiles`, compiled in);
/// - `GET /panel.json` the board, thresholds and calibration (`PanelInfo`),
///   `GET /status.json` frame rate, health and clients (`ServeStatus`);
/// - `GET /ws` a WebSocket: one text message per report line (`/ws?idle=1`
///   every frame, `/ws?image=1` every frame with its force image); what a
///   client sends are control lines, answered one by one (`ControlReply`).
///
/// Access is `ServeAccess`'s; how many connections, and how long each may
/// take, `ConnectionPolicy`'s (every connection passes a `ConnectionGuard`
/// first). The scan loop never waits for the server: it hands each report
/// to the hub (`ServeSink`), which every client reads at its own pace.
public final class PanelServer: Sendable {
  public let hub: ServeHub
  public let address: ListenAddress
  public let access: ServeAccess
  public let policy: ConnectionPolicy
  let connections: ConnectionTable
  /// The control input of all clients together (`InputBudget.allClients`).
  let sharedInput: Locked<InputBudget>
  let info: PanelInfo
  let board: Board
  let phase = Locked<Phase>(.starting)

  enum Phase: Sendable {
    case starting
    case listening(port: Int)
    case failed(String)
  }

  /// The largest control message taken (a regions line of many items; a
  /// regions file may have as many bytes).
  static let maxMessageBytes = 256 << 10

  /// What a request's head may hold (a browser's is under 2 KiB).
  static let headLimits = HTTP1Channel.Configuration.DecoderConfiguration(
    maxHeaderFieldSize: 8 << 10, maxHeaderListSize: 16 << 10, maxHeaderFieldCount: 100)

  public init(
    address: ListenAddress, access: ServeAccess, policy: ConnectionPolicy, board: Board, calibration: CalibrationRecord,
    hub: ServeHub
  ) {
    self.address = address
    self.access = access
    self.policy = policy
    self.board = board
    self.hub = hub
    connections = ConnectionTable(cap: policy.maxConnections)
    sharedInput = Locked(.allClients(rate_hz: board.rate_hz, now_ns: monotonicNanoseconds()))
    info = PanelInfo(board: board, calibration: calibration)
  }

  /// The port listened on (0 before `start`).
  var port: Int {
    if case .listening(let port) = phase.withLock({ $0 }) { return port }
    return 0
  }

  /// The server's connections so far.
  public var connectionCounts: ConnectionCounts { connections.counts }

  /// What was not written for the rate limit: `123 refused WebSocket
  /// warnings not shown (at most 10 a minute)`.
  public var warningsNotShown: [String] { ServeLog.summary }

  /// Starts listening (on other threads) and returns the port, once the
  /// socket is bound; throws when it cannot be (address in use, ...).
  public func start() throws(ServeError) -> Int {
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
      router: router(),
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
          if case .starting = p { p = .failed("\(error)") }
        }
      }
    }
    // Bound in milliseconds; a server that has said nothing in 30 s is stuck.
    let deadline = monotonicMicroseconds() + 30_000_000
    while true {
      switch phase.withLock({ $0 }) {
      case .listening(let port): return port
      case .failed(let why):
        throw ServeError("cannot listen on \(address.text): \(why)")
      case .starting:
        if monotonicMicroseconds() > deadline { throw ServeError("cannot listen on \(address.text): no answer in 30 s") }
        Self.pause_ms(2)
      }
    }
  }

  /// After the stream has ended (`ServeSink.finish`): gives the clients up
  /// to `grace_s` to take what is left, then counts what the ones still
  /// behind (stalled) never got as dropped, and returns their counts.
  public func finish(grace_s: Double) -> [ClientCounts] {
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

  static func pause_ms(_ ms: Int) {
    var t = timespec(tv_sec: 0, tv_nsec: ms * 1_000_000)
    var rest = timespec()
    while nanosleep(&t, &rest) != 0 && errno == EINTR { t = rest }
  }

  // MARK: HTTP

  func router() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: HostCheck(access: access))
    for file in WebFiles.all {
      let body = NIOCore.ByteBuffer(bytes: file.bytes)
      var headers = HTTPFields()
      headers[.contentType] = file.contentType
      headers[.cacheControl] = "no-cache"
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
    // A request for /ws that was not upgraded: say why.
    router.get("/ws") { [self] request, _ in
      if let refusal = access.check(
        host: request.head.authority, origin: request.headers[HTTPField.Name("Origin")!], port: port)
      {
        return Self.text(.forbidden, refusal.description)
      }
      if !hub.hasRoom { return Self.text(.serviceUnavailable, "too many clients (at most \(hub.capacity))") }
      return Self.text(.badRequest, "a WebSocket upgrade request was expected")
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
    guard hub.hasRoom else {
      ServeLog.warn("refused WebSocket", "refused a WebSocket from \(address): too many clients (at most \(hub.capacity))")
      return .dontUpgrade
    }
    let query = uri.queryParameters
    let kind: StreamKind = query["image"] == "1" ? .image : query["idle"] == "1" ? .idle : .reports
    let control = access.grantsControl(token: query["token"].map(String.init))
    // From here on its guard pings instead of timing requests.
    let pipeline = channel.pipeline.syncOperations
    try pipeline.handler(type: ConnectionGuard.self).upgradedToWebSocket(pipeline.context(handlerType: ConnectionGuard.self))
    return .upgrade([:]) { [self] inbound, outbound, _ in
      try await session(inbound, outbound, kind: kind, address: address, control: control)
    }
  }

  /// One client: report lines out as the hub has them, control lines in.
  func session(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
    kind: StreamKind, address: String, control: Bool
  ) async throws {
    guard let client = hub.join(kind: kind, address: address, control: control) else {
      try await outbound.close(.unknown(1013), reason: "too many clients")
      return
    }
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
  /// panel; meanwhile nothing more is read from its connection.
  func readControl(_ inbound: WebSocketInboundStream, from client: ClientHandle, control: Bool) async throws {
    var own = InputBudget.perClient(rate_hz: board.rate_hz, now_ns: monotonicNanoseconds())
    for try await message in inbound.messages(maxSize: Self.maxMessageBytes) {
      guard case .text(let text) = message else { continue }
      for line in text.split(separator: "\n") {
        let size = line.utf8.count
        while case let wait = own.take(size: size, now_ns: monotonicNanoseconds()), wait > 0 {
          try await Task.sleep(nanoseconds: UInt64(wait))
        }
        while case let wait = sharedInput.withLock({ $0.take(size: size, now_ns: monotonicNanoseconds()) }), wait > 0 {
          try await Task.sleep(nanoseconds: UInt64(wait))
        }
        guard await hub.roomForControl(client) else { return }
        received(String(line), from: client, control: control)
      }
    }
  }

  /// A control line from `client`: refused without control; else parsed
  /// (errors answered at once) and queued for the scan loop.
  func received(_ text: String, from client: ClientHandle, control: Bool) {
    guard let number = hub.nextLineNumber(client) else { return }
    guard control else {
      hub.reply(
        client,
        ControlReply.refused(
          line: number,
          "read-only: this server listens on \(address.text), so control lines need its token (/ws?token=...)"))
      return
    }
    do {
      let source = ControlReply.source(client)
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

/// Refuses every request whose `Host` `ServeAccess` does not accept.
struct HostCheck: RouterMiddleware {
  let access: ServeAccess

  func handle(
    _ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response
  ) async throws -> Response {
    if let refusal = access.check(host: request.head.authority) {
      return PanelServer.text(.forbidden, refusal.description)
    }
    return try await next(request, context)
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
