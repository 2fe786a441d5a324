import ArgumentParser
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// `panelctl`: bring a force panel up, calibrate it, stream it.
struct PanelCtl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "panelctl",
    abstract: "Force-sensing touch panel: stream, record, replay.",
    discussion: """
      Exit status: 0 success, 1 error (bad input, device or file), \
      2 a check failed (calibration), 64 usage.
      """,
    version: "0.1.0",
    subcommands: [
      Stream.self, Serve.self, Monitor.self, Listen.self, Record.self, Replay.self, Info.self, Calibrate.self, Sim.self,
      Scan.self, Core.self, Factory.self,
    ]
  )
}

@main
enum Main {
  static func main() {
    Terminal.ignoreBrokenPipe()
    let arguments = CommandLineHelp.joiningNegativeValues(Array(CommandLine.arguments.dropFirst()))
    var command: ParsableCommand
    // PANELCTL_PARSE_ONLY=1: check the command line and exit (0 when it
    // parses and validates); "names": only that every word is a known
    // command or option (a documented fragment). scripts/docs-claims.py
    // checks every command line in README and docs/ so.
    let parseOnly = getenv("PANELCTL_PARSE_ONLY").map { String(cString: $0) }
    if parseOnly == "names" {
      if let line = CommandLineHelp.diagnose(arguments) { Failure.exit(ValidationError(line), diagnosis: line) }
      Glibc.exit(0)
    }
    do {
      command = try PanelCtl.parseAsRoot(arguments)
    } catch {
      Failure.exit(error, diagnosis: CommandLineHelp.diagnose(arguments))
    }
    if parseOnly != nil { Glibc.exit(0) }
    do {
      try command.run()
    } catch {
      Failure.exit(error)
    }
  }
}
