import PanelFiles
import PanelHardware

#if canImport(Glibc)
  import Glibc
#endif

/// The receiving loops of `listen`, over plain sockets with poll()
/// timeouts so that Ctrl-C, `--duration` and `--frames` end them promptly.
package struct ReportListener {
  let limit: Int?
  let deadline: Int64?
  /// How long a TCP connection may send nothing before it is closed.
  var idle_us: Int64 = 30_000_000
  var received = 0
  var malformed = 0
  var connections = 0
  let out = FileOutput(fd: .standardOutput)
  let line = ByteBuffer(capacity: 1 << 20)

  /// Nothing more is wanted: the count is reached, or the reader of
  /// standard output went away.
  var finished: Bool {
    if out.isClosed { return true }
    if let limit, received >= limit { return true }
    return false
  }

  package init(limit: Int?, deadline: Int64?, idle_us: Int64) {
    self.limit = limit
    self.deadline = deadline
    self.idle_us = idle_us
  }

  /// Asked to stop: Ctrl-C (SIGINT, SIGTERM: `StopRequest`) or the end of
  /// --duration.
  var stopping: Bool {
    if StopRequest.isRequested { return true }
    if let deadline, monotonicMicroseconds() >= deadline { return true }
    return false
  }

  var done: Bool { finished || stopping }

  /// Waits up to 100 ms for `fd` to be readable.
  func readable(_ fd: FileDescriptor) throws(Errno) -> Bool {
    try Poll.wait(fd, for: Int16(POLLIN), timeout_ms: 100) != 0
  }

  func say(_ text: String) { StandardError.line("panelctl: listen: \(text)") }

  /// NDJSON over TCP: every line of every connection, as it arrives. Each
  /// connection is served on its own (poll over all of them: an idle one
  /// holds up nobody), each line is printed whole or not at all (a line
  /// longer than `LineClient.maxLineBytes` is dropped with a note), with
  /// what is not printable escaped.
  package mutating func lines(on address: SocketAddress) throws {
    let server = try address.boundSocket(datagram: false)
    defer { server.close() }
    do {
      try server.listen(backlog: 16)
    } catch {
      throw SocketError("listen \(address.text): \(error)")
    }
    say("ndjson on tcp \(address.text)")
    var clients: [LineClient] = []
    defer { for c in clients { c.fd.close() } }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !done {
      var fds = [pollfd(fd: server.rawValue, events: Int16(POLLIN), revents: 0)]
      fds += clients.map { pollfd(fd: $0.fd.rawValue, events: Int16(POLLIN), revents: 0) }
      guard try Poll.wait(&fds, timeout_ms: 100) > 0 else {
        closeIdle(&clients)
        continue
      }
      if fds[0].revents != 0 { acceptClient(server, &clients) }
      var closed: [Int] = []
      for (i, p) in fds.dropFirst().enumerated() where p.revents != 0 && !done {
        let n: Int
        do {
          n = try chunk.withUnsafeMutableBytes { try clients[i].fd.receive(into: $0, flags: Int32(MSG_DONTWAIT)) }
        } catch let error as Errno where error.isWouldBlock {
          continue
        } catch {
          closed.append(i)
          continue
        }
        if n == 0 {
          closed.append(i)
          continue
        }
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
        clients[i].fd.close()
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
  mutating func acceptClient(_ server: FileDescriptor, _ clients: inout [LineClient]) {
    guard let fd = try? server.accept() else { return }
    connections += 1
    if clients.count >= LineClient.maxClients, let oldest = clients.indices.min(by: { clients[$0].lastHeard_us < clients[$1].lastHeard_us }) {
      let quiet_s = Double(monotonicMicroseconds() - clients[oldest].lastHeard_us) / 1e6
      say("connection \(clients[oldest].number) closed for connection \(connections): the quietest of \(LineClient.maxClients) (nothing for \((quiet_s * 10).rounded() / 10) s)")
      clients[oldest].fd.close()
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
      c.fd.close()
      say("connection \(c.number) closed: nothing for \(Double(idle_us) / 1e6) s")
      return true
    }
  }

  /// TUIO over UDP: each datagram decoded strictly and printed. Datagrams
  /// that arrived before a stop (Ctrl-C, --duration) are still printed.
  package mutating func bundles(on address: SocketAddress, raw: Bool) throws {
    let socket = try address.boundSocket(datagram: true)
    defer { socket.close() }
    say("tuio on udp \(address.text)")
    var datagram = [UInt8](repeating: 0, count: 65536)
    while !finished {
      let stopping = self.stopping
      if !stopping, try !readable(socket) { continue }
      let n: Int
      do {
        n = try datagram.withUnsafeMutableBytes { try socket.receive(into: $0, flags: stopping ? Int32(MSG_DONTWAIT) : 0) }
      } catch {
        if stopping { break }
        continue
      }
      if n == 0 {
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
