import PanelFirmware

/// Text on standard output, written whole (`FileDescriptor.writeAll`); a
/// closed pipe ends the writing quietly.
enum StandardOutput {
  static func write(_ text: String) {
    var text = text
    text.withUTF8 { try? FileDescriptor.standardOutput.writeAll(UnsafeRawBufferPointer($0)) }
  }
}
