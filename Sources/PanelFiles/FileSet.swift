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
    if mkdir(runs, 0o755) != 0 && errno != EEXIST { throw FilesPOSIX.failure(runs, "cannot create the directory") }
    let staging = runs + "/.new-" + FileSet.unique()
    guard mkdir(staging, 0o755) == 0 else { throw FilesPOSIX.failure(staging, "cannot create the directory") }
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
      var info = stat()
      guard lstat(path(name), &info) == 0 else { continue }
      let type = info.st_mode & S_IFMT
      if type != S_IFREG && type != S_IFLNK {
        let what = type == S_IFDIR ? "a directory" : InputFile.describe(type)
        throw OutputFile.refusal(path(name), "is \(what)")
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
        unlink(runs + "/" + entry)
      }
    }
    for entry in FileSet.entries(of: directory) {
      for name in names where entry.hasPrefix("." + name + ".link-") || entry.hasPrefix("." + name + ".tmp-") {
        unlink(path(entry))
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
      guard mkdir(staging, 0o755) == 0 else { throw FilesPOSIX.failure(staging, "cannot create the directory") }
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
      guard symlink(linkTarget(name), temporary) == 0 else {
        throw FilesPOSIX.failure(path(name), "cannot create a link in \(directory)")
      }
      do throws(FileError) {
        try FilesPOSIX.renameChecked(temporary, to: path(name))
      } catch {
        unlink(temporary)
        throw error
      }
    }
    try FilesPOSIX.syncDirectory(of: path(names[0]))
  }

  /// Points `current` at `run` with one rename (the commit point).
  func switchCurrent(to run: String) throws(FileError) {
    let (_, runName) = FilesPOSIX.split(run)
    let temporary = runs + "/.current-" + FileSet.unique()
    guard symlink(runName, temporary) == 0 else { throw FilesPOSIX.failure(current, "cannot create a link") }
    guard rename(temporary, current) == 0 else {
      let code = errno
      unlink(temporary)
      throw FilesPOSIX.failure(current, "cannot rename \(temporary) to it", code)
    }
    try? FilesPOSIX.syncDirectory(of: current)
  }

  // MARK: Helpers

  /// Writes `bytes` to `path` and fsyncs it.
  static func writeSynced(_ bytes: [UInt8], to path: String, creating: Bool) throws(FileError) {
    let flags = O_WRONLY | O_TRUNC | O_CLOEXEC | (creating ? O_CREAT | O_EXCL : 0)
    let fd = open(path, flags, 0o644)
    guard fd >= 0 else { throw FilesPOSIX.failure(path, "cannot create") }
    var failure: FileError?
    bytes.withUnsafeBytes { raw in
      do throws(FileError) {
        try FilesPOSIX.writeAll(fd, raw, path: path)
        try FilesPOSIX.sync(fd, path: path)
      } catch {
        failure = error
      }
    }
    if let failure {
      close(fd)
      throw failure
    }
    try FilesPOSIX.closeChecked(fd, path: path)
  }

  /// Puts the file `source` names (following links) at `destination`: a
  /// hard link, or a copy across file systems.
  static func keep(_ source: String, as destination: String) throws(FileError) {
    if linkat(AT_FDCWD, source, AT_FDCWD, destination, AT_SYMLINK_FOLLOW) == 0 { return }
    let bytes = try InputFile.read(source, limit: InputFile.SizeLimit(bytes: 64 << 20, kind: "a file kept with its set"))
    try writeSynced(bytes, to: destination, creating: true)
  }

  /// A link's target, or nil when `path` is not a link.
  static func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4097)
    let n = readlink(path, &buffer, 4096)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The names in a directory (none when it cannot be read).
  package static func entries(of directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Removes a directory of files (a run), or a file.
  static func removeTree(_ path: String) {
    for entry in entries(of: path) { unlink(path + "/" + entry) }
    if rmdir(path) != 0 { unlink(path) }
  }

  /// A short random name part.
  static func unique() -> String {
    String(getpid(), radix: 16) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
  }
}
