#if canImport(Glibc)
  import Glibc
#endif

/// The server's news on standard error (the journal, under systemd), one
/// line each: `panelctl: serve: ...`.
package enum ServeLog {
  package static func write(_ message: String) {
    var line = "panelctl: serve: " + message + "\n"
    line.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }
}
