import PanelFirmware

enum Repo {
  static let root: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/PanelServeTests/Support.swift
    return parts.joined(separator: "/")
  }()

  static func path(_ relative: String) -> String { root + "/" + relative }

  static func board(_ name: String) throws -> Board {
    try Board.load(path: path("boards/\(name).toml"))
  }
}

extension Array where Element == UInt8 {
  var text: String { String(decoding: self, as: UTF8.self) }
}

/// Appends `text` to `ring` as one line.
func append(_ ring: inout LineRing, _ text: String, loud: Bool = true) -> Bool {
  Array(text.utf8).withUnsafeBufferPointer { ring.append($0, loud: loud) }
}

/// Reads the next line of `cursor` as text.
func read(_ ring: inout LineRing, _ cursor: inout LineRing.Cursor, loudOnly: Bool = false, dropped: inout UInt64) -> String? {
  ring.read(&cursor, loudOnly: loudOnly, dropped: &dropped) { Array($0).text }
}

@testable import PanelServe
