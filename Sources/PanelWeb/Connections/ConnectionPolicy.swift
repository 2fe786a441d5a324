import NIOCore
import PanelFirmware

/// What the server allows each connection, and how many at once
/// (docs/serve.md, "Connections").
package struct ConnectionPolicy: Sendable {
  /// The most connections at once; at the cap the HTTP connection that has
  /// waited longest for a request is closed for a new one, and accepting
  /// pauses while none is left to close.
  package var maxConnections: Int
  /// A request's head must be complete within this time of the
  /// connection's start or of the previous request's head: a slow sender
  /// (slowloris) and an idle keep-alive connection are closed after it.
  package var requestTimeout: TimeAmount = .seconds(10)
  /// Requests a connection may make a second (a burst of as many); beyond,
  /// its reading pauses until the next is due.
  package var requestsPerSecond = 20
  /// Output that cannot be written for this long (the peer takes nothing)
  /// closes the connection.
  package var stallTimeout: TimeAmount = .seconds(10)
  /// A WebSocket client is pinged this often, and closed when it has not
  /// answered a ping by the next.
  package var pingPeriod: Duration = .seconds(10)

  /// The default cap on connections (`--max-connections`).
  package static let defaultMaxConnections = 512
  /// Descriptors kept for everything that is not a connection: the
  /// files and devices of the run, a regions file a control line names,
  /// the scheduler reading /proc, the addresses' lookup. Each of those
  /// holds at most a few at a time.
  package static let reservedDescriptors = 64

  package init(maxConnections: Int) {
    self.maxConnections = max(1, maxConnections)
  }

  /// The cap for a process whose descriptors are limited to `limit`:
  /// `requested`, at most the soft limit less `reservedDescriptors`, so
  /// that the process never runs out of descriptors (where the thread
  /// pool's monitor, which reads /proc, would trap).
  package static func cap(requested: Int, limit: DescriptorLimit) -> Int {
    max(1, min(requested, limit.soft - reservedDescriptors))
  }
}
