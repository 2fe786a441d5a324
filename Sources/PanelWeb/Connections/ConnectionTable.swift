import HummingbirdCore
import NIOCore
import PanelServe

/// Every open connection of the server: counted against the cap (as
/// Hummingbird's `AvailableConnectionsDelegate`), and, for the cap, when
/// each last completed a request's head. At the cap, the HTTP connection
/// that has waited longest is closed to make room (a slowloris connection,
/// an idle keep-alive one); WebSockets are never taken. Accepting pauses
/// only when no HTTP connection is left to close.
final class ConnectionTable: Sendable {
  let cap: Int
  /// The count at which accepting pauses: one accept can take up to
  /// `acceptBatch` connections (SwiftNIO's `maxMessagesPerRead` of a
  /// listening channel), so it pauses that many short of the cap.
  let pauseAt: Int
  static let acceptBatch = 4

  struct Entry {
    let channel: any Channel
    /// The connection's start or its last complete request head.
    var since: NIODeadline
    var webSocket = false
  }

  struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    var counts = ConnectionCounts()
  }

  let state = Locked(State())

  init(cap: Int) {
    self.cap = max(1, cap)
    pauseAt = max(1, self.cap - Self.acceptBatch + 1)
    state.withLock { $0.counts.cap = self.cap }
  }

  /// A connection was accepted (before its pipeline is set up).
  func opened() {
    let victim: (any Channel)? = state.withLock { s in
      s.counts.open += 1
      s.counts.accepted += 1
      s.counts.most = max(s.counts.most, s.counts.open)
      guard s.counts.open >= pauseAt else { return nil }
      // At the cap: close the HTTP connection that has waited longest.
      guard let oldest = s.entries.filter({ !$0.value.webSocket }).min(by: { $0.value.since < $1.value.since }) else {
        return nil
      }
      s.entries.removeValue(forKey: oldest.key)
      s.counts.evicted += 1
      return oldest.value.channel
    }
    victim?.close(promise: nil)
  }

  /// A connection closed.
  func closed() {
    state.withLock { $0.counts.open -= 1 }
  }

  var accepting: Bool { state.withLock { $0.counts.open < pauseAt } }

  func register(_ key: ObjectIdentifier, channel: any Channel) {
    state.withLock { $0.entries[key] = Entry(channel: channel, since: .now()) }
  }

  func unregister(_ key: ObjectIdentifier) {
    _ = state.withLock { $0.entries.removeValue(forKey: key) }
  }

  /// A request's head is complete.
  func headCompleted(_ key: ObjectIdentifier) {
    state.withLock { $0.entries[key]?.since = .now() }
  }

  func upgradedToWebSocket(_ key: ObjectIdentifier) {
    state.withLock { $0.entries[key]?.webSocket = true }
  }

  func count(_ reason: ConnectionCounts.Closed) {
    state.withLock { s in
      switch reason {
      case .requestTimeout: s.counts.requestTimeouts += 1
      case .stalled: s.counts.stalled += 1
      }
    }
  }

  var counts: ConnectionCounts { state.withLock { $0.counts } }

  /// The table as Hummingbird's delegate (the listening channel stops
  /// accepting while it says no).
  var delegate: Delegate { Delegate(table: self) }

  struct Delegate: AvailableConnectionsDelegate {
    let table: ConnectionTable
    func connectionOpened() { table.opened() }
    func connectionClosed() { table.closed() }
    func isAcceptingNewConnections() -> Bool { table.accepting }
  }
}
