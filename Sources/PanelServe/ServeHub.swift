import PanelFirmware
import Synchronization

/// What a WebSocket client reads (`/ws?idle=1`, `/ws?image=1`).
public enum StreamKind: String, Sendable {
  /// The report stream as `panelctl stream` writes it: frames with a touch
  /// or an event.
  case reports
  /// Every frame (`stream --idle`).
  case idle
  /// Every frame with its force image (`stream --image`).
  case image
}

/// A client's place in the hub.
public struct ClientHandle: Sendable, Equatable {
  let slot: Int
  public let id: Int
}

/// What a client has been sent and has lost; `unread` are lines still
/// waiting for it when it left (counted in `dropped` too).
public struct ClientCounts: Sendable, Equatable {
  public var id: Int
  public var address: String
  public var kind: StreamKind
  public var control: Bool
  public var sent: UInt64
  public var dropped: UInt64
}

/// Between the scan loop and the WebSocket clients. The scan loop appends
/// each frame's report line to a ring sized at setup (`publish`): one copy
/// under a lock, no allocation, never a wait. Each client reads the ring
/// at its own pace from its own cursor; a client that falls a whole ring
/// behind loses the oldest lines, counted as its drops, and the panel
/// never notices. Control lines from clients come back the other way
/// (`submit`), to be applied between frames (`ServeControl`).
public final class ServeHub: Sendable {
  /// The most clients at once.
  public let capacity: Int
  let state: Locked<HubState>
  /// Control lines waiting in `HubState.inbox` (read without the lock).
  let pendingControl = Atomic<Int>(0)
  /// Clients of the image stream: while there is none, no image lines are made.
  let imageClients = Atomic<Int>(0)
  /// Clients that had items and left, not yet taken (`takeDepartures`).
  let departures = Atomic<Int>(0)

  /// - Parameters:
  ///   - ringBytes: how many bytes of report lines are kept for clients
  ///     that fall behind (each of the two rings: lines, image lines).
  ///   - ringLines: how many lines at most.
  public init(capacity: Int = 64, ringBytes: Int = 4 << 20, ringLines: Int = 8192) {
    self.capacity = max(1, capacity)
    state = Locked(HubState(capacity: self.capacity, ringBytes: ringBytes, ringLines: ringLines))
  }

  // MARK: The scan loop's side

  /// Appends one report line (without its newline) for every client;
  /// `loud` when its frame has a touch or an event.
  public func publish(_ line: UnsafeBufferPointer<UInt8>, loud: Bool) {
    state.withLock { s in
      if !s.lines.append(line, loud: loud) { s.oversized += 1 }
      s.wake { $0 == .idle || (loud && $0 == .reports) }
    }
  }

  /// Appends one line with the force image for the image clients.
  public func publishImage(_ line: UnsafeBufferPointer<UInt8>) {
    state.withLock { s in
      if !s.images.append(line, loud: true) { s.oversized += 1 }
      s.wake { $0 == .image }
    }
  }

  /// Whether a client wants image lines.
  public var wantsImages: Bool { imageClients.load(ordering: .relaxed) > 0 }

  /// The stream ended: clients take what is left, then their connection
  /// closes.
  public func end() {
    state.withLock { s in
      s.ended = true
      s.wake { _ in true }
    }
  }

  /// The latest status (frame rate, health), for `/status.json`.
  public func update(_ status: ServeStatus) {
    state.withLock { $0.status = status }
  }

  // MARK: The clients' side

  /// Adds a client reading `kind` from now on; nil when the hub is full.
  /// The server joins a client when it accepts the upgrade, before the
  /// 101 goes out, so the place it promised is taken at once (a client
  /// that connects in between is refused, not let in and then closed);
  /// the session `claim`s it, and a connection that closes before its
  /// session starts gives it back (`abandon`).
  public func join(kind: StreamKind, address: String, control: Bool) -> ClientHandle? {
    let handle: ClientHandle? = state.withLock { s in
      guard let slot = s.clients.firstIndex(where: { $0 == nil }) else { return nil }
      let id = s.nextID
      s.nextID += 1
      let cursor = kind == .image ? s.images.end : s.lines.end
      s.clients[slot] = ClientState(id: id, address: address, kind: kind, control: control, cursor: cursor)
      s.mostAtOnce = max(s.mostAtOnce, s.clients.count { $0 != nil })
      return ClientHandle(slot: slot, id: id)
    }
    if handle != nil && kind == .image { imageClients.add(1, ordering: .relaxed) }
    return handle
  }

  /// The clients connected now.
  public var handles: [ClientHandle] {
    state.withLock { s in s.clients.enumerated().compactMap { i, c in c.map { ClientHandle(slot: i, id: $0.id) } } }
  }

  /// Clients connected now.
  public var connected: Int { state.withLock { s in s.clients.count { $0 != nil } } }

  /// Whether another client can join.
  public var hasRoom: Bool { connected < capacity }

  /// What to send to a client next.
  public enum Outgoing<Line: Sendable>: Sendable {
    /// A report line, as `copy` made it.
    case line(Line)
    /// The answer to a control line.
    case reply(String)
  }

  /// The next message for `client`, waiting until there is one; nil when
  /// the stream has ended and the client has read everything, or the
  /// client is gone. `copy` takes a report line out of the ring (under the
  /// hub's lock: it must only copy).
  public func next<Line: Sendable>(
    _ client: ClientHandle, copy: (UnsafeBufferPointer<UInt8>) -> Line
  ) async -> Outgoing<Line>? {
    while true {
      switch state.withLock({ $0.take(client, copy) }) {
      case .message(let m): return m
      case .end: return nil
      case .wait:
        await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
          let now = state.withLock { s in
            if s.ready(client) { return true }
            s.waiters[client.slot] = c
            return false
          }
          if now { c.resume() }
        }
      }
    }
  }

  /// The message `next` returned was handed to the connection (`true`) or
  /// could not be (`false`: counted as dropped).
  public func delivered(_ client: ClientHandle, _ ok: Bool) {
    state.withLock { s in
      guard s.clients[client.slot]?.id == client.id else { return }
      s.clients[client.slot]!.inFlight = false
      if ok { s.clients[client.slot]!.sent += 1 } else { s.clients[client.slot]!.dropped += 1 }
    }
  }

  /// The client's session has started: from now on only `leave` removes
  /// it. False when it was abandoned first.
  public func claim(_ client: ClientHandle) -> Bool {
    state.withLock { s in
      guard s.clients[client.slot]?.id == client.id else { return false }
      s.clients[client.slot]!.claimed = true
      return true
    }
  }

  /// Gives `client`'s place back if its session never started (its
  /// connection closed between the upgrade and the session); else nothing.
  public func abandon(_ client: ClientHandle) {
    state.withLock { s in
      guard let c = s.clients[client.slot], c.id == client.id, !c.claimed else { return }
      if c.kind == .image { imageClients.subtract(1, ordering: .relaxed) }
      s.clients[client.slot] = nil
      s.wakeRoom(slot: client.slot)
    }
  }

  /// The client closed its end: `next` returns nil from now on.
  public func gone(_ client: ClientHandle) {
    state.withLock { s in
      guard s.clients[client.slot]?.id == client.id else { return }
      s.clients[client.slot]!.gone = true
      s.wake(slot: client.slot)
      s.wakeRoom(slot: client.slot)
    }
  }

  /// Removes `client`; the lines it had not read count as dropped.
  /// Returns its final counts.
  @discardableResult
  public func leave(_ client: ClientHandle) -> ClientCounts? {
    let result: (ClientCounts, Int)? = state.withLock { s in
      guard let c = s.clients[client.slot], c.id == client.id else { return nil }
      var counts = c.counts
      // A line taken but not yet handed over never will be.
      if c.inFlight { counts.dropped += 1 }
      counts.dropped += c.kind == .image
        ? s.images.unread(c.cursor, loudOnly: false) : s.lines.unread(c.cursor, loudOnly: c.kind == .reports)
      s.past.add(counts)
      if c.declaredItems { s.departed.append(c.id) }
      let unapplied = c.inbox.count
      s.clients[client.slot] = nil
      s.wake(slot: client.slot)
      s.wakeRoom(slot: client.slot)
      return (counts, unapplied)
    }
    guard let (counts, unapplied) = result else { return nil }
    if state.withLock({ !$0.departed.isEmpty }) { departures.store(1, ordering: .releasing) }
    // Its lines still waiting are never applied.
    if unapplied > 0 { pendingControl.subtract(unapplied, ordering: .relaxed) }
    if counts.kind == .image { imageClients.subtract(1, ordering: .relaxed) }
    return counts
  }

  /// A client's control lines waiting for the scan loop, at most: its
  /// reading pauses (`roomForControl`) until the scan loop has taken them,
  /// so a flood backs up in the client's own connection, never here nor
  /// in the frame loop. One frame's worth (`ControlChannel.maxLinesPerPoll`).
  public static let maxWaitingControl = ControlChannel.maxLinesPerPoll
  /// Answers waiting for a client that does not read them, at most; the
  /// ones beyond are dropped (counted in `dropped`).
  public static let maxQueuedReplies = 1024

  /// Queues `text` for `client` (the answer to a control line).
  public func reply(_ client: ClientHandle, _ text: String) {
    state.withLock { s in
      guard s.clients[client.slot]?.id == client.id else { return }
      if s.clients[client.slot]!.replies.count >= Self.maxQueuedReplies {
        s.clients[client.slot]!.dropped += 1
        return
      }
      s.clients[client.slot]!.replies.append(text)
      s.wake(slot: client.slot)
    }
  }

  /// Numbers the next control line of `client` (from 1); nil when it has left.
  public func nextLineNumber(_ client: ClientHandle) -> Int? {
    state.withLock { s in
      guard s.clients[client.slot]?.id == client.id else { return nil }
      s.clients[client.slot]!.lines += 1
      return s.clients[client.slot]!.lines
    }
  }

  /// Waits until `client` has fewer than `maxWaitingControl` lines waiting
  /// for the scan loop; false when it has left.
  public func roomForControl(_ client: ClientHandle) async -> Bool {
    while true {
      let room: Bool? = state.withLock { s in
        guard let c = s.clients[client.slot], c.id == client.id, !c.gone else { return nil }
        return c.inbox.count < Self.maxWaitingControl
      }
      guard let room else { return false }
      if room { return true }
      await withUnsafeContinuation { (w: UnsafeContinuation<Void, Never>) in
        let now = state.withLock { s in
          guard let c = s.clients[client.slot], c.id == client.id, !c.gone,
            c.inbox.count >= Self.maxWaitingControl
          else { return true }
          s.roomWaiters[client.slot] = w
          return false
        }
        if now { w.resume() }
      }
    }
  }

  /// Queues a parsed control line of `client` for the scan loop (with
  /// its items, for a `regions` line); `false` when it already has
  /// `maxWaitingControl` lines waiting (the line is not taken;
  /// `roomForControl` first).
  @discardableResult
  package func submit(_ line: ControlLine, from client: ClientHandle, number: Int, items: ClientItems? = nil) -> Bool {
    let queued = state.withLock { s in
      guard let c = s.clients[client.slot], c.id == client.id, c.inbox.count < Self.maxWaitingControl else {
        return false
      }
      s.clients[client.slot]!.inbox.append((line, number, items))
      if items != nil { s.clients[client.slot]!.declaredItems = true }
      return true
    }
    if queued { pendingControl.add(1, ordering: .releasing) }
    return queued
  }

  /// Takes queued control lines for the scan loop between frames, one
  /// client's at a time in turn (a client with many lines waiting delays
  /// another's by at most one line per turn), each client's in the order
  /// it sent them, as many as `budget` pays for (each line costs
  /// `ControlChannel.cost(of:)`; the first is always taken). Clients that
  /// waited for room are resumed.
  func takeControl(budget: Int) -> [(ControlLine, ControlTag)] {
    guard pendingControl.load(ordering: .acquiring) > 0 else { return [] }
    let lines = state.withLock { s in
      var taken: [(ControlLine, ControlTag)] = []
      var left = budget
      let n = s.clients.count
      var idle = 0
      var slot = s.nextTurn
      while left > 0 && idle < n {
        if let c = s.clients[slot], !c.inbox.isEmpty {
          let (line, number, items) = s.clients[slot]!.inbox.removeFirst()
          left -= ControlChannel.cost(of: line)
          taken.append((line, ControlTag(client: ClientHandle(slot: slot, id: c.id), line: number, items: items)))
          idle = 0
        } else {
          idle += 1
        }
        slot = (slot + 1) % n
      }
      s.nextTurn = slot
      for t in taken { s.wakeRoom(slot: t.1.client.slot) }
      return taken
    }
    pendingControl.subtract(lines.count, ordering: .relaxed)
    return lines
  }

  /// The ids of the clients that declared items and have left since the
  /// last call (their layers go). Allocates nothing when there are none.
  func takeDepartures() -> [Int] {
    guard departures.load(ordering: .acquiring) > 0 else { return [] }
    departures.store(0, ordering: .relaxed)
    return state.withLock { s in
      let ids = s.departed
      s.departed.removeAll()
      return ids
    }
  }

  // MARK: Reading the counts

  /// Every connected client's counts so far.
  public var clients: [ClientCounts] {
    state.withLock { s in s.clients.compactMap { $0?.counts } }
  }

  /// What the hub has seen, for `/status.json` and the summary.
  public var totals: ServeTotals {
    state.withLock { s in
      var t = s.past
      t.connected = 0
      for c in s.clients.compactMap({ $0 }) {
        t.connected += 1
        t.sent += c.sent
        t.dropped += c.dropped
      }
      t.clients += t.connected
      t.mostAtOnce = s.mostAtOnce
      t.oversized = s.oversized
      return t
    }
  }

  /// The status last given to `update`.
  public var status: ServeStatus { state.withLock { $0.status } }

  /// Whether every client has read to the end of an ended stream (or left).
  public var drained: Bool {
    state.withLock { s in
      s.ended
        && s.clients.allSatisfy { c in
          guard let c else { return true }
          return c.kind == .image
            ? !s.images.hasLine(for: c.cursor, loudOnly: false)
            : !s.lines.hasLine(for: c.cursor, loudOnly: c.kind == .reports)
        }
    }
  }
}

/// Where a control line came from (and, for a client's `regions` line,
/// its items as read).
struct ControlTag {
  var client: ClientHandle
  var line: Int
  var items: ClientItems? = nil
}

/// Clients so far: connected now, and the sums of all (those gone included).
public struct ServeTotals: Sendable, Equatable {
  /// Every client that joined.
  public var clients = 0
  public var connected = 0
  public var mostAtOnce = 0
  public var sent: UInt64 = 0
  public var dropped: UInt64 = 0
  /// Lines longer than a whole ring, never sent (not expected: a ring holds
  /// many of the longest line).
  public var oversized: UInt64 = 0

  mutating func add(_ c: ClientCounts) {
    clients += 1
    sent += c.sent
    dropped += c.dropped
  }
}

struct ClientState {
  let id: Int
  let address: String
  let kind: StreamKind
  let control: Bool
  var cursor: LineRing.Cursor
  var sent: UInt64 = 0
  var dropped: UInt64 = 0
  var replies: [String] = []
  /// Parsed control lines waiting for the scan loop, with their numbers
  /// (and a `regions` line's items).
  var inbox: [(ControlLine, Int, ClientItems?)] = []
  /// The client sent items: its layer goes when it leaves.
  var declaredItems = false
  var lines = 0
  var gone = false
  /// Its session has started (`claim`).
  var claimed = false
  /// A line was taken (`next`) and not yet `delivered`.
  var inFlight = false

  init(id: Int, address: String, kind: StreamKind, control: Bool, cursor: LineRing.Cursor) {
    self.id = id
    self.address = address
    self.kind = kind
    self.control = control
    self.cursor = cursor
  }

  var counts: ClientCounts {
    ClientCounts(id: id, address: address, kind: kind, control: control, sent: sent, dropped: dropped)
  }
}

struct HubState: ~Copyable {
  var lines: LineRing
  var images: LineRing
  var clients: [ClientState?]
  var waiters: [UnsafeContinuation<Void, Never>?]
  /// Clients waiting for room for their control lines.
  var roomWaiters: [UnsafeContinuation<Void, Never>?]
  /// The client whose control lines the scan loop takes first next time.
  var nextTurn = 0
  var nextID = 1
  /// Clients with items that left (`ServeHub.takeDepartures`).
  var departed: [Int] = []
  var ended = false
  var past = ServeTotals()
  var mostAtOnce = 0
  var oversized: UInt64 = 0
  var status = ServeStatus()

  init(capacity: Int, ringBytes: Int, ringLines: Int) {
    lines = LineRing(bytes: ringBytes, lines: ringLines)
    images = LineRing(bytes: ringBytes, lines: ringLines)
    clients = Array(repeating: nil, count: capacity)
    waiters = Array(repeating: nil, count: capacity)
    roomWaiters = Array(repeating: nil, count: capacity)
  }

  enum Step<Line: Sendable> {
    case message(ServeHub.Outgoing<Line>)
    case wait
    case end
  }

  mutating func take<Line: Sendable>(_ client: ClientHandle, _ copy: (UnsafeBufferPointer<UInt8>) -> Line) -> Step<Line> {
    guard var c = clients[client.slot], c.id == client.id, !c.gone else { return .end }
    defer { clients[client.slot] = c }
    if !c.replies.isEmpty { return .message(.reply(c.replies.removeFirst())) }
    let line =
      c.kind == .image
      ? images.read(&c.cursor, loudOnly: false, dropped: &c.dropped, copy)
      : lines.read(&c.cursor, loudOnly: c.kind == .reports, dropped: &c.dropped, copy)
    if let line {
      c.inFlight = true
      return .message(.line(line))
    }
    return ended ? .end : .wait
  }

  func ready(_ client: ClientHandle) -> Bool {
    guard let c = clients[client.slot], c.id == client.id else { return true }
    if c.gone || ended || !c.replies.isEmpty { return true }
    return c.kind == .image
      ? images.hasLine(for: c.cursor, loudOnly: false)
      : lines.hasLine(for: c.cursor, loudOnly: c.kind == .reports)
  }

  /// Resumes the waiting clients whose stream kind `wants`.
  mutating func wake(_ wants: (StreamKind) -> Bool) {
    for i in 0..<waiters.count {
      guard waiters[i] != nil, let kind = clients[i]?.kind, wants(kind) else { continue }
      wake(slot: i)
    }
  }

  mutating func wake(slot: Int) {
    guard let w = waiters[slot] else { return }
    waiters[slot] = nil
    w.resume()
  }

  mutating func wakeRoom(slot: Int) {
    guard let w = roomWaiters[slot] else { return }
    roomWaiters[slot] = nil
    w.resume()
  }
}
