import ArgumentParser
import PanelFirmware

/// Where the report stream goes and what it holds: `--format`, `--to`,
/// `--idle`, `--image`, `--echo`.
struct OutputOptions: ParsableArguments {
  @Option(name: .long, help: "Report format: ndjson, tuio (TUIO 2.0) or tuio1 (TUIO 1.1 2Dcur).")
  var format: ReportFormat = .ndjson

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Send to a host: ndjson over TCP, tuio over UDP (tuio default: 127.0.0.1:3333).",
      valueName: "HOST:PORT"))
  var to: String?

  @Flag(name: .long, help: "Also write frames without touches or events.")
  var idle = false

  @Flag(name: .long, help: "Add each frame's force image (newtons per cell) to every NDJSON line.")
  var image = false

  @Flag(name: .long, help: "With --to: also write the NDJSON reports on standard output.")
  var echo = false

  static let tuioPort: UInt16 = 3333
  static let ndjsonPort: UInt16 = 3334

  func validate() throws {
    if image && format != .ndjson { throw ValidationError("--image needs --format ndjson") }
    if echo && to == nil && format == .ndjson {
      throw ValidationError("--echo needs --to (without it the reports already go to standard output)")
    }
    if let to {
      do {
        _ = try SocketAddress.parse(to, defaultPort: format == .ndjson ? Self.ndjsonPort : Self.tuioPort)
      } catch {
        throw ValidationError("--to \(error)")
      }
    }
  }

  /// Runs `run` with the report sink these options name, then `extra`.
  func run<F: FrontEnd, X: FrameSink>(_ run: ReportRun, _ frontEnd: F, extra: X) throws {
    let board = run.board
    let echo: NDJSONSink<FileOutput>? =
      self.echo ? NDJSONSink(output: FileOutput(fd: .standardOutput), board: board, idle: idle, image: image) : nil
    switch format {
    case .ndjson:
      if let to {
        let address = try SocketAddress(to, defaultPort: Self.ndjsonPort, datagram: false)
        let tcp = TCPOutput(to: address, kind: "ndjson")
        let sink = NDJSONSink(output: tcp, board: board, idle: idle, image: image)
        try run.run(frontEnd, SinkPair(sink, SinkPair(echo, extra)))
      } else {
        let sink = NDJSONSink(output: FileOutput(fd: .standardOutput), board: board, idle: idle, image: image)
        try run.run(frontEnd, SinkPair(sink, extra))
      }
    case .tuio, .tuio1:
      let address = try SocketAddress(to ?? "127.0.0.1", defaultPort: Self.tuioPort, datagram: true)
      let udp = try UDPOutput(to: address, kind: format.rawValue)
      let source = TUIOSource(board: board, serial: run.calibration.serial, address: udp.localAddressForTUIO)
      if format == .tuio {
        let sink = TUIOSink(encoder: TUIO2Encoder(source: source), output: udp, board: board, idle: idle)
        try run.run(frontEnd, SinkPair(sink, SinkPair(echo, extra)))
      } else {
        let sink = TUIOSink(encoder: TUIO1Encoder(source: source), output: udp, board: board, idle: idle)
        try run.run(frontEnd, SinkPair(sink, SinkPair(echo, extra)))
      }
    }
  }
}
