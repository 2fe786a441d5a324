import ArgumentParser
import PanelFirmware

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
      Scan.self, Core.self,
    ]
  )
}

@main
enum Main {
  static func main() {
    Terminal.ignoreBrokenPipe()
    let arguments = CommandLineHelp.joiningNegativeValues(Array(CommandLine.arguments.dropFirst()))
    var command: ParsableCommand
    do {
      command = try PanelCtl.parseAsRoot(arguments)
    } catch {
      Failure.exit(error, diagnosis: CommandLineHelp.diagnose(arguments))
    }
    do {
      try command.run()
    } catch {
      Failure.exit(error)
    }
  }
}
