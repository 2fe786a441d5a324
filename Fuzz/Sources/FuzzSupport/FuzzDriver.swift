#if canImport(Glibc)
  import Glibc
#endif

/// libFuzzer's driver (`-sanitize=fuzzer` links it). SwiftPM gives every
/// executable its own `main`, so libFuzzer's is not used: each target's
/// main hands its input function to this one.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Runs libFuzzer with the process's arguments on `body`, which gets one
/// input per call; exits with libFuzzer's status.
public func runFuzzer(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
  var argc = CommandLine.argc
  var argv = CommandLine.unsafeArgv
  exit(LLVMFuzzerRunDriver(&argc, &argv, body))
}

/// The input as a buffer (empty for a null pointer).
public func input(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
  UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
}

/// A scratch directory for inputs that readers take as files, one per
/// process (`$TMPDIR` or /tmp).
public let scratchDirectory: String = {
  let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  let dir = "\(base)/panelctl-fuzz-\(getpid())"
  mkdir(dir, 0o700)
  return dir
}()

/// Writes `bytes` to `path` (replacing it).
public func writeFile(_ bytes: UnsafeBufferPointer<UInt8>, to path: String) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  precondition(fd >= 0, "cannot write \(path)")
  var offset = 0
  while offset < bytes.count {
    let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
    precondition(n > 0, "cannot write \(path)")
    offset += n
  }
  close(fd)
}

/// The repository's root: `$FORCEPANEL_ROOT`, or the current directory
/// (scripts/fuzz.sh runs from the root).
public let repositoryRoot: String = getenv("FORCEPANEL_ROOT").map { String(cString: $0) } ?? "."
