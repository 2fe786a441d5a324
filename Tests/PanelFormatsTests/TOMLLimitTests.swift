import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats

/// What one TOML document may hold (`TOMLLimits`), and the dialect: TOML
/// 1.1 escapes, no control characters in comments. Each limit broken is one
/// error naming the file and line.
@Suite struct TOMLLimitTests {
  static func failure(_ text: String) -> String? {
    FilesTestSupport.failure { _ = try TOML.parse(text, file: "x.toml") }
  }

  @Test func aHeaderOf20000PartsIsOneError() {
    let header = "[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n"
    #expect(Self.failure(header) == "x.toml:1: a key or table name of more than 32 parts (the limit)")
    let key = Array(repeating: "k", count: 20_000).joined(separator: ".") + " = 1\n"
    #expect(Self.failure("\n" + key) == "x.toml:2: a key or table name of more than 32 parts (the limit)")
  }

  @Test func depthCountsHeadersDottedKeysArraysAndInlineTablesTogether() throws {
    let deep = "nested more than 32 levels deep (tables, dotted keys, arrays and inline tables together)"
    // 32 levels are fine, whichever way they are reached.
    let header = (1...16).map { "h\($0)" }.joined(separator: ".")
    let dotted = (1...15).map { "d\($0)" }.joined(separator: ".")
    _ = try TOML.parse("[\(header)]\n\(dotted) = [1]\n", file: "x.toml")
    _ = try TOML.parse("[\(header)]\n\(dotted).d16 = 1\n", file: "x.toml")
    // One more, through a key, an array or an inline table, is refused.
    #expect(Self.failure("[\(header)]\n\(dotted).d16 = [1]\n") == "x.toml:2: [\(header)] \(dotted).d16: \(deep)")
    #expect(Self.failure("[\(header)]\n\(dotted).d16.d17 = 1\n")?.hasSuffix(deep) == true)
    #expect(Self.failure("[\(header)]\n\(dotted) = [[1]]\n")?.hasSuffix(deep) == true)
    _ = try TOML.parse("[\(header)]\n\(dotted) = {a = 1}\n", file: "x.toml")
    #expect(Self.failure("[\(header)]\n\(dotted) = {a = {b = 1}}\n")?.hasSuffix(deep) == true)
    #expect(Self.failure("a = " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40))?.hasSuffix(deep) == true)
    #expect(Self.failure("a = " + String(repeating: "{b = ", count: 40) + "1" + String(repeating: "}", count: 40))?.hasSuffix(deep) == true)
  }

  @Test func arraysOfTablesAndArraysAreCapped() throws {
    let limit = TOMLLimits.maxArrayElements
    let tables = String(repeating: "[[touch]]\n", count: limit)
    #expect(try TOML.parse(tables, file: "x.toml").tables("touch").count == limit)
    #expect(
      Self.failure(tables + "[[touch]]\n")
        == "x.toml:\(limit + 1): more than \(limit) [[touch]] tables (the limit for an array of tables)")
    let array = "a = [" + String(repeating: "1,", count: limit + 1) + "]"
    #expect(Self.failure(array) == "x.toml:1: a: an array of more than \(limit) elements (the limit)")
  }

  @Test func entriesInADocumentAreCapped() {
    // Arrays of tables under the element cap, adding up past the entries cap.
    var text = ""
    for k in 0..<(TOMLLimits.maxEntries / TOMLLimits.maxArrayElements + 1) {
      text += "t\(k) = [" + String(repeating: "0,", count: TOMLLimits.maxArrayElements - 1) + "]\n"
    }
    #expect(Self.failure(text)?.hasSuffix("more than \(TOMLLimits.maxEntries) keys and array elements in one file (the limit)") == true)
  }

  @Test func longKeysAreRefusedAndQuotedShort() {
    let long = String(repeating: "k", count: TOMLLimits.maxKeyBytes + 1)
    #expect(Self.failure("\(long) = 1") == "x.toml:1: a key longer than \(TOMLLimits.maxKeyBytes) bytes (the limit)")
  }

  @Test func controlCharactersInCommentsAreRefused() {
    #expect(Self.failure("a = 1 # bell \u{07}\n") == "x.toml:1: a: control character U+07 in a comment")
    #expect(Self.failure("# escape \u{1B}[2J\na = 1\n") == "x.toml:1: control character U+1B in a comment")
    #expect(Self.failure("# delete \u{7F}\n") == "x.toml:1: control character U+7F in a comment")
    #expect(Self.failure("# a tab\there is fine\na = 1\n") == nil)
  }

  @Test func escapesAreTOML11s() throws {
    let t = try TOML.parse(#"a = "\x41\e\u00e9\U0001F600""#, file: "x.toml")
    #expect(try t.string("a") == "A\u{1B}é😀")
    #expect(Self.failure(#"a = "\x4""#) == #"x.toml:1: a: invalid escape \x: expected 2 hex digits"#)
    #expect(Self.failure(#"a = "\q""#) == #"x.toml:1: a: invalid escape \q in a string"#)
  }

  @Test func messagesQuoteAtMost60CharactersOfInput() {
    let huge = String(repeating: "x", count: 1_000_000)
    let message = Self.failure("a = \(huge)")
    #expect(message == "x.toml:1: a: expected a value, found \"\(String(repeating: "x", count: 60))\"... (strings need quotes)")
    let escaped = Self.failure("a = 1\u{1B}[2J")
    #expect(escaped?.contains("\u{1B}") == false)
  }
}
