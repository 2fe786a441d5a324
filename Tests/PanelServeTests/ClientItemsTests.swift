import ForceCore
import PanelFirmware
import Testing

@testable import PanelServe

/// Each page's items are its own: read one by one (the valid kept, each
/// invalid one named), in its scope, composed into the panel's map over
/// the server's own items with the longest-connected page on top, and
/// gone when the page leaves. How messages split into lines.
@Suite struct ClientItemsTests {
  static func item(_ name: String, x: Double, _ extra: String = "peek = true, pop = true") -> String {
    #"{name = "\#(name)", x_mm = \#(x), y_mm = 10.0, width_mm = 20.0, height_mm = 20.0, \#(extra)}"#
  }

  @Test func itemsAreCheckedOneByOne() throws {
    let board = try Repo.board("sim-plate4")
    let list = "[" + [
      Self.item("a", x: 10), Self.item("b", x: 40, "peek = true"), Self.item("c", x: 150),
      Self.item("a", x: 70), Self.item("d", x: 100, #"quick_action = [{title = ""}]"#), Self.item("e", x: 130, "size = 3"),
    ].joined(separator: ", ") + "]"
    let items = try ClientItems(list: list, scope: "ws#4/", board: board, source: "ws#4", line: 7)
    #expect(items.map.items.map(\.name) == ["ws#4/a"])
    #expect(items.refused.map(\.item) == [2, 3, 4, 5, 6])
    #expect(items.refused.map(\.key) == ["pop", "x_mm", "name", "title", "size"])
    #expect(items.refused[0].message.hasSuffix("every peek must be able to pop (set pop = true)"))
    #expect(items.refused[3].action == 1)
    #expect(items.refused.map(\.name) == ["b", "c", "a", "d", "e"])
    // A list that is not TOML is refused whole, at its line.
    #expect(throws: FileError.self) { try ClientItems(list: "[{name = ", scope: "ws#4/", board: board, source: "ws#4", line: 7) }
  }

  @Test func aLineOfItemsIsToldFromOtherLines() throws {
    #expect(try ClientItems.itemsLine("regions [{}]", source: "ws#1", line: 1)?.list == "[{}]")
    let timed = try #require(try ClientItems.itemsLine("at 2.5 regions []", source: "ws#1", line: 1))
    #expect(timed.at_s == 2.5 && timed.list == "[]")
    #expect(try ClientItems.itemsLine("regions home.toml", source: "ws#1", line: 1) == nil)
    #expect(try ClientItems.itemsLine("sensitivity firm", source: "ws#1", line: 1) == nil)
    #expect(throws: FileError.self) { try ClientItems.itemsLine("at soon regions []", source: "ws#1", line: 1) }
  }

  @Test func messagesSplitIntoNumberedLines() {
    // CRLF and LF end lines; a terminator at the end starts none; "" is one line.
    func lines(_ s: String) -> [String] { ControlText.lines(Array(s.utf8)).map { String(decoding: $0, as: UTF8.self) } }
    #expect(lines("a\r\nb\r\n") == ["a", "b"])
    #expect(lines("a\nb") == ["a", "b"])
    #expect(lines("") == [""])
    #expect(lines("\n") == [""])
    #expect(lines("a\n\n") == ["a", ""])
    #expect(lines("a\r") == ["a"])
    #expect(ControlText.tooLong(ArraySlice(Array(repeating: 65, count: 16 * 1024))) == nil)
    #expect(ControlText.tooLong(ArraySlice(Array(repeating: 65, count: 16 * 1024 + 1))) != nil)
    let items = Array(("regions [" + String(repeating: " ", count: 100_000) + "]").utf8)
    #expect(ControlText.tooLong(ArraySlice(items)) == nil, "a regions line may have a regions file's 256 KiB")
  }

  /// Two pages' items at once, neither replacing the other; where they
  /// overlap, the page that connected first is on top; a page's layer
  /// goes when it leaves; the server's own items stay beneath.
  @Test func pagesComposeTheirLayers() async throws {
    let board = try Repo.board("sim-plate4")
    let hub = ServeHub(capacity: 2)
    let first = try #require(hub.join(kind: .reports, address: "a", control: true))
    let second = try #require(hub.join(kind: .reports, address: "b", control: true))
    var control = ServeControl(hub: hub, board: board)
    var interaction = Interaction(board: board)
    let own = try RegionMap(
      items: [RegionItem(name: "base", x_mm: 0, y_mm: 80, width_mm: 160, height_mm: 20, peek: true, pop: true)],
      panelWidth_mm: board.width_mm, panelHeight_mm: board.height_mm)
    interaction.replaceRegions(own)
    func declare(_ c: ClientHandle, _ list: [String]) throws {
      let n = try #require(hub.nextLineNumber(c))
      let items = try ClientItems(
        list: "[" + list.joined(separator: ", ") + "]", scope: ClientItems.scope(c), board: board,
        source: ControlReply.source(c), line: n)
      hub.submit(ControlLine(command: .regions(items.map)), from: c, number: n, items: items)
    }
    func frame(_ t: Int64) { control.apply(time: Time_us(rawValue: t), to: &interaction) }
    func names() -> [String] { interaction.regions.items.map(\.name) }
    func hit(_ x: Double, _ y: Double) -> String? {
      let i = interaction.regions.hit(x: Length_um(millimetres: x), y: Length_um(millimetres: y))
      return i < 0 ? nil : interaction.regions.items[Int(i)].name
    }
    frame(0)
    try declare(second, [Self.item("row", x: 10), Self.item("shared", x: 60)])
    try declare(first, [Self.item("icon", x: 100), Self.item("shared", x: 60)])
    frame(1000)
    frame(2000)
    #expect(names() == ["base", "ws#2/row", "ws#2/shared", "ws#1/icon", "ws#1/shared"])
    #expect(hit(70, 20) == "ws#1/shared", "the page connected first is on top")
    #expect(hit(20, 20) == "ws#2/row")
    #expect(hit(20, 90) == "base")
    // The first page's answer: ok, its scope, how many kept.
    var answers: [String] = []
    while case .reply(let r)? = await hub.next(first, copy: { _ in 0 }) {
      answers.append(r)
      if answers.count == 1 { break }
    }
    #expect(answers == [#"{"control":"ok","line":1,"scope":"ws#1/","kept":2}"#])
    // The second page declares again: the first page's items stay.
    try declare(second, [Self.item("row", x: 10)])
    frame(3000)
    #expect(names() == ["base", "ws#2/row", "ws#1/icon", "ws#1/shared"])
    // A page's quick actions change its own item only.
    let n = try #require(hub.nextLineNumber(first))
    hub.submit(
      try #require(try ControlLine.parse(#"quick_actions icon [{title = "New"}]"#, file: "ws#1", line: n, board: board)),
      from: first, number: n)
    frame(4000)
    #expect(interaction.regions.items.first { $0.name == "ws#1/icon" }?.quickActions.map(\.title) == ["New"])
    // The server's own items change (a `--control` line): the pages'
    // layers go on over the new ones at the next frame.
    interaction.replaceRegions(
      try RegionMap(
        items: [RegionItem(name: "other", x_mm: 0, y_mm: 60, width_mm: 160, height_mm: 20, peek: true, pop: true)],
        panelWidth_mm: board.width_mm, panelHeight_mm: board.height_mm))
    frame(4500)
    #expect(names() == ["other", "ws#2/row", "ws#1/icon", "ws#1/shared"])
    // The first page leaves: its items go, the others stay.
    hub.gone(first)
    hub.leave(first)
    frame(5000)
    #expect(names() == ["other", "ws#2/row"])
    #expect(hit(70, 20) == nil)
    #expect(ClientItems.isScoped("ws#12/row") && !ClientItems.isScoped("ws#/row") && !ClientItems.isScoped("ws#1x/row"))
  }
}
