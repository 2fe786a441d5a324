import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats

/// A calibration record is used only when all of it is vouched for by its
/// CRC and it says it passed; it is read and reported like every other file.
@Suite struct RecordIntegrityTests {
  static let record = CalibrationRecord(
    board: "b", serial: "S-1", created: "2026-11-21T00:00:00Z", source: "session", plan: "p",
    cells: (0..<4).map { _ in CellParameters(offset_counts: 10, gain_counts_per_n: 40_000) }, result: "pass")

  static func message(_ text: String) -> String? {
    ErrorText.message { _ = try CalibrationRecord(text: text, file: "c.toml") }
  }

  /// Text after the `[integrity]` line is outside the CRC: a table appended
  /// there (which would double every force) is refused, naming its line.
  @Test(arguments: [
    ("\n[coupling]\nrows = [[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 2.0, 0], [0, 0, 0, 2.0]]\n", 3),
    ("extra = 1\n", 2),
    ("\n[[check]]\nname = \"x\"\nsubject = \"y\"\nvalue = 1.0\nlimit = 2.0\nunit = \"\"\npassed = true\n", 3),
    ("crc32 = \"0x00000000\"\n", 2),
  ])
  func nothingButTheCRCMayFollowTheIntegrityLine(_ appended: (String, Int)) throws {
    let text = Self.record.encoded()
    let integrityLine = text.split(separator: "\n", omittingEmptySubsequences: false)
      .firstIndex { $0 == "[integrity]" }! + 1
    let error = Self.message(text + appended.0)
    let line = integrityLine + appended.1
    let expected = [
      "c.toml:\(line): [integrity]: only crc32 may follow the [integrity] line: the CRC does not cover what comes after it",
      "c.toml:\(line): [integrity] extra: unknown key (expected one of: crc32)",
      "c.toml:\(line): [integrity] crc32: duplicate key (first defined on line \(integrityLine + 1))",
    ]
    #expect(expected.contains(error ?? ""), "\(error ?? "loaded")")
    // Comments and blank lines may follow.
    #expect(try CalibrationRecord(text: text + "\n# checked by QA\n   \n", file: "c.toml") == Self.record)
  }

  @Test func aFailedRecordIsRefused() {
    var failed = Self.record
    failed.result = "fail"
    #expect(
      Self.message(failed.encoded())
        == "c.toml:11: result: the record says the calibration failed (result = \"fail\"): it cannot be used")
    failed.result = "maybe"
    #expect(Self.message(failed.encoded()) == "c.toml:11: result: \"maybe\" is not one of pass, fail")
  }

  /// The core corrects cross-talk on up to 8 cells: a matrix for more is
  /// refused rather than dropped.
  @Test func aCouplingMatrixForMoreThanEightCellsIsRefused() {
    var wide = Self.record
    wide.cells = Array(repeating: Self.record.cells[0], count: 9)
    wide.coupling = (0..<9).map { i in (0..<9).map { $0 == i ? 1.0 : 0 } }
    let error = Self.message(wide.encoded())
    #expect(
      error?.hasSuffix("[coupling] rows: a coupling matrix is for boards of up to 8 cells, the record has 9") == true,
      "\(error ?? "loaded")")
    var eight = wide
    eight.cells.removeLast()
    eight.coupling = (0..<8).map { i in (0..<8).map { $0 == i ? 1.0 : 0 } }
    #expect(Self.message(eight.encoded()) == nil)
  }

  /// A record is read by the same reader as every other file: the same
  /// words for a missing file, a directory and bytes that are not text.
  @Test func aRecordFileIsReadLikeEveryOtherFile() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func both(_ path: String) -> (String?, String?) {
      (
        ErrorText.message { _ = try CalibrationRecord.load(path: path) },
        ErrorText.message { _ = try TOML.load(path: path) }
      )
    }
    let missing = both(dir + "/none.toml")
    #expect(missing.0 == "\(dir)/none.toml: no such file")
    #expect(missing.0 == missing.1)
    let directory = both(dir)
    #expect(directory.0 == "\(dir): is a directory, not a file")
    #expect(directory.0 == directory.1)
    let bad = dir + "/bad.toml"
    try Data("format = \"x\"\n# \u{FF}\n".utf8 + [0xFF, 0x0A]).write(to: URL(fileURLWithPath: bad))
    let binary = both(bad)
    #expect(binary.0 == "\(bad):3: not valid UTF-8 text")
    #expect(binary.0 == binary.1)
  }
}
