import NIOCore
import PanelServe

/// The first handler of every connection, before HTTP: it sees the raw
/// bytes. Over HTTP a request's head (up to its blank line) must be
/// complete within `requestTimeout` of the connection's start or of the
/// previous head, else the connection is closed: a slowloris sender, and a
/// keep-alive connection left idle. Once upgraded to a WebSocket that
/// rule ends (the client is then pinged). Either way, output that cannot
/// be written for `stallTimeout` (the peer takes nothing) closes the
/// connection.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  let table: ConnectionTable
  let policy: ConnectionPolicy
  var started = false
  var webSocket = false
  /// How much of CR LF CR LF (the end of a head) the last bytes matched.
  var matched = 0
  var headTimer: Scheduled<Void>?
  var stallTimer: Scheduled<Void>?

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
    table.unregister(key)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if !webSocket && headEnds(in: unwrapInboundIn(data)) {
      table.headCompleted(key)
      armHeadTimer(context)
    }
    context.fireChannelRead(data)
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

  /// The connection is a WebSocket from now on (called on its event loop).
  func upgradedToWebSocket() {
    webSocket = true
    headTimer?.cancel()
    headTimer = nil
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
