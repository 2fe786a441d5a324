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
      var receiver = Receiver(
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

/// The receiving loops of `listen`, over plain sockets with poll()
/// timeouts so that Ctrl-C, `--duration` and `--frames` end them promptly.
struct Receiver {
  let limit: Int?
  let deadline: Int64?
  /// How long a TCP connection may send nothing before it is closed.
  var idle_us: Int64 = 30_000_000
  var received = 0
  var malformed = 0
  var connections = 0
  let out = FileOutput(fd: 1)
  let line = ByteBuffer(capacity: 1 << 20)

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

  func say(_ text: String) { StandardError.line("panelctl: listen: \(text)") }

  /// NDJSON over TCP: every line of every connection, as it arrives. Each
  /// connection is served on its own (poll over all of them: an idle one
  /// holds up nobody), each line is printed whole or not at all (a line
  /// longer than `LineClient.maxLineBytes` is dropped with a note), with
  /// what is not printable escaped.
  mutating func lines(on address: SocketAddress) throws {
    let server = try address.boundSocket(datagram: false)
    defer { close(server) }
    guard listen(server, 16) == 0 else { throw SocketError("listen \(address.text): \(String(cString: strerror(errno)))") }
    say("ndjson on tcp \(address.text)")
    var clients: [LineClient] = []
    defer { for c in clients { close(c.fd) } }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !done {
      var fds = [pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
      fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
      guard poll(&fds, nfds_t(fds.count), 100) > 0 else {
        closeIdle(&clients)
        continue
      }
      if fds[0].revents != 0 { acceptClient(server, &clients) }
      var closed: [Int] = []
      for (i, p) in fds.dropFirst().enumerated() where p.revents != 0 && !done {
        let n = recv(clients[i].fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
          closed.append(i)
          continue
        }
        if n < 0 { continue }
        clients[i].lastHeard_us = monotonicMicroseconds()
        for line in clients[i].take(chunk[0..<n]) {
          switch line {
          case .whole(let bytes):
            try ListenText.escapedLine(bytes).withUnsafeBufferPointer { (b) throws(SinkError) in try out.write(b) }
            received += 1
          case .tooLong(let skipped):
            say("connection \(clients[i].number): a line longer than \(LineClient.maxLineBytes >> 20) MiB (\(skipped) bytes) dropped")
          }
          if done { break }
        }
      }
      for i in closed.reversed() {
        close(clients[i].fd)
        if !done { say("connection \(clients[i].number) closed") }
        clients.remove(at: i)
      }
      closeIdle(&clients)
    }
    say("\(received) lines, \(connections) connections")
  }

  /// Accepts a waiting connection; when `LineClient.maxClients` are open,
  /// the one that has sent nothing for the longest is closed for it (idle
  /// connections never lock the stream out).
  mutating func acceptClient(_ server: Int32, _ clients: inout [LineClient]) {
    let fd = accept(server, nil, nil)
    guard fd >= 0 else { return }
    connections += 1
    if clients.count >= LineClient.maxClients, let oldest = clients.indices.min(by: { clients[$0].lastHeard_us < clients[$1].lastHeard_us }) {
      let quiet_s = Double(monotonicMicroseconds() - clients[oldest].lastHeard_us) / 1e6
      say("connection \(clients[oldest].number) closed for connection \(connections): the quietest of \(LineClient.maxClients) (nothing for \((quiet_s * 10).rounded() / 10) s)")
      close(clients[oldest].fd)
      clients.remove(at: oldest)
    }
    clients.append(LineClient(fd: fd, number: connections, now_us: monotonicMicroseconds()))
    say("connection \(connections)")
  }

  /// Closes the connections that sent nothing for `idle_us`.
  func closeIdle(_ clients: inout [LineClient]) {
    let now = monotonicMicroseconds()
    clients.removeAll { c in
      guard now - c.lastHeard_us >= idle_us else { return false }
      close(c.fd)
      say("connection \(c.number) closed: nothing for \(Double(idle_us) / 1e6) s")
      return true
    }
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
    if text.utf8.count >= line.capacity { text = "{\"dropped\":\"the packet prints longer than 1 MiB\"}\n" }
    line.removeAll()
    text.withUTF8 { line.append($0) }
    try out.send(line)
  }
}

/// How `listen` prints TUIO bundles.
enum TUIOText {
  /// One line per message: address, type tags, arguments.
  static func raw(_ messages: [OSCMessage]) -> String {
    messages.map { m in
      Quote.printable(([m.address, m.tags] + m.arguments.map(\.description)).joined(separator: " ")) + "\n"
    }.joined()
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

  /// A JSON string: quotes, backslashes and every character that does not
  /// print as itself (controls, format characters, separators) escaped.
  static func quoted(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      default: ListenText.append(c, to: &out)
      }
    }
    return out + "\""
  }
}

/// Text from the network made safe for a terminal.
enum ListenText {
  /// A received NDJSON line (without its newline) with every character
  /// that does not print as itself escaped the JSON way (`\u001b`), so a
  /// valid line stays valid and means the same; then a newline.
  static func escapedLine(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) { return Array(bytes) + [10] }
    var out = ""
    for c in String(decoding: bytes, as: UTF8.self).unicodeScalars { append(c, to: &out) }
    return Array(out.utf8) + [10]
  }

  /// `c`, or its JSON escape when it does not print as itself.
  static func append(_ c: Unicode.Scalar, to out: inout String) {
    if c.value >= 0x20 && Quote.isPrintable(c) {
      out.unicodeScalars.append(c)
      return
    }
    for unit in String(c).utf16 {
      let hex = String(unit, radix: 16)
      out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
  }
}

/// One NDJSON connection of `listen`: the bytes of its unfinished line.
struct LineClient {
  /// The longest line printed; a longer one is dropped whole.
  static let maxLineBytes = 16 << 20
  /// Connections served at once.
  static let maxClients = 16

  let fd: Int32
  let number: Int
  /// When it last sent something (or connected), monotonic us.
  var lastHeard_us: Int64
  var pending: [UInt8] = []
  /// Bytes of a line too long to keep, until its newline.
  var skipped = 0

  init(fd: Int32, number: Int, now_us: Int64) {
    self.fd = fd
    self.number = number
    lastHeard_us = now_us
  }

  enum Line {
    case whole(ArraySlice<UInt8>)
    case tooLong(Int)
  }

  /// The lines `bytes` completes, in order.
  mutating func take(_ bytes: ArraySlice<UInt8>) -> [Line] {
    var lines: [Line] = []
    var rest = bytes
    while let newline = rest.firstIndex(of: 10) {
      let part = rest[rest.startIndex..<newline]
      rest = rest[(newline + 1)...]
      if skipped > 0 || pending.count + part.count > LineClient.maxLineBytes {
        lines.append(.tooLong(skipped + pending.count + part.count))
        skipped = 0
      } else if pending.isEmpty {
        lines.append(.whole(part))
      } else {
        lines.append(.whole(ArraySlice(pending + part)))
      }
      pending.removeAll(keepingCapacity: false)
    }
    if skipped > 0 || pending.count + rest.count > LineClient.maxLineBytes {
      skipped += pending.count + rest.count
      pending.removeAll(keepingCapacity: false)
    } else {
      pending += rest
    }
    return lines
  }
}
