import Crypto
import Foundation
import Testing

/// One group of named outputs checked against `Tests/Golden/outputs.sha256`
/// (lines `SHA256  group/name`, sorted). `GOLDEN_UPDATE=1` rewrites the
/// group's lines instead of checking them; `GOLDEN_DUMP=DIR` also writes
/// every output to `DIR/group/name`.
struct GoldenOutputs {
  static let path = Panelctl.root + "/Tests/Golden/outputs.sha256"
  static let environment = ProcessInfo.processInfo.environment

  let group: String
  private(set) var outputs: [(name: String, bytes: [UInt8])] = []

  init(group: String) { self.group = group }

  mutating func add(_ name: String, _ bytes: [UInt8]) { outputs.append((group + "/" + name, bytes)) }

  static func sha256(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
  }

  /// The golden file's lines: name -> hash.
  static func load() throws -> [String: String] {
    guard FileManager.default.fileExists(atPath: path) else { return [:] }
    var table: [String: String] = [:]
    for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
      guard parts.count == 2 else { continue }
      table[parts[1].trimmingCharacters(in: .whitespaces)] = String(parts[0])
    }
    return table
  }

  static let header = """
    # SHA-256 of every output GoldenOutputTests checks (Tests/PanelctlTests/GoldenOutputTests.swift).
    # Regenerate on purpose after a change of behaviour: bash scripts/golden.sh update

    """

  /// Checks (or, with GOLDEN_UPDATE=1, rewrites) this group's lines. A
  /// changed output is written to a temporary folder, named in the failure.
  func check() throws {
    if let dump = Self.environment["GOLDEN_DUMP"], !dump.isEmpty {
      for (name, bytes) in outputs {
        let url = URL(fileURLWithPath: dump).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
      }
    }
    var table = try Self.load()
    let hashes = outputs.map { ($0.name, Self.sha256($0.bytes)) }
    if Self.environment["GOLDEN_UPDATE"] == "1" {
      table = table.filter { !$0.key.hasPrefix(group + "/") }
      for (name, hash) in hashes { table[name] = hash }
      let lines = table.keys.sorted().map { "\(table[$0]!)  \($0)\n" }.joined()
      try Data((Self.header + lines).utf8).write(to: URL(fileURLWithPath: Self.path), options: .atomic)
      return
    }
    var changed: [String] = []
    let kept = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
    for ((name, hash), output) in zip(hashes, outputs) where table[name] != hash {
      let url = kept.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(output.bytes).write(to: url)
      changed.append("\(name): \(table[name] == nil ? "not in the golden file" : "expected \(table[name]!), got \(hash)"); its bytes: \(url.path)")
    }
    let names = Set(hashes.map(\.0))
    let missing = table.keys.filter { $0.hasPrefix(group + "/") && !names.contains($0) }.sorted()
    for name in missing { changed.append("\(name): in the golden file, no longer written") }
    #expect(
      changed.isEmpty,
      """
      \(changed.count) output\(changed.count == 1 ? "" : "s") of \(group) differ from \(Self.path):
      \(changed.joined(separator: "\n"))
      Compare with the old bytes: bash scripts/golden.sh dump DIR on both commits, then diff -r. \
      A change on purpose: bash scripts/golden.sh update, and say so in the commit.
      """)
  }
}
