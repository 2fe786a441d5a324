import ArgumentParser
import PanelFirmware

extension PanelCtl {
  struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Watch the panel live: force heatmap, touches, frame rate, health (80x24 terminal).",
      discussion: """
        For bring-up over SSH. Ctrl-C quits. When standard output is not a \
        terminal nothing is drawn; a summary line is written at the end.
        """)

    @OptionGroup var panel: PanelRunOptions

    @Option(name: .long, help: ArgumentHelp("Redraws per second.", valueName: "HZ"))
    var refresh = 10

    @Flag(name: .long, help: "Shades only, no colours.")
    var noColour = false

    func validate() throws {
      guard (1...60).contains(refresh) else { throw OptionBounds.outOfRange("--refresh", refresh, allowed: "1...60") }
    }

    func run() throws {
      let (run, frontEnd) = try panel.open(command: "monitor")
      Terminal.stopOnSignals()
      let screen = MonitorSink(
        board: run.board, serial: run.calibration.serial, refresh_hz: refresh, colour: !noColour)
      try run.run(frontEnd, screen)
    }
  }
}
