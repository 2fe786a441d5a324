import Hummingbird
import Logging
import NIOPosix
import PanelFiles

#if canImport(Glibc)
  import Glibc
#endif

/// `--static DIR`: an integrator's folder of pages, served under `/app/`
/// beside the built-in pages (Hummingbird's `FileMiddleware` over this
/// provider: ETag, ranges, `index.html` for a folder). Only what is
/// inside the folder is served: no path with a `..`, `.` or hidden
/// (dot) segment, nothing a symbolic link leads outside it, and only
/// regular files and folders (never a device or a named pipe).
struct StaticFolder: FileProvider {
  typealias FileAttributes = LocalFileSystem.FileAttributes
  typealias FileIdentifier = String

  /// Where the folder is served.
  static let mount = "/app"

  /// The folder, its symbolic links resolved.
  let root: String
  let files: LocalFileSystem

  /// Fails with the reason when `path` is not a folder that can be read.
  init(path: String) throws(ServeError) {
    guard let resolved = Self.realPath(path) else {
      throw ServeError("--static \(path): \(String(cString: strerror(errno)))")
    }
    guard (try? FileSystem.status(resolved).kind) == .directory else {
      throw ServeError("--static \(path): not a folder")
    }
    do throws(Errno) {
      try FileSystem.checkAccess(resolved, R_OK | X_OK)
    } catch {
      throw ServeError("--static \(path): cannot be read (\(error))")
    }
    root = resolved
    files = LocalFileSystem(rootFolder: resolved, threadPool: .singleton, logger: Logger(label: "static") { _ in SwiftLogNoOpLogHandler() })
  }

  /// Whether a request's path (below the mount, decoded) may name a file.
  static func isSafe(_ path: String) -> Bool {
    for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
      if segment.hasPrefix(".") || segment.contains("\\") || segment.contains("\0") { return false }
    }
    return true
  }

  func getFileIdentifier(_ path: String) -> String? {
    guard Self.isSafe(path) else { return nil }
    return files.getFileIdentifier(path)
  }

  func getAttributes(id: String) async throws -> FileAttributes? {
    guard let resolved = Self.realPath(id), resolved == root || resolved.hasPrefix(root + "/") else { return nil }
    guard let kind = try? FileSystem.status(resolved).kind, kind == .regular || kind == .directory else { return nil }
    return try await files.getAttributes(id: resolved)
  }

  func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
    try await files.loadFile(id: id, context: context)
  }

  func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
    try await files.loadFile(id: id, range: range, context: context)
  }

  static func realPath(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
  }
}
