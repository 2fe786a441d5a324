import NIOCore
import PanelServe

/// The first handler of every connection, before HTTP: it sees the raw
/// bytes. Over HTTP a request's head (up to its blank line) must be
/// complete within `requestTimeout` of the connection's start or of the
/// previous head, else the connection is closed: a slowloris sender, and a
/// keep-alive connection left idle. A connection gets at most
/// `requestsPerSecond` requests a second (a burst of as many): beyond, its
/// reading pauses until the next is due, so a client that asks without end
/// costs a bounded share of the server. Once upgraded to a WebSocket those
/// rules end (the client is then pinged, and its control lines have their
/// own budget). Either way, output that cannot be written for
/// `stallTimeout` (the peer takes nothing) closes the connection.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = IOData
  typealias OutboundOut = IOData

  let table: ConnectionTable
  let policy: ConnectionPolicy
  var started = false
  var webSocket = false
  /// How much of CR LF CR LF (the end of a head) the last bytes matched.
  var matched = 0
  var headTimer: Scheduled<Void>?
  var stallTimer: Scheduled<Void>?
  /// Requests that may come now, in requests x nanoseconds (a second adds
  /// `requestsPerSecond` x 1e9); below one request, reading pauses.
  var requestCredit: Int64 = 0
  var creditAt = NIODeadline.now()
  var resumeTimer: Scheduled<Void>?
  /// A read was asked for while paused.
  var readWanted = false
  /// Called once when the connection ends (a WebSocket's place in the hub,
  /// if its session never started).
  var onStop: (() -> Void)?

  init(table: ConnectionTable, policy: ConnectionPolicy) {
    self.table = table
    self.policy = policy
  }

  var key: ObjectIdentifier { ObjectIdentifier(self) }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { start(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    start(context)
    context.fireChannelActive()
  }

  func start(_ context: ChannelHandlerContext) {
    guard !started else { return }
    started = true
    requestCredit = Int64(policy.requestsPerSecond) * 1_000_000_000
    creditAt = .now()
    table.register(key, channel: context.channel)
    armHeadTimer(context)
  }

  func channelInactive(context: ChannelHandlerContext) {
    stop()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    stop()
  }

  func stop() {
    headTimer?.cancel()
    headTimer = nil
    stallTimer?.cancel()
    stallTimer = nil
    resumeTimer?.cancel()
    resumeTimer = nil
    table.unregister(key)
    let ended = onStop
    onStop = nil
    ended?()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if !webSocket && headEnds(in: unwrapInboundIn(data)) {
      table.headCompleted(key)
      armHeadTimer(context)
      spendRequest(context)
    }
    context.fireChannelRead(data)
  }

  // MARK: Requests a second

  func read(context: ChannelHandlerContext) {
    if resumeTimer != nil {
      readWanted = true
    } else {
      context.read()
    }
  }

  /// One request more: when none is left, reading pauses until one is.
  func spendRequest(_ context: ChannelHandlerContext) {
    let now = NIODeadline.now()
    let perSecond = Int64(policy.requestsPerSecond)
    let elapsed = (now - creditAt).nanoseconds
    creditAt = now
    requestCredit = min(perSecond * 1_000_000_000, requestCredit + elapsed * perSecond) - 1_000_000_000
    guard requestCredit < 1_000_000_000, resumeTimer == nil else { return }
    let wait = (1_000_000_000 - requestCredit + perSecond - 1) / perSecond
    resumeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(wait)) { [self] in
      resumeTimer = nil
      if readWanted {
        readWanted = false
        context.read()
      }
    }
  }

  /// Whether `bytes` complete a request head (a blank line: CR LF CR LF).
  func headEnds(in bytes: ByteBuffer) -> Bool {
    var ended = false
    for byte in bytes.readableBytesView {
      let expected: UInt8 = matched % 2 == 0 ? 13 : 10
      if byte == expected {
        matched += 1
        if matched == 4 {
          ended = true
          matched = 0
        }
      } else {
        matched = byte == 13 ? 1 : 0
      }
    }
    return ended
  }

  func armHeadTimer(_ context: ChannelHandlerContext) {
    headTimer?.cancel()
    headTimer = context.eventLoop.assumeIsolated().scheduleTask(in: policy.requestTimeout) { [self] in
      headTimer = nil
      guard !webSocket else { return }
      table.count(.requestTimeout)
      context.close(promise: nil)
    }
  }

  /// The connection is a WebSocket from now on (called on its event loop);
  /// `ended` is called when it closes.
  func upgradedToWebSocket(_ context: ChannelHandlerContext, ended: @escaping () -> Void) {
    webSocket = true
    onStop = ended
    headTimer?.cancel()
    headTimer = nil
    if resumeTimer != nil {
      resumeTimer?.cancel()
      resumeTimer = nil
      if readWanted {
        readWanted = false
        context.read()
      }
    }
    table.upgradedToWebSocket(key)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      stallTimer?.cancel()
      stallTimer = nil
    } else if stallTimer == nil {
      stallTimer = context.eventLoop.assumeIsolated().scheduleTask(in: policy.stallTimeout) { [self] in
        stallTimer = nil
        table.count(.stalled)
        context.close(promise: nil)
      }
    }
    context.fireChannelWritabilityChanged()
  }
}
