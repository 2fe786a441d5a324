import Foundation
import PanelFiles
import PanelTestSupport

#if ENABLE_MOCKING
  import Testing

  /// The atomic write path (temporary file, write, fsync, rename, fsync of
  /// the directory) through the mock kernel: interrupted and short writes
  /// still write every byte once; a full disk at fsync and a failed rename
  /// leave the previous file as it was and no temporary file behind.
  @Suite("Atomic file writes through the mock kernel")
  struct FilesAtomicKernelTests {
    static let old = "old = 1\n"
    static let new = String(repeating: "new = 2\n", count: 64)

    /// A directory holding `cal.toml` with the old content.
    static func directoryWithOldFile() throws -> (directory: String, path: String) {
      let directory = try FilesTestSupport.makeTemporaryDirectory()
      let path = directory + "/cal.toml"
      try AtomicFile.write(old, to: path)
      return (directory, path)
    }

    @Test func interruptedAndShortWritesWriteEveryByteOnce() throws {
      // A kernel of its own: the file is descriptor 7, the directory 8;
      // the first write takes 3 bytes, an EINTR comes before the second.
      var opened = 0
      var written: [UInt8] = []
      var writes = 0
      let kernel = MockKernel { call in
        switch call {
        case .open:
          opened += 1
          return .value(Int32(6 + opened))
        case .write(_, let bytes):
          writes += 1
          let taken = writes == 1 ? 3 : bytes.count
          written += bytes.prefix(taken)
          return .value(Int32(taken))
        case .stat: return .failure(.noSuchFileOrDirectory)
        default: return .ok
        }
      }
      kernel.fail(.interrupted, times: 1) { call in
        if case .write = call { return writes == 1 }
        return false
      }
      try kernel.run { () throws(FileError) in try AtomicFile.write(Self.new, to: "/panel/cal.toml") }
      #expect(written == Array(Self.new.utf8))
      let calls = kernel.trace.filter {
        switch $0 {
        case .write, .stat: return false
        default: return true
        }
      }
      guard case .open(let temporary, _) = calls.first else {
        Issue.record("no open first: \(kernel.trace)")
        return
      }
      #expect(temporary.hasPrefix("/panel/.cal.toml.tmp-"))
      #expect(
        calls.map(\.description) == [
          "open(\(temporary), 0x\(String(O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, radix: 16)))",
          "fsync(7)", "close(7)", "rename(\(temporary), /panel/cal.toml)",
          "open(/panel, 0x\(String(O_RDONLY | O_DIRECTORY | O_CLOEXEC, radix: 16)))", "fsync(8)", "close(8)",
        ])
      // Three writes: the short one, the interrupted one, the rest.
      #expect(kernel.trace.filter { if case .write = $0 { return true } else { return false } }.count == 3)
    }

    @Test func aFullDiskAtFsyncKeepsTheOldFile() throws {
      let (directory, path) = try Self.directoryWithOldFile()
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let kernel = MockKernel.passingThrough()
      kernel.fail(.noSpace) { if case .fsync = $0 { return true } else { return false } }
      let message = FilesTestSupport.failure {
        try kernel.run { () throws(FileError) in try AtomicFile.write(Self.new, to: path) }
      }
      #expect(message == "\(path): cannot fsync: No space left on device")
      #expect(try FilesTestSupport.text(at: path) == Self.old)
      #expect(try FilesTestSupport.contents(of: directory) == ["cal.toml"])
      #expect(!kernel.trace.contains { if case .rename = $0 { return true } else { return false } })
    }

    @Test func aFailedRenameKeepsTheOldFile() throws {
      let (directory, path) = try Self.directoryWithOldFile()
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let kernel = MockKernel.passingThrough()
      kernel.fail(.permissionDenied) { if case .rename = $0 { return true } else { return false } }
      let message = FilesTestSupport.failure {
        try kernel.run { () throws(FileError) in try AtomicFile.write(Self.new, to: path) }
      }
      #expect(message?.hasPrefix("\(path): cannot rename \(directory)/.cal.toml.tmp-") == true)
      #expect(message?.hasSuffix(" to it: Permission denied") == true)
      #expect(try FilesTestSupport.text(at: path) == Self.old)
      #expect(try FilesTestSupport.contents(of: directory) == ["cal.toml"])
      // The temporary file was removed (really: the unlink passed through).
      #expect(kernel.trace.contains { if case .unlink(let p) = $0 { return p.contains(".cal.toml.tmp-") } else { return false } })
    }

    @Test func interruptedRealWritesAndFsyncsAreRetried() throws {
      let (directory, path) = try Self.directoryWithOldFile()
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let kernel = MockKernel.passingThrough()
      kernel.fail(.interrupted, times: 2) { if case .write = $0 { return true } else { return false } }
      kernel.fail(.interrupted, times: 1) { if case .fsync = $0 { return true } else { return false } }
      try kernel.run { () throws(FileError) in try AtomicFile.write(Self.new, to: path) }
      #expect(try FilesTestSupport.text(at: path) == Self.new)
      #expect(try FilesTestSupport.contents(of: directory) == ["cal.toml"])
    }
  }
#endif
