#if canImport(Glibc)
  import Glibc
#endif

/// Text on standard output, written whole (retrying short writes and
/// EINTR); a closed pipe ends the writing quietly.
enum StandardOutput {
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return }
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.write(1, base + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }
}
