// The shims of files and directories (see Syscalls.swift): what
// `FileDescriptor` and `FileSystem` call.
#if canImport(Glibc)
  import Glibc
#endif

func system_fsync(_ fd: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.fsync(fd: fd)) { return cResult(r) }
  #endif
  return fsync(fd)
}

func system_fstat(_ fd: CInt, _ info: inout stat) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.fstat(fd: fd)) { return statusIn(r, &info) }
  #endif
  return fstat(fd, &info)
}

func system_stat(_ path: String, followLinks: Bool, _ info: inout stat) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.stat(path: path, followLinks: followLinks)) { return statusIn(r, &info) }
  #endif
  return followLinks ? stat(path, &info) : lstat(path, &info)
}

func system_flock(_ fd: CInt, exclusive: Bool, wait: Bool) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.lock(fd: fd, exclusive: exclusive, wait: wait)) { return cResult(r) }
  #endif
  return flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB))
}

func system_access(_ path: String, _ mode: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.access(path: path, mode: mode)) { return cResult(r) }
  #endif
  return access(path, mode)
}

func system_ftruncate(_ fd: CInt, _ length: Int64) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.truncate(fd: fd, length: length)) { return cResult(r) }
  #endif
  return ftruncate(fd, off_t(length))
}

/// lseek(fd, offset, SEEK_SET)
func system_lseek(_ fd: CInt, _ offset: Int64) -> Int64 {
  #if ENABLE_MOCKING
    if let r = mocked(.seek(fd: fd, offset: offset)) { return r.errno == nil ? offset : Int64(cResult(r)) }
  #endif
  return Int64(lseek(fd, off_t(offset), SEEK_SET))
}

/// fcntl(fd, F_DUPFD_CLOEXEC, 0)
func system_dup(_ fd: CInt) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.dup(fd: fd)) { return cResult(r) }
  #endif
  return fcntl(fd, F_DUPFD_CLOEXEC, 0)
}

func system_rename(_ from: String, _ to: String) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.rename(from: from, to: to)) { return cResult(r) }
  #endif
  return rename(from, to)
}

func system_unlink(_ path: String) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.unlink(path: path)) { return cResult(r) }
  #endif
  return unlink(path)
}

func system_mkdir(_ path: String, _ mode: mode_t) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.mkdir(path: path)) { return cResult(r) }
  #endif
  return mkdir(path, mode)
}

func system_rmdir(_ path: String) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.rmdir(path: path)) { return cResult(r) }
  #endif
  return rmdir(path)
}

func system_symlink(_ target: String, _ path: String) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.symlink(target: target, path: path)) { return cResult(r) }
  #endif
  return symlink(target, path)
}

/// linkat(AT_FDCWD, source, AT_FDCWD, destination, AT_SYMLINK_FOLLOW)
func system_link(_ source: String, _ destination: String) -> CInt {
  #if ENABLE_MOCKING
    if let r = mocked(.link(source: source, destination: destination)) { return cResult(r) }
  #endif
  return linkat(AT_FDCWD, source, AT_FDCWD, destination, AT_SYMLINK_FOLLOW)
}

/// readlink(path, buffer, count): the count of bytes of the link's text.
func system_readlink(_ path: String, _ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
  #if ENABLE_MOCKING
    if let r = mocked(.readlink(path: path)) {
      guard r.errno == nil else { return Int(cResult(r)) }
      let n = min(count, r.bytes.count)
      for i in 0..<n { buffer[i] = CChar(bitPattern: r.bytes[i]) }
      return n
    }
  #endif
  return readlink(path, buffer, count)
}

/// opendir, readdir until the end, closedir: the names but `.` and `..`;
/// nil with errno when the directory cannot be opened.
func system_directory_entries(_ path: String) -> [String]? {
  #if ENABLE_MOCKING
    if let r = mocked(.readDirectory(path: path)) {
      if let e = r.errno {
        errno = e.rawValue
        return nil
      }
      return r.names
    }
  #endif
  guard let dir = opendir(path) else { return nil }
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

#if ENABLE_MOCKING
  /// A mocked stat: the reply's kind and size into `info`.
  private func statusIn(_ r: KernelReply, _ info: inout stat) -> CInt {
    guard r.errno == nil else { return cResult(r) }
    info = stat()
    info.st_mode = r.status.kind.modeBits
    info.st_size = off_t(r.status.size)
    info.st_dev = dev_t(r.status.device)
    info.st_ino = ino_t(r.status.inode)
    return 0
  }
#endif
