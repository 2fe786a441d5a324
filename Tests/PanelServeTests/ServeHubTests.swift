import PanelFirmware
import Testing

@testable import PanelServe

/// The hub between the scan loop and the clients: each client reads every
/// line at its own pace, a stalled one loses lines (counted) without
/// holding up the others, control replies come first, the end closes.
@Suite struct ServeHubTests {
  static func publish(_ hub: ServeHub, _ text: String, loud: Bool = true) {
    Array(text.utf8).withUnsafeBufferPointer { hub.publish($0, loud: loud) }
  }

  static func next(_ hub: ServeHub, _ c: ClientHandle) async -> String? {
    switch await hub.next(c, copy: { Array($0).text }) {
    case .line(let s)?: return s
    case .reply(let s)?: return "reply " + s
    case nil: return nil
    }
  }

  @Test func everyClientReadsEveryLineAndTheEndClosesThem() async throws {
    let hub = ServeHub(capacity: 4)
    let plain = try #require(hub.join(kind: .reports, address: "a", control: true))
    let idle = try #require(hub.join(kind: .idle, address: "b", control: true))
    // A reader waiting before the line exists is woken by it.
    async let first = Self.next(hub, plain)
    Self.publish(hub, "1")
    #expect(await first == "1")
    Self.publish(hub, "quiet", loud: false)
    Self.publish(hub, "2")
    hub.reply(plain, "{\"control\":\"ok\",\"line\":1}")
    hub.end()
    #expect(await Self.next(hub, plain) == "reply {\"control\":\"ok\",\"line\":1}")
    #expect(await Self.next(hub, plain) == "2")
    #expect(await Self.next(hub, plain) == nil)
    var seen: [String] = []
    while let line = await Self.next(hub, idle) { seen.append(line) }
    #expect(seen == ["1", "quiet", "2"])
    #expect(hub.drained)
  }

  @Test func aStalledClientLosesTheOldestLinesAndNobodyElseNotices() async throws {
    let hub = ServeHub(capacity: 4, ringBytes: 1 << 16, ringLines: 16)
    let reader = try #require(hub.join(kind: .reports, address: "reader", control: true))
    let stalled = try #require(hub.join(kind: .reports, address: "stalled", control: true))
    var got: [String] = []
    for i in 0..<100 {
      Self.publish(hub, "\(i)")
      if let line = await Self.next(hub, reader) {
        got.append(line)
        hub.delivered(reader, true)
      }
    }
    #expect(got == (0..<100).map(String.init))
    // The stalled client finds the 16 newest lines; 84 are gone, counted.
    #expect(await Self.next(hub, stalled) == "84")
    hub.delivered(stalled, true)
    // One more taken but never handed over (the connection is stuck).
    #expect(await Self.next(hub, stalled) == "85")
    let counts = try #require(hub.leave(stalled))
    #expect(counts.sent == 1)
    #expect(counts.dropped == 84 + 1 + 14)  // lost, in flight, never read: every line is sent or dropped
    #expect(hub.totals.dropped == 99)
    #expect(hub.totals.sent == 101)
    #expect(hub.clients.map(\.address) == ["reader"])
  }

  @Test func aClientThatGoesAwayIsWokenAndItsPlaceFreed() async throws {
    let hub = ServeHub(capacity: 1)
    let c = try #require(hub.join(kind: .idle, address: "x", control: false))
    #expect(hub.join(kind: .idle, address: "y", control: false) == nil)
    #expect(!hub.hasRoom)
    async let waiting = Self.next(hub, c)
    hub.gone(c)
    #expect(await waiting == nil)
    hub.leave(c)
    #expect(hub.hasRoom)
    #expect(hub.join(kind: .idle, address: "y", control: false) != nil)
  }

  /// The server takes a client's place when it accepts the upgrade, and
  /// the session claims it later: a connection that closes in between
  /// gives it back, one whose session began keeps it until it leaves.
  @Test func aPlaceTakenAtTheUpgradeIsKeptOrGivenBack() throws {
    let hub = ServeHub(capacity: 1)
    let a = try #require(hub.join(kind: .image, address: "a", control: false))
    #expect(hub.join(kind: .idle, address: "b", control: false) == nil, "taken before its session starts")
    hub.abandon(a)  // closed before its session
    #expect(hub.hasRoom)
    #expect(!hub.wantsImages)
    #expect(!hub.claim(a), "a session after its connection closed finds no place")
    let b = try #require(hub.join(kind: .idle, address: "b", control: false))
    #expect(hub.claim(b))
    hub.abandon(b)  // its connection closed: the session leaves, not this
    #expect(!hub.hasRoom)
    #expect(hub.leave(b)?.address == "b")
    #expect(hub.hasRoom)
  }

  @Test func imageLinesAreMadeOnlyWhileAnImageClientReads() async throws {
    let hub = ServeHub(capacity: 2)
    #expect(!hub.wantsImages)
    let c = try #require(hub.join(kind: .image, address: "dashboard", control: true))
    #expect(hub.wantsImages)
    Array("with image".utf8).withUnsafeBufferPointer { hub.publishImage($0) }
    Self.publish(hub, "plain")
    #expect(await Self.next(hub, c) == "with image")
    hub.leave(c)
    #expect(!hub.wantsImages)
  }
}
