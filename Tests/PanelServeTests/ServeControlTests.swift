import ForceCore
import PanelFirmware
import Synchronization
import Testing

@testable import PanelServe

/// Control lines from WebSocket clients: applied between frames in order
/// (timed ones at their stream time), each answered to its sender only.
@Suite struct ServeControlTests {
  static func reply(_ hub: ServeHub, _ c: ClientHandle) async -> String? {
    if case .reply(let s)? = await hub.next(c, copy: { _ in 0 }) { return s }
    return nil
  }

  @Test func linesApplyBetweenFramesAndEachGetsItsAnswer() async throws {
    let board = try Repo.board("sim-plate4")
    let hub = ServeHub(capacity: 2)
    let a = try #require(hub.join(kind: .reports, address: "a", control: true))
    let b = try #require(hub.join(kind: .reports, address: "b", control: true))
    var control = ServeControl(hub: hub, board: board)
    var interaction = Interaction(board: board)
    control.apply(time: Time_us(rawValue: 1_000_000), to: &interaction)  // the first frame: the clock starts
    func submit(_ text: String, _ c: ClientHandle) throws {
      let n = try #require(hub.nextLineNumber(c))
      let line = try #require(try ControlLine.parse(text, file: ControlReply.source(c), line: n, board: board, files: false))
      hub.submit(line, from: c, number: n)
    }
    try submit("at 0.5 sensitivity firm", a)
    try submit("force_touch off", a)
    try submit(#"quick_actions nowhere [{title = "X"}]"#, b)
    control.apply(time: Time_us(rawValue: 1_100_000), to: &interaction)
    #expect(!interaction.settings.forceTouch)
    #expect(interaction.settings.sensitivity == .medium)
    #expect(await Self.reply(hub, a) == #"{"control":"ok","line":2}"#)
    let error = try #require(await Self.reply(hub, b))
    #expect(error.hasPrefix(#"{"control":"error","line":1,"message":"ws#2:1: "#))
    #expect(error.contains("nowhere"))
    // 0.5 s of stream time after the first frame.
    control.apply(time: Time_us(rawValue: 1_499_999), to: &interaction)
    #expect(interaction.settings.sensitivity == .medium)
    control.apply(time: Time_us(rawValue: 1_500_000), to: &interaction)
    #expect(interaction.settings.sensitivity == .firm)
    #expect(await Self.reply(hub, a) == #"{"control":"ok","line":1}"#)
  }

  /// A client that floods control lines backs up in its own connection,
  /// never in the hub nor the frame loop: at most 16 of its lines wait
  /// (then its reading waits for room), each frame takes at most 16 lines,
  /// at most 1024 timed lines wait.
  @Test func aFloodOfLinesIsBoundedPerFrame() async throws {
    let board = try Repo.board("sim-plate4")
    let hub = ServeHub(capacity: 1)
    let a = try #require(hub.join(kind: .reports, address: "a", control: true))
    var control = ServeControl(hub: hub, board: board)
    var interaction = Interaction(board: board)
    control.apply(time: Time_us(rawValue: 0), to: &interaction)
    func submit(_ text: String) throws -> Bool {
      let n = try #require(hub.nextLineNumber(a))
      let line = try #require(try ControlLine.parse(text, file: "ws#1", line: n, board: board, files: false))
      return hub.submit(line, from: a, number: n)
    }
    #expect(ServeHub.maxWaitingControl == ControlChannel.maxLinesPerPoll)
    // 1024 timed lines, 16 waiting at a time, 16 taken a frame.
    var frames = 0
    var k = 0
    while control.schedule.pending < ControlChannel.maxScheduled {
      for _ in 0..<ServeHub.maxWaitingControl {
        #expect(try submit("at \(100 + k) sensitivity firm"))
        k += 1
      }
      #expect(try !submit("at 99 sensitivity firm"), "a 17th line waiting is not taken")
      control.apply(time: Time_us(rawValue: Int64(frames + 1) * 2000), to: &interaction)
      #expect(hub.pendingControl.load(ordering: .relaxed) == 0)
      frames += 1
    }
    #expect(frames == ControlChannel.maxScheduled / ControlChannel.maxLinesPerPoll)
    // The waiting list is full: one more timed line is refused, an untimed one applies.
    #expect(try submit("at 50 sensitivity light"))
    #expect(try submit("force_touch off"))
    control.apply(time: Time_us(rawValue: 1_000_000), to: &interaction)
    #expect(!interaction.settings.forceTouch)
    var replies: [String] = []
    while hub.state.withLock({ !$0.clients[a.slot]!.replies.isEmpty }), let r = await Self.reply(hub, a) { replies.append(r) }
    let last = k + frames  // each frame's 17th line took a number too
    #expect(replies.first == #"{"control":"refused","line":\#(last + 1),"message":"1024 timed lines are already waiting (the limit)"}"#)
    #expect(replies.last == #"{"control":"ok","line":\#(last + 2)}"#)
    // Due together, the timed lines apply 16 per frame.
    control.apply(time: Time_us(rawValue: 200_000_000), to: &interaction)
    #expect(control.schedule.pending == ControlChannel.maxScheduled - ControlChannel.maxLinesPerPoll)
  }

  /// Clients take turns: a client with a frame's worth of lines waiting
  /// delays another's line by no frame, and a client waiting for room is
  /// let go once the frame loop took its lines.
  @Test func clientsTakeTurnsAndAWaitingReaderResumes() async throws {
    let board = try Repo.board("sim-plate4")
    let hub = ServeHub(capacity: 3)
    let flood = try #require(hub.join(kind: .reports, address: "a", control: true))
    let other = try #require(hub.join(kind: .reports, address: "b", control: true))
    var control = ServeControl(hub: hub, board: board)
    var interaction = Interaction(board: board)
    control.apply(time: Time_us(rawValue: 0), to: &interaction)
    func submit(_ text: String, _ c: ClientHandle) throws -> Bool {
      let n = try #require(hub.nextLineNumber(c))
      let line = try #require(try ControlLine.parse(text, file: "ws", line: n, board: board, files: false))
      return hub.submit(line, from: c, number: n)
    }
    for _ in 0..<ServeHub.maxWaitingControl { #expect(try submit("sensitivity light", flood)) }
    #expect(try submit("force_touch off", other))
    // The flooder waits for room until the next frame takes its lines.
    let resumed = Task { await hub.roomForControl(flood) }
    control.apply(time: Time_us(rawValue: 2000), to: &interaction)
    #expect(await resumed.value)
    #expect(!interaction.settings.forceTouch, "the other client's line applied in the same frame")
    #expect(await Self.reply(hub, other) == #"{"control":"ok","line":1}"#)
    // One line of the flooder stays for the next frame (16 taken: 15 + 1).
    #expect(hub.pendingControl.load(ordering: .relaxed) == 1)
    // A client that leaves is let go too, and its lines are never applied.
    for _ in 0..<(ServeHub.maxWaitingControl - 1) { #expect(try submit("sensitivity firm", flood)) }
    let gone = Task { await hub.roomForControl(flood) }
    hub.leave(flood)
    #expect(await gone.value == false)
    #expect(hub.pendingControl.load(ordering: .relaxed) == 0)
  }

  /// Each client may send 16 lines and 1 KiB a frame period: a burst of
  /// one frame's worth goes at once, then lines wait for their share; a
  /// long line goes when the bucket is full and is paid off after.
  @Test func theInputBudgetIsLinesAndBytesPerFrame() {
    let period = Int64(1_000_000_000 / 320)
    var b = InputBudget.perClient(rate_hz: 320, now_ns: 0)
    for _ in 0..<16 { #expect(b.take(size: 10, now_ns: 0) == 0) }
    let wait = b.take(size: 10, now_ns: 0)
    #expect(wait > 0 && wait <= period / 16 + 1)
    #expect(b.take(size: 10, now_ns: wait) == 0)
    // 10 KiB at once when the bucket is full, then about 10 frames to pay it off.
    var c = InputBudget.perClient(rate_hz: 320, now_ns: 0)
    #expect(c.take(size: 10_240, now_ns: 0) == 0)
    let off = c.take(size: 10, now_ns: 0)
    #expect(off > 9 * period && off < 11 * period)
    #expect(c.take(size: 10, now_ns: off) == 0)
    // Idle time refills one frame's worth, no more.
    var d = InputBudget.perClient(rate_hz: 320, now_ns: 0)
    for _ in 0..<16 { #expect(d.take(size: 1, now_ns: 1_000_000_000_000) == 0) }
    #expect(d.take(size: 1, now_ns: 1_000_000_000_000) > 0)
    // All clients together: 2 KiB a frame.
    var all = InputBudget.allClients(rate_hz: 20, now_ns: 0)
    #expect(all.take(size: 4096, now_ns: 0) == 0)
    #expect(all.take(size: 1, now_ns: 0) > period)
  }

  @Test func itemsComeOnTheLineAndFilesAreNotTheClientsToName() throws {
    let board = try Repo.board("sim-plate4")
    let line = try #require(
      try ControlLine.parse(
        #"regions [{name = "row", x_mm = 0.00, y_mm = 10.00, width_mm = 80.00, height_mm = 14.00, peek = true, pop = true, quick_action = [{title = "Reply"}]}, {name = "mail", x_mm = 88.00, y_mm = 16.00, width_mm = 17.60, height_mm = 18.00, quick_action = [{title = "New Message", icon = "square.and.pencil"}]}]"#,
        file: "ws#1", line: 3, board: board, files: false))
    guard case .regions(let map) = line.command else {
      Issue.record("expected regions, got \(line.command)")
      return
    }
    #expect(map.items.map(\.name) == ["row", "mail"])
    #expect(map.items[1].quickActions == [QuickAction(title: "New Message", icon: "square.and.pencil")])
    func failure(_ text: String) -> String? {
      do {
        _ = try ControlLine.parse(text, file: "ws#1", line: 3, board: board, files: false)
        return nil
      } catch {
        return error.description
      }
    }
    #expect(failure("regions ../regions/home.toml")?.hasPrefix("ws#1:3: regions: a file cannot be named here") == true)
    // The guidelines, as for a file: the line and the item's field.
    #expect(
      failure(#"regions [{name = "doc", x_mm = 0, y_mm = 0, width_mm = 10, height_mm = 10, peek = true, pop = true, edit_menu = true}]"#)
        == #"ws#1:3: item[1] edit_menu: "doc" has peek and an edit menu; an item may have one or the other (both answer a press and hold)"#)
    #expect(
      failure(#"regions [{name = "wide", x_mm = 100, y_mm = 0, width_mm = 80, height_mm = 10}]"#)?.hasPrefix(
        #"ws#1:3: item[1] x_mm: "wide" spans x 100.0...180.0 mm, off the panel"#) == true)
    #expect(failure(#"regions [{name = "a", x_mm = 0, y_mm = 0, width_mm = 10, height_mm = 10, colour = "red"}]"#)?.contains("colour") == true)
  }

  /// Hint keeps its place between an average touch (1) and peek: (1.1 - 1) / (1.33 - 1) of the way.
  @Test func thePanelDocumentHasTheThresholdsOfEachSensitivity() throws {
    let board = try Repo.board("sim-plate4")
    let record = CalibrationRecord.nominal(board: board, gain_counts_per_n: 40000)
    let json = PanelInfo(board: board, calibration: record).json(control: false, tokenRequired: true)
    #expect(json.contains(#""thresholds":{"light":{"hint":1.031,"peek":1.104,"pop":4.15},"medium":{"hint":1.1,"peek":1.33,"pop":5},"firm":{"hint":1.181,"peek":1.596,"pop":6}}"#))
    #expect(json.contains(#""cells":[[0,0],[160,0],[0,100],[160,100]],"grid":null"#))
    #expect(json.hasSuffix(#""access":{"control":false,"token_required":true}}"#))
    #expect(json.contains(#""nominal":true"#))
  }
}
