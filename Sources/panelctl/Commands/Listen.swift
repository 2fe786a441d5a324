import ArgumentParser
import PanelFirmware

extension PanelCtl {
  struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Receive a report stream on the host side and print it (check a link from both ends).",
      discussion: """
        ndjson: accepts TCP connections on PORT (default 3334), up to 16 at \
        once, each served on its own (one that sends nothing for --idle-timeout \
        seconds is closed; when 16 are open, a new one takes the place of the \
        one idle the longest), and prints each report line whole as \
        it arrives (bytes that do not print as themselves escaped as in \
        JSON, \\u001b; a line over 16 MiB dropped with a note). tuio, tuio1: receives OSC bundles on UDP PORT \
        (default 3333), checks them strictly (OSC 1.0 alignment, padding, type \
        tags) and prints one JSON line per bundle (--raw: one line per OSC \
        message). A summary goes to standard error at the end.
        """)

    @Option(name: .long, help: "What arrives: ndjson (TCP), tuio or tuio1 (UDP; either TUIO version is decoded).")
    var format: ReportFormat = .tuio

    @Argument(help: "The port to listen on (default: 3333 for tuio, 3334 for ndjson).")
    var port: Int?

    @Option(name: .long, help: ArgumentHelp("The local address to listen on.", valueName: "ADDRESS"))
    var bind = "0.0.0.0"

    @Option(name: .long, help: ArgumentHelp("Stop after this many reports (lines or bundles).", valueName: "N"))
    var frames: Int?

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "SECONDS"))
    var duration: Double?

    @Option(
      name: .customLong("idle-timeout"),
      help: ArgumentHelp("ndjson: close a connection that sends nothing for this long (default 30).", valueName: "SECONDS"))
    var idleTimeout: Double = 30

    @Flag(name: .long, help: "tuio: print every OSC message as it came (address, type tags, arguments).")
    var raw = false

    func validate() throws {
      if let port, !(1...65535).contains(port) { throw ValidationError("PORT must be 1 to 65535, is \(port)") }
      try OptionBounds.frames(frames)
      try OptionBounds.duration(duration)
      if raw && format == .ndjson { throw ValidationError("--raw is for tuio") }
      if !(idleTimeout > 0 && idleTimeout <= 86_400) { throw ValidationError("--idle-timeout must be 0 < SECONDS <= 86400") }
    }

    func run() throws {
      let p = UInt16(port ?? Int(format == .ndjson ? OutputOptions.ndjsonPort : OutputOptions.tuioPort))
      let address = try SocketAddress("\(bind.contains(":") ? "[\(bind)]" : bind):\(p)", datagram: format != .ndjson)
      Terminal.stopOnSignals()
      var receiver = ReportListener(
        limit: frames, deadline: duration.map { monotonicMicroseconds() + Int64(saturating: $0 * 1e6) },
        idle_us: Int64(idleTimeout * 1e6))
      if format == .ndjson {
        try receiver.lines(on: address)
      } else {
        try receiver.bundles(on: address, raw: raw)
      }
    }
  }
}

