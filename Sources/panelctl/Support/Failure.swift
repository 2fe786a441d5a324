import ArgumentParser
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// Exit statuses of panelctl.
enum ExitStatus: Int32 {
  case success = 0
  /// Bad input, a device or a file failed.
  case error = 1
  /// A check failed (a calibration out of limits).
  case checkFailed = 2
  /// The command line was wrong.
  case usage = 64
}

/// An error that has already been explained, with the status to exit with.
struct CommandFailure: Error, CustomStringConvertible {
  var message: String
  var status: ExitStatus
  var description: String { message }
}

enum Failure {
  /// Prints one line for `error` on standard error and exits non-zero
  /// (help and version requests exit 0 with their text). A command line
  /// the parser refused is explained by `diagnosis` when there is one (the
  /// unknown word and what was probably meant), with the usage status.
  static func exit(_ error: Error, diagnosis: String? = nil) -> Never {
    let code = PanelCtl.exitCode(for: error)
    if code == .success {
      PanelCtl.exit(withError: error)  // --help, --version
    }
    let status: ExitStatus
    let message: String
    switch error {
    case _ where diagnosis != nil:
      status = .usage
      message = diagnosis ?? ""
    case let f as CommandFailure:
      status = f.status
      message = f.message
    case let f as FileError:
      status = .error
      message = f.description
    case let f as FrontEndError:
      status = .error
      message = f.description
    case let f as SocketError:
      status = .error
      message = f.description
    case let f as SinkError:
      status = .error
      message = f.description
    default:
      message = PanelCtl.message(for: error)
      status = code == .validationFailure ? .usage : .error
    }
    // One bounded line, escaped, whatever the message carries (a command
    // line's value is quoted by the argument parser whole).
    StandardError.line("panelctl: error: " + oneLine(message))
    Glibc.exit(status.rawValue)
  }

  static func oneLine(_ s: String) -> String {
    let line = s.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? s
    return line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line
  }
}
