// ARM semihosting (QEMU's -semihosting-config): files and the console of
// the host running the emulator.
import CoreRunner

@_extern(c, "semihost_call") func semihostCall(_ op: Int32, _ arg: UnsafeMutableRawPointer?) -> Int32

enum Semihosting {
  /// SYS_OPEN; `path` is NUL-terminated. Mode 0 "r", 4 "w", 8 "a" (":tt" with
  /// mode 4 is standard output, 8 standard error). -1 on failure.
  static func open(_ path: UnsafePointer<UInt8>, length: Int, mode: Int32) -> Int32 {
    var block: (UInt, UInt, UInt) = (UInt(bitPattern: path), UInt(bitPattern: Int(mode)), UInt(bitPattern: length))
    return withUnsafeMutableBytes(of: &block) { semihostCall(0x01, $0.baseAddress) }
  }

  static func close(_ handle: Int32) {
    var block: UInt = UInt(bitPattern: Int(handle))
    _ = withUnsafeMutableBytes(of: &block) { semihostCall(0x02, $0.baseAddress) }
  }

  /// SYS_READ: bytes read, 0 at the end, -1 on failure.
  static func read(_ handle: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    var block: (UInt, UInt, UInt) = (UInt(bitPattern: Int(handle)), UInt(bitPattern: base), UInt(buffer.count))
    let notRead = withUnsafeMutableBytes(of: &block) { semihostCall(0x06, $0.baseAddress) }
    if notRead < 0 || Int(notRead) > buffer.count { return -1 }
    return buffer.count - Int(notRead)
  }

  /// SYS_WRITE: whether every byte was written.
  static func write(_ handle: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
    var block: (UInt, UInt, UInt) = (UInt(bitPattern: Int(handle)), UInt(bitPattern: base), UInt(bytes.count))
    return withUnsafeMutableBytes(of: &block) { semihostCall(0x05, $0.baseAddress) } == 0
  }

  /// SYS_GET_CMDLINE into `buffer` (NUL-terminated); its length, or -1.
  static func commandLine(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
    var block: (UInt, UInt) = (UInt(bitPattern: buffer.baseAddress), UInt(buffer.count))
    let status = withUnsafeMutableBytes(of: &block) { semihostCall(0x15, $0.baseAddress) }
    return status == 0 ? Int(block.1) : -1
  }
}

/// A file on the emulator's host, read through semihosting.
struct SemihostedFile: ByteSource, ByteSink {
  let handle: Int32

  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int { Semihosting.read(handle, buffer) }
  func write(_ bytes: UnsafeRawBufferPointer) -> Bool { Semihosting.write(handle, bytes) }
}
