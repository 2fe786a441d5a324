import Foundation

import PanelFirmware

/// Helpers shared by the file tests.
package enum FilesTestSupport {
  /// A fresh empty directory under the system temp directory.
  package static func makeTemporaryDirectory() throws -> String {
    let base = FileManager.default.temporaryDirectory.path
    let path = base + "/panel-files-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// The error description `body` throws, or nil when it succeeds.
  package static func failure(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as FileError {
      return error.description
    } catch {
      return "not a FileError: \(error)"
    }
  }

  /// The names in `directory`, sorted.
  package static func contents(of directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
  }

  package static func text(at path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }
}
