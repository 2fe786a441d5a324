import ArgumentParser
import PanelFirmware

extension PanelCtl.Sim {
  /// The soak with faults (docs/reliability.md, "A soak with faults").
  struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run a simulated twin for many frames with bus and chip faults injected, beside a fault-free twin.",
      discussion: """
        NACK bursts, a stuck bus, chip brownouts, a cell at its rail, a cell open then mended, spikes and \
        stopped data-ready lines, one after another, with touches scripted throughout. Prints, per kind of \
        fault, how many were injected, seen in the health counters and recovered from, then the false and \
        stuck touches, the presses outside the faults' windows against the fault-free twin (each must be the \
        same touch, within three frames; the stages that differ are printed, not checked: the twins' noise \
        differs once a fault has moved a chip's conversions, and --placebo measures that share), and the \
        resident memory. Exit status: 0 when no touch was false or stuck, every press outside the windows was \
        the same touch, every fault that reached the panel was seen in the health counters (a spike on a conversion \
        overwritten before it was read is counted as never read), every fault was recovered from and memory grew by \
        under 1 MiB; 2 when not; 1 on an error.
        """)

    @Option(name: .long, help: ArgumentHelp("A simulated NAU7802 twin (bus = \"sim\").", valueName: "BOARD.toml"))
    var board = "boards/sim-plate4-nau7802.toml"

    @Option(name: .long, help: "Frames of the faulted twin.")
    var frames = 1_000_000

    @Option(name: .long, help: "The touches' and the faults' seed.")
    var seed: UInt64 = 1

    @Flag(name: .long, help: "Print each fault as it is injected, and each failed check, on standard error.")
    var verbose = false

    @Option(
      name: .long,
      help: ArgumentHelp(
        "Inject nothing: at each fault's time move the faulted twin's noise on by one draw (noise), and its chip's conversions to other instants (conversions).",
        valueName: "noise|conversions"))
    var placebo: FaultSoak.Placebo?

    func validate() throws {
      if !(1_000...1_000_000_000).contains(frames) { throw ValidationError("--frames must be 1000...1000000000") }
    }

    func run() throws {
      let b = try Board.load(path: board)
      var bar = Progress(label: "soak", total: frames, rate_hz: b.rate_hz)
      var soak = FaultSoak(board: b, seed: seed)
      soak.placebo = placebo
      if verbose { soak.trace = { StandardError.line("panelctl: soak: \($0)") } }
      let r = try soak.run(frames: frames) { bar.update($0) }
      bar.finish()
      if let placebo { print("placebo (\(placebo.rawValue)): nothing injected; at each fault's time the faulted twin moved as a fault moves it") }
      print(Self.table(r), terminator: "")
      let memory = r.residentEnd_kib - r.residentEarly_kib
      // Presses at another stage are printed, not failed on: the twins'
      // noise differs after the first fault (docs/reliability.md). A
      // placebo injects nothing for the health counters to show.
      let unseen = placebo == nil ? r.unreported : 0
      if r.falseTouches > 0 || r.stuckTouches > 0 || r.unmatched > 0 || unseen > 0 || r.unrecovered > 0 || memory > 1024 {
        throw CommandFailure(message: "the soak found a fault the panel did not survive cleanly (see the table)", status: .checkFailed)
      }
    }

    static func table(_ r: FaultSoak.Result) -> String {
      var text = "frames \(r.frames) (\(Format.fixed(r.simulated_s, 0)) s simulated), touches \(r.touches)\n"
      text += "| fault | injected | in health | never read | recovered | longest recovery |\n|---|---:|---:|---:|---:|---:|\n"
      for fault in FaultSoak.Fault.allCases {
        let t = r.tally(fault)
        text += "| \(fault.rawValue) | \(t.injected) | \(t.reported) | \(t.neverRead) | \(t.recovered) | \(Format.fixed(Double(t.longestRecovery_us) / 1000, 1)) ms |\n"
      }
      text += "false touches \(r.falseTouches), stuck touches \(r.stuckTouches)\n"
      text += "presses compared with the fault-free twin outside the faults' windows \(r.compared): the same touch at another stage \(r.otherStage) (the faulted twin's lower \(r.lowerStage), higher \(r.otherStage - r.lowerStage)), not the same touch \(r.unmatched)\n"
      text += "resident memory \(r.residentEarly_kib) KiB after a tenth of the run, \(r.residentEnd_kib) KiB at its end\n"
      text += "front end: \(r.frontEnd.description)\n"
      let c = r.core
      text += "core: frames \(c.frames), invalid \(c.invalidFrames), spikes \(c.spikes), saturated samples \(c.saturatedSamples), reseeds \(c.reseeds)\n"
      return text
    }
  }
}

extension FaultSoak.Placebo: ExpressibleByArgument {}
