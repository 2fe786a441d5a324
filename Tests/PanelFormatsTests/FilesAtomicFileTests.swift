import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats

@Suite("Atomic file writes")
struct FilesAtomicFileTests {
  @Test func replacesContentAndLeavesNoTemporaryFiles() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/calibration.toml"
    try AtomicFile.write("old = 1\n", to: path)
    #expect(try FilesTestSupport.text(at: path) == "old = 1\n")
    try AtomicFile.write(Array("new = 2\n".utf8), to: path)
    #expect(try FilesTestSupport.text(at: path) == "new = 2\n")
    try AtomicFile.write("", to: path)
    #expect(try FilesTestSupport.text(at: path) == "")
    #expect(try FilesTestSupport.contents(of: directory) == ["calibration.toml"])
  }

  @Test func missingDirectoryThrowsNamingThePathAndLeavesNothing() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/missing/calibration.toml"
    let message = FilesTestSupport.failure { try AtomicFile.write("x = 1\n", to: path) }
    #expect(
      message == "\(path): cannot create a temporary file in \(directory)/missing: No such file or directory")
    #expect(try FilesTestSupport.contents(of: directory).isEmpty)
  }

  @Test func failedReplaceKeepsThePreviousFile() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // The target is a non-empty directory: refused before anything is
    // written (OutputFile), no temporary file left.
    let path = directory + "/target"
    try FileManager.default.createDirectory(atPath: path + "/inside", withIntermediateDirectories: true)
    let message = FilesTestSupport.failure { try AtomicFile.write("x", to: path) }
    #expect(message?.hasPrefix("\(path): is a directory: an output must be a new name, a regular file or a link to one") == true)
    #expect(try FilesTestSupport.contents(of: directory) == ["target"])
    #expect(try FilesTestSupport.contents(of: path) == ["inside"])
  }
}
