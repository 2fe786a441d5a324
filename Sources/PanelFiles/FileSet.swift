#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files replaced together, with one commit point: a reader sees every file
/// of one run or every file of the other, never a mix, whenever the writer
/// is killed and whatever fails (a full disk is met before anything is
/// replaced).
///
/// Each file's name is a symbolic link into the set's `current` run, and
/// `current` is itself a link to a run directory; committing a run is one
/// `rename()` of `current`. For a calibration `cal.toml` with its
/// certificates:
///
///     dir/cal.toml                 -> cal.runs/current/cal.toml
///     dir/cal.certificate.html     -> cal.runs/current/cal.certificate.html
///     dir/cal.certificate.json     -> cal.runs/current/cal.certificate.json
///     dir/cal.runs/current         -> run-20250601T101500Z-4f3a9c1e
///     dir/cal.runs/run-20250601T101500Z-4f3a9c1e/cal.toml, ...
///
/// A name that is still a plain file (a set written before, by hand or by
/// another tool) is moved into a run of its own, content unchanged, and
/// replaced by its link before the first commit. Leftovers of an
/// interrupted run (`.new-*` directories, `.current-*` and `.link-*`
/// links, runs that `current` does not name) are swept at the next run.
public struct FileSet: Sendable {
  /// The directory the names are in.
  public let directory: String
  /// The files' names, in `directory`.
  public let names: [String]
  /// The runs' directory's name, in `directory` (`cal.runs`).
  public let runsName: String

  public init(directory: String, names: [String], runsName: String) {
    self.directory = directory.isEmpty ? "." : directory
    self.names = names
    self.runsName = runsName
  }

  var runs: String { directory + "/" + runsName }
  var current: String { runs + "/current" }
  func path(_ name: String) -> String { directory + "/" + name }
  package func linkTarget(_ name: String) -> String { runsName + "/current/" + name }

  /// A run written and synced but not yet visible: `commit()` makes it
  /// the set's content, `discard()` removes it.
  public struct Prepared: Sendable {
    let set: FileSet
    /// The run directory (complete: its name has no leading dot).
    let run: String

    /// Replaces `name` in the prepared run (not yet visible, so written in
    /// place: a full disk that allowed the first write allows this one).
    public func rewrite(_ name: String, _ bytes: [UInt8]) throws(FileError) {
      try FileSet.writeSynced(bytes, to: run + "/" + name, creating: false)
      try FilesPOSIX.syncDirectory(of: run + "/" + name)
    }

    /// The commit point: links the names (once) and switches `current` to
    /// this run with one rename. After it nothing can fail: the previous
    /// runs are removed as far as possible, silently.
    public func commit() throws(FileError) {
      try set.linkNames()
      try set.switchCurrent(to: run)
      set.sweep()
    }

    /// Removes the run.
    public func discard() { FileSet.removeTree(run) }
  }

  /// Writes `files` (a content for each of `names`) into a new run and
  /// syncs it; nothing visible changes. A failure (a full disk) removes the
  /// run and leaves the set as it was. Leftovers of interrupted runs are
  /// swept first.
  public func prepare(_ files: [String: [UInt8]]) throws(FileError) -> Prepared {
    try checkNames()
    sweep()
    try FileSet.makeDirectory(runs, existing: true)
    let staging = runs + "/.new-" + FileSet.unique()
    try FileSet.makeDirectory(staging)
    do throws(FileError) {
      for name in names {
        guard let bytes = files[name] else { continue }
        try FileSet.writeSynced(bytes, to: staging + "/" + name, creating: true)
      }
      try FilesPOSIX.syncDirectory(of: staging + "/x")
      let run = runs + "/run-" + UTCDate.stamp() + "-" + FileSet.unique()
      try FilesPOSIX.renameChecked(staging, to: run)
      try FilesPOSIX.syncDirectory(of: run)
      return Prepared(set: self, run: run)
    } catch {
      FileSet.removeTree(staging)
      throw error
    }
  }

  /// Refuses (one line naming it) a name that is neither new, a regular
  /// file nor a link: a device, a named pipe or a directory is never
  /// replaced by the set's link (`OutputFile`).
  public func checkNames() throws(FileError) {
    for name in names {
      guard let kind = try? FileSystem.status(path(name), followLinks: false).kind else { continue }
      if kind != .regular && kind != .symbolicLink {
        throw OutputFile.refusal(path(name), "is \(kind.described)")
      }
    }
  }

  /// Removes what interrupted runs left behind: staging directories,
  /// temporary links, runs that `current` does not name, and temporary
  /// files of `AtomicFile` for the names. Errors are ignored (a sweep that
  /// cannot remove something tries again next time).
  public func sweep() {
    let kept = currentRun()
    for entry in FileSet.entries(of: runs) {
      if entry.hasPrefix(".new-") || (entry.hasPrefix("run-") && entry != kept) {
        FileSet.removeTree(runs + "/" + entry)
      } else if entry.hasPrefix(".current-") {
        try? FileSystem.unlink(runs + "/" + entry)
      }
    }
    for entry in FileSet.entries(of: directory) {
      for name in names where entry.hasPrefix("." + name + ".link-") || entry.hasPrefix("." + name + ".tmp-") {
        try? FileSystem.unlink(path(entry))
      }
    }
  }

  /// Whether the set's first name is already its link (the set has been
  /// committed here): a writer of that file alone must then go through the
  /// set, or the file and the others would be of different runs.
  public var isCommitted: Bool { FileSet.readLink(path(names[0])) == linkTarget(names[0]) }

  /// The run `current` names, or nil.
  func currentRun() -> String? { FileSet.readLink(current) }

  /// Makes every name the link into `current`. A name that is not yet one
  /// is first moved, content unchanged, into a run of its own that becomes
  /// `current`, so that each name reads the same before and after.
  func linkNames() throws(FileError) {
    let unlinked = names.filter { FileSet.readLink(path($0)) != linkTarget($0) }
    if unlinked.isEmpty { return }
    if unlinked.contains(where: { TextFile.exists(path($0)) }) {
      let staging = runs + "/.new-" + FileSet.unique()
      try FileSet.makeDirectory(staging)
      do throws(FileError) {
        for name in names where TextFile.exists(path(name)) {
          try FileSet.keep(path(name), as: staging + "/" + name)
        }
        let run = runs + "/run-" + UTCDate.stamp() + "-kept-" + FileSet.unique()
        try FilesPOSIX.syncDirectory(of: staging + "/x")
        try FilesPOSIX.renameChecked(staging, to: run)
        try switchCurrent(to: run)
      } catch {
        FileSet.removeTree(staging)
        throw error
      }
    }
    for name in unlinked {
      let temporary = path("." + name + ".link-" + FileSet.unique())
      do throws(Errno) {
        try FileSystem.symbolicLink(linkTarget(name), at: temporary)
      } catch {
        throw FilesPOSIX.failure(path(name), "cannot create a link in \(directory)", error)
      }
      do throws(FileError) {
        try FilesPOSIX.renameChecked(temporary, to: path(name))
      } catch {
        try? FileSystem.unlink(temporary)
        throw error
      }
    }
    try FilesPOSIX.syncDirectory(of: path(names[0]))
  }

  /// Points `current` at `run` with one rename (the commit point).
  func switchCurrent(to run: String) throws(FileError) {
    let (_, runName) = FilesPOSIX.split(run)
    let temporary = runs + "/.current-" + FileSet.unique()
    do throws(Errno) {
      try FileSystem.symbolicLink(runName, at: temporary)
    } catch {
      throw FilesPOSIX.failure(current, "cannot create a link", error)
    }
    do throws(FileError) {
      try FilesPOSIX.renameChecked(temporary, to: current)
    } catch {
      try? FileSystem.unlink(temporary)
      throw error
    }
    try? FilesPOSIX.syncDirectory(of: current)
  }

  // MARK: Helpers

  /// Writes `bytes` to `path` and fsyncs it.
  static func writeSynced(_ bytes: [UInt8], to path: String, creating: Bool) throws(FileError) {
    let flags = O_WRONLY | O_TRUNC | (creating ? O_CREAT | O_EXCL : 0)
    let fd: FileDescriptor
    do throws(Errno) {
      fd = try FileDescriptor.open(path, flags, mode: 0o644)
    } catch {
      throw FilesPOSIX.failure(path, "cannot create", error)
    }
    do throws(FileError) {
      try FilesPOSIX.writeSynced(fd.rawValue, bytes, path: path)
    } catch {
      fd.close()
      throw error
    }
    try FilesPOSIX.closeChecked(fd.rawValue, path: path)
  }

  /// Puts the file `source` names (following links) at `destination`: a
  /// hard link, or a copy across file systems.
  static func keep(_ source: String, as destination: String) throws(FileError) {
    if (try? FileSystem.hardLink(source, at: destination)) != nil { return }
    let bytes = try InputFile.read(source, limit: InputFile.SizeLimit(bytes: 64 << 20, kind: "a file kept with its set"))
    try writeSynced(bytes, to: destination, creating: true)
  }

  /// A link's target, or nil when `path` is not a link.
  static func readLink(_ path: String) -> String? {
    guard let text = try? FileSystem.readLink(path), !text.isEmpty else { return nil }
    return text
  }

  /// The names in a directory (none when it cannot be read).
  package static func entries(of directory: String) -> [String] {
    (try? FileSystem.entries(of: directory)) ?? []
  }

  /// Removes a directory of files (a run), or a file.
  static func removeTree(_ path: String) {
    for entry in entries(of: path) { try? FileSystem.unlink(path + "/" + entry) }
    if (try? FileSystem.removeDirectory(path)) == nil { try? FileSystem.unlink(path) }
  }

  /// mkdir(2) with the error naming `path` (an existing one is fine when
  /// `existing`).
  static func makeDirectory(_ path: String, existing: Bool = false) throws(FileError) {
    do throws(Errno) {
      try FileSystem.makeDirectory(path)
    } catch where existing && error == .fileExists {
    } catch {
      throw FilesPOSIX.failure(path, "cannot create the directory", error)
    }
  }

  /// A short random name part.
  static func unique() -> String {
    String(getpid(), radix: 16) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
  }
}
