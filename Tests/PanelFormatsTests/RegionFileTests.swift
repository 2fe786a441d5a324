import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelTouch

/// Regions files: the guidelines as validation, one test per rule, each
/// error one line naming the file, the line and the field.
@Suite struct RegionFileTests {
  static func board() throws -> Board { try Repo.board("sim-plate4") }

  static func load(_ text: String) throws -> RegionMap {
    try RegionMap(table: TOML.parse(text, file: "r.toml"), board: board())
  }

  /// The error for `text`, and the 1-based line of the first line of
  /// `text` containing `marker`.
  static func failure(_ text: String, at marker: String) -> (message: String, line: Int) {
    let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(marker) }! + 1
    return (FilesTestSupport.failure { _ = try load(text) } ?? "no error", line)
  }

  static let mail = """
    [regions]
    name = "home"

    [[item]]
    name = "mail"
    x_mm = 4.0
    y_mm = 4.0
    width_mm = 30.0
    height_mm = 30.0

    """

  @Test func loadsTheExampleFile() throws {
    let map = try RegionMap.load(path: Repo.path("regions/home.toml"), board: Self.board())
    #expect(map.name == "home screen")
    #expect(map.items.count >= 4)
    for item in map.items { #expect(item.quickActions.count <= 4) }
  }

  @Test func moreThanFourQuickActions() {
    var text = Self.mail
    for i in 1...5 { text += "[[item.quick_action]]\ntitle = \"Action \(i)\"\n" }
    let (message, _) = Self.failure(text, at: "Action 1")
    let fifth = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("Action 5") }!
    #expect(message == "r.toml:\(fifth): item[1].quick_action[5]: \"mail\" has 5 quick actions, at most 4 are allowed")
    // Four is fine.
    var four = Self.mail
    for i in 1...4 { four += "[[item.quick_action]]\ntitle = \"Action \(i)\"\n" }
    #expect(FilesTestSupport.failure { _ = try Self.load(four) } == nil)
  }

  @Test func peekAndAnEditMenu() {
    let text = Self.mail + "peek = true\npop = true\nedit_menu = true\n"
    let (message, line) = Self.failure(text, at: "edit_menu")
    #expect(message.hasPrefix("r.toml:\(line): item[1] edit_menu: \"mail\" has peek and an edit menu"), "\(message)")
  }

  @Test func aPeekableItemThatCannotPop() {
    let text = Self.mail + "peek = true\npop = false\n"
    let (message, line) = Self.failure(text, at: "pop = false")
    #expect(message.hasPrefix("r.toml:\(line): item[1] pop: \"mail\" can peek but not pop"), "\(message)")
    // pop left out: the error points at the item's header.
    let (absent, header) = Self.failure(Self.mail + "peek = true\n", at: "[[item]]")
    #expect(absent.hasPrefix("r.toml:\(header): item[1] pop: \"mail\" can peek but not pop"), "\(absent)")
  }

  @Test func anEmptyTitle() {
    let text = Self.mail + "[[item.quick_action]]\ntitle = \"Compose\"\n[[item.quick_action]]\ntitle = \"  \"\nicon = \"inbox\"\n"
    let (message, line) = Self.failure(text, at: "title = \"  \"")
    #expect(message == "r.toml:\(line): item[1].quick_action[2] title: must not be empty")
  }

  @Test func otherMistakesAreNamedToo() {
    let cases: [(String, String, String)] = [
      (Self.mail + "pop = true\n", "pop = true", "item[1] pop: \"mail\" can pop without peek"),
      (Self.mail + "live_photo = true\npeek = true\npop = true\n", "live_photo", "item[1] live_photo:"),
      (Self.mail + "edit_menu = true\n[[item.quick_action]]\ntitle = \"x\"\n", "edit_menu", "item[1] edit_menu:"),
      (Self.mail.replacingOccurrences(of: "x_mm = 4.0", with: "x_mm = 150.0"), "x_mm", "item[1] x_mm: \"mail\" spans x 150.0...180.0 mm, off the panel"),
      (Self.mail.replacingOccurrences(of: "width_mm = 30.0", with: "width_mm = 0"), "width_mm", "item[1] width_mm: must be greater than 0"),
      (Self.mail + "\n[[item]]\nname = \"mail\"\nx_mm = 50.0\ny_mm = 4.0\nwidth_mm = 10.0\nheight_mm = 10.0\n", "name = \"mail\"", "item[1] name:"),
      (Self.mail + "peeek = true\n", "peeek", "item[1] peeek: unknown key"),
      (Self.mail + "[[item.quick_action]]\ntitle = \"x\"\nicon = 3\n", "icon = 3", "item[1].quick_action[1] icon: expected a string"),
    ]
    for (text, marker, expected) in cases {
      var (message, line) = Self.failure(text, at: marker)
      if expected.hasPrefix("item[1] name:") {
        // The duplicate is the second item.
        line = text.split(separator: "\n", omittingEmptySubsequences: false).lastIndex { $0.contains(marker) }! + 1
        #expect(message.hasPrefix("r.toml:\(line): item[2] name: \"mail\" is already the name of item[1]"), "\(message)")
        continue
      }
      #expect(message.hasPrefix("r.toml:\(line): \(expected)"), "expected \(expected) at line \(line), got \(message)")
      #expect(!message.contains("\n"))
    }
  }

  @Test func theSameRulesHoldForQuickActionsReplacedAtRunTime() throws {
    let map = try Self.load(Self.mail + "[[item.quick_action]]\ntitle = \"Compose\"\n")
    let five = (1...5).map { QuickAction(title: "A\($0)") }
    #expect(throws: RegionViolation.self) { _ = try map.replacingQuickActions(of: "mail", with: five) }
    #expect(throws: RegionViolation.self) { _ = try map.replacingQuickActions(of: "mail", with: [QuickAction(title: "")]) }
    #expect(throws: RegionViolation.self) { _ = try map.replacingQuickActions(of: "nobody", with: []) }
    let two = try map.replacingQuickActions(of: "mail", with: [QuickAction(title: "Inbox", subtitle: "3 new", icon: "tray")])
    #expect(two.items[0].quickActions == [QuickAction(title: "Inbox", subtitle: "3 new", icon: "tray")])
    #expect(String(decoding: two.json(of: 0)!.actions, as: UTF8.self) == #"[{"title":"Inbox","subtitle":"3 new","icon":"tray"}]"#)
  }

  @Test func theMenuOpensOnTheSideWithRoom() throws {
    // 160 x 100 mm: upper half -> below, lower half -> above; thirds -> alignment.
    func placement(_ x: Double, _ y: Double) -> MenuPlacement {
      MenuPlacement(item: RegionItem(name: "i", x_mm: x, y_mm: y, width_mm: 20, height_mm: 20), panelWidth_mm: 160, panelHeight_mm: 100)
    }
    #expect(placement(5, 5) == MenuPlacement(side: .below, align: .left))
    #expect(placement(135, 5) == MenuPlacement(side: .below, align: .right))
    #expect(placement(70, 5) == MenuPlacement(side: .below, align: .center))
    #expect(placement(5, 75) == MenuPlacement(side: .above, align: .left))
    #expect(placement(135, 75) == MenuPlacement(side: .above, align: .right))
  }

  /// Texts a report line carries are bounded: names, icons and the map's
  /// name at most 64 bytes of UTF-8 (identifiers), titles and subtitles
  /// at most 256 (texts for people, translated).
  @Test func namesAndTitlesHaveALengthLimit() throws {
    let long = String(repeating: "n", count: 13_000)
    let named = Self.mail.replacingOccurrences(of: "name = \"mail\"", with: "name = \"\(long)\"")
    #expect(Self.failure(named, at: "nnnn") == ("r.toml:5: item[1] name: is 13000 bytes long (UTF-8); at most 64 are allowed", 5))
    let title = Self.mail + "[[item.quick_action]]\ntitle = \"\(String(repeating: "é", count: 129))\"\n"
    #expect(Self.failure(title, at: "é").message.hasSuffix("item[1].quick_action[1] title: is 258 bytes long (UTF-8); at most 256 are allowed"))
    let subtitle = Self.mail + "[[item.quick_action]]\ntitle = \"t\"\nsubtitle = \"\(String(repeating: "s", count: 257))\"\n"
    #expect(Self.failure(subtitle, at: "ssss").message.hasSuffix("item[1].quick_action[1] subtitle: is 257 bytes long (UTF-8); at most 256 are allowed"))
    let icon = Self.mail + "[[item.quick_action]]\ntitle = \"t\"\nicon = \"\(String(repeating: "i", count: 65))\"\n"
    #expect(Self.failure(icon, at: "iiii").message.hasSuffix("item[1].quick_action[1] icon: is 65 bytes long (UTF-8); at most 64 are allowed"))
    let map = Self.mail.replacingOccurrences(of: "name = \"home\"", with: "name = \"\(long)\"")
    #expect(Self.failure(map, at: "nnnn") == ("r.toml:2: [regions] name: is 13000 bytes long (UTF-8); at most 64 are allowed", 2))
    // At the limits they load, and so does a replacement at run time within them.
    let fits = Self.mail.replacingOccurrences(of: "name = \"mail\"", with: "name = \"\(String(repeating: "n", count: 64))\"")
    let loaded = try Self.load(fits)
    _ = try loaded.replacingQuickActions(of: loaded.items[0].name, with: [QuickAction(title: String(repeating: "t", count: 256))])
    #expect(throws: RegionViolation.self) {
      try loaded.replacingQuickActions(of: loaded.items[0].name, with: [QuickAction(title: String(repeating: "t", count: 257))])
    }
    #expect(throws: RegionViolation.self) {
      try RegionMap(items: [], panelWidth_mm: 160, panelHeight_mm: 100, name: long)
    }
  }

  /// A translated title longer than the menu shows loads, passed on whole,
  /// with one warning naming the file and line: the menu wraps a long title
  /// onto two lines and cuts a long subtitle (the guidelines).
  @Test func aLongLocalizedTitleLoadsWithOneWarning() throws {
    let cjk = String(repeating: "設定を変更する", count: 6).prefix(40)  // 40 wide characters: 80 columns, 120 bytes
    let text = Self.mail + "[[item.quick_action]]\ntitle = \"\(cjk)\"\n"
    let map = try Self.load(text)
    #expect(map.items[0].quickActions[0].title == String(cjk))
    #expect(map.warnings == ["r.toml:11: item[1].quick_action[1] title: is 80 columns wide; the menu wraps a title onto two lines (about 64 columns) and cuts the rest"])
    #expect(String(decoding: map.json(of: 0)!.actions, as: UTF8.self) == "[{\"title\":\"\(cjk)\"}]")
    // 22 CJK characters (44 columns) or a 60-letter German title fit: no warning.
    let fits = Self.mail + "[[item.quick_action]]\ntitle = \"\(cjk.prefix(22))\"\n[[item.quick_action]]\ntitle = \"\(String(repeating: "ä", count: 60))\"\n"
    #expect(try Self.load(fits).warnings.isEmpty)
    // A subtitle is cut past one line (32 columns).
    let sub = Self.mail + "[[item.quick_action]]\ntitle = \"Neue Nachricht\"\nsubtitle = \"\(String(repeating: "x", count: 33))\"\n"
    #expect(try Self.load(sub).warnings == ["r.toml:12: item[1].quick_action[1] subtitle: is 33 columns wide; the menu cuts a subtitle to one line (about 32 columns)"])
    // Replaced at run time: the new actions' warnings only.
    let replaced = try Self.load(text).replacingQuickActions(of: "mail", with: [QuickAction(title: "Inbox")])
    #expect(replaced.warnings.isEmpty)
  }

  /// Apple's guidelines: avoid a quick action that only opens a peeked
  /// item — pop already does. A warning with the file and line, not a
  /// refusal; on an item that does not peek an Open action is fine.
  @Test func anOpenActionOnAPeekableItemWarns() throws {
    let peeks = Self.mail + "peek = true\npop = true\n[[item.quick_action]]\ntitle = \"Reply\"\n[[item.quick_action]]\ntitle = \"Open Mail\"\n"
    let map = try Self.load(peeks)
    #expect(map.items[0].quickActions.count == 2)
    #expect(map.warnings.count == 1)
    #expect(map.warnings.first?.hasPrefix("r.toml:15: item[1].quick_action[2] title: \"Open Mail\" only opens \"mail\"") == true, "\(map.warnings)")
    let localized = Self.mail + "peek = true\npop = true\n[[item.quick_action]]\ntitle = \"Öffnen\"\n"
    #expect(try Self.load(localized).warnings.count == 1)
    let noPeek = Self.mail + "[[item.quick_action]]\ntitle = \"Open Mail\"\n"
    #expect(try Self.load(noPeek).warnings.isEmpty)
    let opening = Self.mail + "peek = true\npop = true\n[[item.quick_action]]\ntitle = \"Openness settings\"\n"
    #expect(try Self.load(opening).warnings.isEmpty)
  }

  @Test func titlesAreEscapedInJSON() throws {
    let map = try Self.load(Self.mail + "[[item.quick_action]]\ntitle = \"Say \\\"hi\\\"\\n\"\n")
    #expect(String(decoding: map.json(of: 0)!.actions, as: UTF8.self) == #"[{"title":"Say \"hi\"\n"}]"#)
  }

  @Test func hitTestingFindsTheTopmostItem() throws {
    let map = try RegionMap(
      items: [
        RegionItem(name: "list", x_mm: 0, y_mm: 0, width_mm: 160, height_mm: 100),
        RegionItem(name: "row", x_mm: 10, y_mm: 10, width_mm: 50, height_mm: 10, peek: true, pop: true),
      ], panelWidth_mm: 160, panelHeight_mm: 100)
    #expect(map.hit(x: Length_um(millimetres: 20), y: Length_um(millimetres: 15)) == 1)
    #expect(map.hit(x: Length_um(millimetres: 100), y: Length_um(millimetres: 50)) == 0)
    #expect(map.traits(of: 0) == [])
    #expect(map.traits(of: 1) == [.peek, .pop])
    // No items: the whole panel peeks.
    #expect(RegionMap.whole(panelWidth_mm: 160, panelHeight_mm: 100).traits(of: -1) == [.peek, .pop])
  }
}
