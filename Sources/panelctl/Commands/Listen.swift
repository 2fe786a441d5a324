import ArgumentParser
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

extension PanelCtl {
  struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Receive a report stream on the host side and print it (check a link from both ends).",
      discussion: """
        ndjson: accepts TCP connections on PORT (default 3334), one at a time, \
        and prints each report line as it arrives; a stream that reconnects \
        is accepted again. tuio, tuio1: receives OSC bundles on UDP PORT \
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

    @Flag(name: .long, help: "tuio: print every OSC message as it came (address, type tags, arguments).")
    var raw = false

    func validate() throws {
      if let port, !(1...65535).contains(port) { throw ValidationError("PORT must be 1 to 65535, is \(port)") }
      try OptionBounds.frames(frames)
      try OptionBounds.duration(duration)
      if raw && format == .ndjson { throw ValidationError("--raw is for tuio") }
    }

    func run() throws {
      let p = UInt16(port ?? Int(format == .ndjson ? OutputOptions.ndjsonPort : OutputOptions.tuioPort))
      let address = try SocketAddress("\(bind.contains(":") ? "[\(bind)]" : bind):\(p)", datagram: format != .ndjson)
      Terminal.stopOnSignals()
      var receiver = Receiver(limit: frames, deadline: duration.map { monotonicMicroseconds() + Int64(saturating: $0 * 1e6) })
      if format == .ndjson {
        try receiver.lines(on: address)
      } else {
        try receiver.bundles(on: address, raw: raw)
      }
    }
  }
}

/// The receiving loops of `listen`, over plain sockets with poll()
/// timeouts so that Ctrl-C, `--duration` and `--frames` end them promptly.
struct Receiver {
  let limit: Int?
  let deadline: Int64?
  var received = 0
  var malformed = 0
  var connections = 0
  let out = FileOutput(fd: 1)
  let line = ByteBuffer(capacity: 256 * 1024)

  /// Nothing more is wanted: the count is reached, or the reader of
  /// standard output went away.
  var finished: Bool {
    if out.isClosed { return true }
    if let limit, received >= limit { return true }
    return false
  }

  /// Asked to stop: Ctrl-C (SIGINT, SIGTERM) or the end of --duration.
  var stopping: Bool {
    if Terminal.shouldStop { return true }
    if let deadline, monotonicMicroseconds() >= deadline { return true }
    return false
  }

  var done: Bool { finished || stopping }

  /// Waits up to 100 ms for `fd` to be readable.
  func readable(_ fd: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, 100) > 0
  }

  func say(_ text: String) { Terminal.writeError("panelctl: listen: \(text)\n") }

  /// NDJSON over TCP: every line of every connection, as it arrives.
  mutating func lines(on address: SocketAddress) throws {
    let server = try address.boundSocket(datagram: false)
    defer { close(server) }
    guard listen(server, 1) == 0 else { throw SocketError("listen \(address.text): \(String(cString: strerror(errno)))") }
    say("ndjson on tcp \(address.text)")
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !done {
      guard readable(server) else { continue }
      let fd = accept(server, nil, nil)
      guard fd >= 0 else { continue }
      connections += 1
      say("connection \(connections)")
      line.removeAll()
      reading: while !done {
        guard readable(fd) else { continue }
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { break }
        for i in 0..<n {
          line.append(chunk[i])
          if chunk[i] == 10 {
            try out.send(line)
            received += 1
            if done { break reading }
          }
        }
      }
      close(fd)
      if !done { say("connection \(connections) closed, waiting for the next") }
    }
    say("\(received) lines, \(connections) connections")
  }

  /// TUIO over UDP: each datagram decoded strictly and printed. Datagrams
  /// that arrived before a stop (Ctrl-C, --duration) are still printed.
  mutating func bundles(on address: SocketAddress, raw: Bool) throws {
    let fd = try address.boundSocket(datagram: true)
    defer { close(fd) }
    say("tuio on udp \(address.text)")
    var datagram = [UInt8](repeating: 0, count: 65536)
    while !finished {
      let stopping = self.stopping
      if !stopping && !readable(fd) { continue }
      let n = recv(fd, &datagram, datagram.count, stopping ? Int32(MSG_DONTWAIT) : 0)
      if n <= 0 {
        if stopping { break }
        continue
      }
      try print(Array(datagram[0..<n]), raw: raw)
    }
    say("\(received) packets, \(malformed) malformed")
  }

  mutating func print(_ datagram: [UInt8], raw: Bool) throws {
    received += 1
    let packet: (time: OSCTimeTag?, messages: [OSCMessage])
    do {
      packet = try OSCReader.parse(datagram)
    } catch {
      malformed += 1
      if malformed <= 10 { say("malformed packet (\(datagram.count) bytes): \(error)") }
      return
    }
    var text = raw ? TUIOText.raw(packet.messages) : TUIOText.json(packet.messages) + "\n"
    line.removeAll()
    text.withUTF8 { line.append($0) }
    try out.send(line)
  }
}

/// How `listen` prints TUIO bundles.
enum TUIOText {
  /// One line per message: address, type tags, arguments.
  static func raw(_ messages: [OSCMessage]) -> String {
    messages.map { m in ([m.address, m.tags] + m.arguments.map(\.description)).joined(separator: " ") + "\n" }.joined()
  }

  /// One JSON object per bundle: the frame, its touches (position, and for
  /// TUIO 2.0 pressure; stage and force from the extension), alive ids,
  /// events.
  static func json(_ messages: [OSCMessage]) -> String {
    var fields: [String] = []
    var touches: [(id: Int32, fields: [String])] = []
    var events: [String] = []
    var alive: [Int32] = []
    func touch(_ id: Int32) -> Int {
      if let i = touches.firstIndex(where: { $0.id == id }) { return i }
      touches.append((id, ["\"id\":\(id)"]))
      return touches.count - 1
    }
    for m in messages {
      let a = m.arguments
      switch (m.address, a.first) {
      case ("/tuio2/frm", _) where a.count == 4:
        fields.append("\"tuio\":2")
        if case .int32(let f) = a[0] { fields.append("\"frame\":\(f)") }
        if case .timeTag(let t) = a[1] {
          let seconds = Double(Int64(t.seconds) - OSCTimeTag.unixOffset) + Double(t.fraction) / 4_294_967_296
          fields.append("\"time\":\(number(seconds))")
        }
        if case .string(let s) = a[3] { fields.append("\"source\":\(quoted(s))") }
      case ("/tuio2/ptr", .int32(let id)?) where a.count >= 9:
        let i = touch(id)
        touches[i].fields += ["\"x\":\(value(a[3]))", "\"y\":\(value(a[4]))", "\"press\":\(value(a[8]))"]
      case ("/tuio2/alv", _):
        alive = a.compactMap { if case .int32(let v) = $0 { v } else { nil } }
      case ("/tuio/2Dcur", .string("source")?) where a.count == 2:
        fields.append("\"tuio\":1")
        if case .string(let s) = a[1] { fields.append("\"source\":\(quoted(s))") }
      case ("/tuio/2Dcur", .string("alive")?):
        alive = a.dropFirst().compactMap { if case .int32(let v) = $0 { v } else { nil } }
      case ("/tuio/2Dcur", .string("set")?) where a.count == 7:
        if case .int32(let id) = a[1] {
          let i = touch(id)
          touches[i].fields += [
            "\"x\":\(value(a[2]))", "\"y\":\(value(a[3]))", "\"vx\":\(value(a[4]))", "\"vy\":\(value(a[5]))",
          ]
        }
      case ("/tuio/2Dcur", .string("fseq")?) where a.count == 2:
        if case .int32(let f) = a[1] { fields.append("\"frame\":\(f)") }
      case ("/forcepanel/stage", .int32(let id)?) where a.count == 3:
        let i = touch(id)
        touches[i].fields += ["\"stage\":\(value(a[1]))", "\"force_n\":\(value(a[2]))"]
      case ("/forcepanel/event", .string(let type)?) where a.count == 2:
        events.append("{\"type\":\(quoted(type)),\"touch\":\(value(a[1]))}")
      default:
        fields.append("\"unknown\":\(quoted(m.address + " " + m.tags))")
      }
    }
    fields.append("\"touches\":[" + touches.map { "{" + $0.fields.joined(separator: ",") + "}" }.joined(separator: ",") + "]")
    fields.append("\"alive\":[" + alive.map(String.init).joined(separator: ",") + "]")
    fields.append("\"events\":[" + events.joined(separator: ",") + "]")
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// An OSC argument as a JSON value: integers and finite floats as
  /// numbers, strings escaped, a time tag as seconds since 1970, and
  /// `null` for what JSON cannot hold (NaN, infinities, blobs).
  static func value(_ a: OSCArgument) -> String {
    switch a {
    case .int32(let v): return String(v)
    case .float32(let v): return v.isFinite ? "\(v)" : "null"
    case .string(let s): return quoted(s)
    case .timeTag(let t):
      return number(Double(Int64(t.seconds) - OSCTimeTag.unixOffset) + Double(t.fraction) / 4_294_967_296)
    case .blob: return "null"
    }
  }

  /// A finite number as JSON, `null` otherwise.
  static func number(_ v: Double) -> String { v.isFinite ? "\(v)" : "null" }

  /// A JSON string: quotes, backslashes and control characters escaped.
  static func quoted(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case _ where c.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count) + String(c.value, radix: 16)
      default: out.unicodeScalars.append(c)
      }
    }
    return out + "\""
  }
}
