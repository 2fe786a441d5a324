import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel with WebSocket upgrade, with a
/// `ConnectionGuard` in front of each connection's pipeline.
struct GuardedChannel: ServerChildChannel {
  typealias Value = HTTP1WebSocketUpgradeChannel.Value

  let inner: HTTP1WebSocketUpgradeChannel
  let table: ConnectionTable
  let policy: ConnectionPolicy

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    do {
      try channel.pipeline.syncOperations.addHandler(ConnectionGuard(table: table, policy: policy), position: .first)
    } catch {
      return channel.eventLoop.makeFailedFuture(error)
    }
    return inner.setup(channel: channel, logger: logger)
  }

  func handle(value: Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }
}
