import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats

@Suite("TOML")
struct FilesTOMLTests {
  static let board = """
    [board]
    name = "sim-plate4"                # unique
    description = "160x100 mm glass on four corner load cells, simulated"

    [panel]
    width_mm = 160.0
    height_mm = 100.0

    [[cell]]
    x_mm = 0.0
    y_mm = 0.0
    [[cell]]
    x_mm = 160.0
    y_mm = 0.0

    [frontend]
    kind = "sim"

    [sampling]
    rate_hz = 320

    [interaction]
    average_touch_n = 0.8
    max_force = 6.67
    peek = 1.33
    pop = 5.0
    sensitivity = "medium"
    force_touch = true
    """

  private func parse(_ text: String, file: String = "boards/x.toml") throws(FileError) -> TOMLTable {
    try TOML.parse(text, file: file)
  }

  private func failure(_ body: () throws -> Void) -> String? {
    FilesTestSupport.failure(body)
  }

  @Test func parsesTheExampleBoard() throws {
    let root = try parse(Self.board)
    #expect(root.keys == ["board", "panel", "cell", "frontend", "sampling", "interaction"])
    let board = try root.table("board")
    #expect(try board.string("name") == "sim-plate4")
    #expect(try board.string("description") == "160x100 mm glass on four corner load cells, simulated")
    #expect(board.line == 1)
    #expect(board.line(of: "description") == 3)

    let panel = try root.table("panel")
    #expect(try panel.double("width_mm") == 160.0)
    #expect(try panel.double("height_mm") == 100.0)
    #expect(panel.name == "panel")
    #expect(root.line(of: "panel") == 5)

    let cells = try root.tables("cell")
    #expect(cells.count == 2)
    #expect(try cells[0].double("x_mm") == 0.0)
    #expect(try cells[1].double("x_mm") == 160.0)
    #expect(try cells[1].double("y_mm") == 0.0)
    #expect(cells[1].name == "cell[2]")
    #expect(cells[1].line == 12)
    #expect(cells[1].line(of: "x_mm") == 13)
    #expect(cells[1].field("x_mm") == "cell[2] x_mm")

    #expect(try root.table("frontend").string("kind") == "sim")
    let sampling = try root.table("sampling")
    #expect(try sampling.int("rate_hz") == 320)
    #expect(try sampling.double("rate_hz") == 320.0)
    #expect(sampling.line(of: "rate_hz") == 20)

    let interaction = try root.table("interaction")
    #expect(try interaction.double("average_touch_n") == 0.8)
    #expect(try interaction.double("max_force") == 6.67)
    #expect(try interaction.double("peek") == 1.33)
    #expect(try interaction.double("pop") == 5.0)
    #expect(try interaction.string("sensitivity") == "medium")
    #expect(try interaction.bool("force_touch") == true)
    #expect(try interaction.optionalBool("haptics") == nil)
    #expect(try interaction.optionalDouble("pop") == 5.0)
    try interaction.rejectUnknownKeys([
      "average_touch_n", "max_force", "peek", "pop", "sensitivity", "force_touch",
    ])
    #expect(try root.tables("absent").isEmpty)
    #expect(try root.optionalTable("absent") == nil)
  }

  @Test func readsAllValueKinds() throws {
    let root = try parse(
      #"""
      basic = "a \"quoted\" \\ line\n\tand \u00e9 \U0001F600"
      literal = 'C:\path\no escapes'
      "quoted key" = 1
      hex = 0xFF_FF
      octal = 0o17
      binary = 0b101
      big = 1_000_000
      negative = -42
      positive = +7
      minimum = -9223372036854775808
      exponent = 1.5e-3
      upper = 2E2
      whole = 3.0
      flags = [true, false]
      empty = []
      path = [
        [0.0, 10, 20],   # first point
        [1.5, 30, 40],   # trailing comma next
      ]
      names = ["a", 'b']
      point = { x = 1, y = "two", nested = { z = [1, 2] } }
      dotted.inner.value = 5
      dotted.inner.other = 6
      multi = """
      first
      second \
         joined"""
      raw = '''
      it's 'raw' \n'''

      [outer.inner]
      deep = true
      [outer]
      shallow = 1
      """#)
    #expect(try root.string("basic") == "a \"quoted\" \\ line\n\tand \u{e9} \u{1F600}")
    #expect(try root.string("literal") == #"C:\path\no escapes"#)
    #expect(try root.int("quoted key") == 1)
    #expect(root.field("quoted key") == #""quoted key""#)
    #expect(try root.int("hex") == 0xFFFF)
    #expect(try root.int("octal") == 15)
    #expect(try root.int("binary") == 5)
    #expect(try root.int("big") == 1_000_000)
    #expect(try root.int("negative") == -42)
    #expect(try root.int("positive") == 7)
    #expect(try root.int("minimum") == Int.min)
    #expect(try root.double("exponent") == 0.0015)
    #expect(try root.double("upper") == 200)
    #expect(try root.int("whole") == 3)
    if case .bool(false)? = root.value("flags").flatMap({ value -> TOMLValue? in
      if case .array(let items) = value { return items.last }
      return nil
    }) {
    } else {
      Issue.record("flags should end with false")
    }
    #expect(try root.doubleArray("empty") == [])
    #expect(try root.doubleRows("path") == [[0, 10, 20], [1.5, 30, 40]])
    #expect(try root.stringArray("names") == ["a", "b"])
    let point = try root.table("point")
    #expect(try point.int("x") == 1)
    #expect(try point.string("y") == "two")
    #expect(try point.table("nested").doubleArray("z") == [1, 2])
    #expect(point.name == "point")
    #expect(try point.table("nested").name == "point.nested")
    let inner = try root.table("dotted").table("inner")
    #expect(try inner.int("value") == 5)
    #expect(try inner.int("other") == 6)
    #expect(try root.string("multi") == "first\nsecond joined")
    #expect(try root.string("raw") == "it's 'raw' \\n")
    let outer = try root.table("outer")
    #expect(try outer.int("shallow") == 1)
    #expect(try outer.table("inner").bool("deep"))
    #expect(outer.line == 33)
    #expect(try outer.table("inner").name == "outer.inner")
    #expect(try outer.table("inner").field("deep") == "[outer.inner] deep")
  }

  @Test func missingKeyNamesTheTableHeaderLine() throws {
    let root = try parse(Self.board)
    let panel = try root.table("panel")
    #expect(
      failure { _ = try panel.double("depth_mm") }
        == "boards/x.toml:5: [panel] depth_mm: missing (required)")
    #expect(failure { _ = try root.table("touch") } == "boards/x.toml: touch: missing (required)")
  }

  @Test func wrongTypeNamesKeyLineAndValue() throws {
    let root = try parse("# header\n[sampling]\nrate_hz = \"fast\"\nscale = 1.5\nratio = 2\n")
    let sampling = try root.table("sampling")
    #expect(
      failure { _ = try sampling.int("rate_hz") }
        == #"boards/x.toml:3: [sampling] rate_hz: expected an integer, found a string "fast""#)
    #expect(
      failure { _ = try sampling.int("scale") }
        == "boards/x.toml:4: [sampling] scale: expected an integer, found a float 1.5")
    #expect(
      failure { _ = try sampling.string("ratio") }
        == "boards/x.toml:5: [sampling] ratio: expected a string, found an integer 2")
    #expect(
      failure { _ = try sampling.optionalBool("ratio") }
        == "boards/x.toml:5: [sampling] ratio: expected a boolean, found an integer 2")
    #expect(
      failure { _ = try sampling.double("rate_hz") }
        == #"boards/x.toml:3: [sampling] rate_hz: expected a float, found a string "fast""#)
    #expect(
      failure { _ = try root.table("sampling").table("scale") }
        == "boards/x.toml:4: [sampling] scale: expected a table, found a float 1.5")
    #expect(
      failure { _ = try sampling.doubleArray("ratio") }
        == "boards/x.toml:5: [sampling] ratio: expected an array, found an integer 2")
  }

  @Test func unknownKeyIsRejected() throws {
    let sampling = try parse("[sampling]\nrate_hz = 320\nrate = 320\n").table("sampling")
    #expect(
      failure { try sampling.rejectUnknownKeys(["rate_hz", "oversample"]) }
        == "boards/x.toml:3: [sampling] rate: unknown key (expected one of: rate_hz, oversample)")
  }

  @Test func callerValidationErrorsCarryTheLine() throws {
    let panel = try parse("[panel]\n\nwidth_mm = -3\nweights = [1,\n  2,\n  -1]\n").table("panel")
    #expect(
      panel.error("width_mm", "must be positive").description
        == "boards/x.toml:3: [panel] width_mm: must be positive")
    #expect(
      panel.error("height_mm", "must be given with width_mm").description
        == "boards/x.toml:1: [panel] height_mm: must be given with width_mm")
    #expect(
      panel.error("weights", element: 2, "must not be negative").description
        == "boards/x.toml:6: [panel] weights[3]: must not be negative")
  }

  @Test func syntaxErrorsNameLineAndExpectation() {
    let cases: [(String, String)] = [
      ("[board]\nname = \"a\"\nname = \"b\"\n",
       "boards/x.toml:3: [board] name: duplicate key (first defined on line 2)"),
      ("[a]\nx = 1\n\n[a]\n", "boards/x.toml:4: table [a] is defined twice (first on line 1)"),
      ("[board]\nname = \"sim\n", "boards/x.toml:2: [board] name: unterminated string"),
      ("[board]\nname = 'sim\n", "boards/x.toml:2: [board] name: unterminated string"),
      ("[sampling]\nrate_hz = 32o\n", #"boards/x.toml:2: [sampling] rate_hz: invalid number "32o""#),
      ("x = 1__0\n", #"boards/x.toml:1: x: invalid number "1__0""#),
      ("x = 012\n", #"boards/x.toml:1: x: invalid number "012" (leading zeros are not allowed)"#),
      ("x = 1.\n", #"boards/x.toml:1: x: invalid number "1.""#),
      ("x = .5\n", #"boards/x.toml:1: x: invalid number ".5""#),
      ("x = 99999999999999999999\n", #"boards/x.toml:1: x: number "99999999999999999999" is out of range"#),
      ("x = inf\n", "boards/x.toml:1: x: inf and nan are not supported"),
      ("x = 1979-05-27\n", #"boards/x.toml:1: x: dates and times are not supported (found "1979-05-27")"#),
      ("[board]\nname \"x\"\n", #"boards/x.toml:2: [board] name: expected '=' after key, found '"'"#),
      ("[frontend]\nkind = sim\n", #"boards/x.toml:2: [frontend] kind: expected a value, found "sim" (strings need quotes)"#),
      ("x =\n", "boards/x.toml:1: x: expected a value, found end of line"),
      ("x = 1 2\n", #"boards/x.toml:1: x: expected end of line after the value, found "2""#),
      ("[panel\nx = 1\n", "boards/x.toml:1: expected ']' after [panel, found end of line"),
      ("[[cell]\n", "boards/x.toml:1: expected ']]' after [[cell, found ']'"),
      ("= 3\n", "boards/x.toml:1: expected a key, found '='"),
      ("x = [1, 2\ny = 3\n", #"boards/x.toml:2: x: expected ',' or ']' in array, found "y""#),
      ("x = [1, 2,\n", "boards/x.toml:1: x: unterminated array (no closing ']')"),
      ("x = { a = 1\n", "boards/x.toml:1: x: unterminated inline table (no closing '}')"),
      ("x = \"bad \\q\"\n", #"boards/x.toml:1: x: invalid escape \q in a string"#),
      ("x = \"\\uD800\"\n", #"boards/x.toml:1: x: invalid escape \uD800: not a Unicode scalar value"#),
      ("x = \"\"\"\nnever closed\n", "boards/x.toml:1: x: unterminated multi-line string"),
      ("a = 1\n[a.b]\n", "boards/x.toml:2: cannot define table [a.b]: a is already a value (line 1)"),
      ("[a]\n[[a]]\n", "boards/x.toml:2: cannot define array of tables [[a]]: a is already a table (line 1)"),
      ("[[a]]\n[a]\n", "boards/x.toml:2: cannot define table [a]: a is already an array of tables (line 1)"),
      ("a.b = 1\n[a]\n", "boards/x.toml:2: cannot define table [a]: a is already a table defined by dotted keys (line 1)"),
      ("a = 1\na.b = 2\n", "boards/x.toml:2: a.b: a is already a value (line 1)"),
      ("p = { x = 1 }\n[p]\n", "boards/x.toml:2: cannot define table [p]: p is already an inline table (line 1)"),
      ("p = { x = 1, x = 2 }\n", "boards/x.toml:1: [p] x: duplicate key (first defined on line 1)"),
    ]
    for (text, expected) in cases {
      #expect(failure { _ = try parse(text) } == expected, "\(text)")
    }
  }

  @Test func arrayOfTablesErrorsNameTheElement() throws {
    let root = try parse(
      """
      [[touch]]
      x_mm = 1.0
      y_mm = 2.0
      path = [[0, 10, 20]]

      [[touch]]
      x_mm = "left"
      path = [
        [0.0, 10, 20],
        [1.5, "a", 40],
      ]
      [touch.finger]
      id = 2
      """, file: "scenarios/s.toml")
    let touches = try root.tables("touch")
    #expect(touches.count == 2)
    #expect(touches.map(\.name) == ["touch[1]", "touch[2]"])
    #expect(try touches[0].doubleRows("path") == [[0, 10, 20]])
    #expect(
      failure { _ = try touches[1].double("x_mm") }
        == #"scenarios/s.toml:7: touch[2] x_mm: expected a float, found a string "left""#)
    #expect(
      failure { _ = try touches[1].double("y_mm") }
        == "scenarios/s.toml:6: touch[2] y_mm: missing (required)")
    #expect(
      failure { _ = try touches[1].doubleRows("path") }
        == #"scenarios/s.toml:10: touch[2] path[2][2]: expected a float, found a string "a""#)
    let finger = try touches[1].table("finger")
    #expect(finger.name == "touch[2].finger")
    #expect(finger.line == 12)
    #expect(
      failure { _ = try finger.string("id") }
        == "scenarios/s.toml:13: [touch[2].finger] id: expected a string, found an integer 2")
    #expect(
      failure { _ = try root.tables("touch").first?.tables("x_mm") }
        == "scenarios/s.toml:2: touch[1] x_mm: expected an array of tables, found a float 1.0")
  }

  @Test func inlineArrayOfTablesAndCRLF() throws {
    let root = try parse("cells = [\r\n  { x = 1 },\r\n  { x = \"no\" },\r\n]\r\n")
    let cells = try root.tables("cells")
    #expect(cells.count == 2)
    #expect(cells[1].name == "cells[2]")
    #expect(
      failure { _ = try cells[1].int("x") }
        == #"boards/x.toml:3: cells[2] x: expected an integer, found a string "no""#)
  }

  @Test func loadReadsFilesAndNamesMissingOnes() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/board.toml"
    try Self.board.write(toFile: path, atomically: false, encoding: .utf8)
    let root = try TOML.load(path: path)
    #expect(try root.table("sampling").int("rate_hz") == 320)
    #expect(root.file == path)
    #expect(failure { _ = try TOML.load(path: directory + "/nope.toml") } == "\(directory)/nope.toml: no such file")

    let badPath = directory + "/bad.toml"
    _ = FileManager.default.createFile(
      atPath: badPath, contents: Data([0x61, 0x3D, 0x31, 0x0A, 0x62, 0x3D, 0x22, 0xFF, 0x22, 0x0A]))
    #expect(failure { _ = try TOML.load(path: badPath) } == "\(badPath):2: not valid UTF-8 text")
  }
}
