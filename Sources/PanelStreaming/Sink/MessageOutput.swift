#if canImport(Glibc)
  import Glibc
#endif

/// Where an encoded message (an NDJSON line, an OSC bundle) goes: a file
/// descriptor, a TCP host, a UDP host. `send` takes the message out of the
/// buffer (empties it) whether or not it could be delivered.
public protocol MessageOutput: AnyObject {
  func send(_ message: ByteBuffer) throws(SinkError)
  /// Makes progress without a new message: connects, flushes queued bytes.
  /// Never blocks.
  func poll()
  /// Sends what can go without waiting and closes.
  func close()
  /// The reader went away for good (standard output): stop producing.
  var isClosed: Bool { get }
  /// Messages sent and dropped, for the end of the run.
  var summary: String? { get }
}

extension MessageOutput {
  public func poll() {}
  public var isClosed: Bool { false }
  public var summary: String? { nil }
}

/// Messages written in full to a file descriptor (standard output), waiting
/// for the reader as long as it takes: nothing is dropped, which is what
/// `replay` and a pipe into another program need. When the reader goes away
/// (EPIPE) the output closes and the run ends.
public final class FileOutput: MessageOutput {
  public let fd: Int32
  let name: String
  public private(set) var isClosed = false

  public init(fd: Int32, name: String = "standard output") {
    self.fd = fd
    self.name = name
  }

  public func send(_ message: ByteBuffer) throws(SinkError) {
    defer { message.removeAll() }
    try write(message.bytes)
  }

  /// Writes all of `bytes` (a closed reader sets `isClosed`).
  public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(SinkError) {
    var offset = 0
    while offset < bytes.count && !isClosed {
      let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        let e = errno
        if e == EINTR { continue }
        if e == EPIPE {
          isClosed = true
          break
        }
        throw .output("writing \(name) failed: \(String(cString: strerror(e)))")
      }
      offset += n
    }
  }

  public func close() {}
}

/// One datagram per message to a UDP host, never waiting: a datagram the
/// kernel cannot take at once (EAGAIN, ENOBUFS) is dropped and counted, and
/// so is one refused because nothing listens there (ECONNREFUSED, reported
/// by the kernel after an ICMP port unreachable).
public final class UDPOutput: MessageOutput {
  public let address: SocketAddress
  let fd: Int32
  let kind: String
  public private(set) var sent: UInt64 = 0
  public private(set) var droppedBusy: UInt64 = 0
  public private(set) var droppedRefused: UInt64 = 0
  public private(set) var failed: UInt64 = 0

  /// `kind` names the messages in the summary ("tuio").
  public init(to address: SocketAddress, kind: String) throws(SocketError) {
    self.address = address
    self.kind = kind
    fd = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .errno("UDP socket for \(address.text)") }
    let status = address.withSockaddr { connect(fd, $0, $1) }
    guard status == 0 else {
      let error = SocketError.errno("UDP to \(address.text)")
      Glibc.close(fd)
      throw error
    }
  }

  deinit { Glibc.close(fd) }

  /// The address this socket sends from, as TUIO writes it.
  public var localAddressForTUIO: String { Sockets.localAddressForTUIO(fd) }

  public var dropped: UInt64 { droppedBusy + droppedRefused + failed }

  public func send(_ message: ByteBuffer) throws(SinkError) {
    defer { message.removeAll() }
    let bytes = message.bytes
    while true {
      let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
      if n >= 0 {
        sent += 1
        return
      }
      switch errno {
      case EINTR: continue
      case EAGAIN, ENOBUFS: droppedBusy += 1
      case ECONNREFUSED: droppedRefused += 1
      default: failed += 1
      }
      return
    }
  }

  public func close() {}

  public var summary: String? {
    "\(kind) udp \(address.text): sent \(sent), dropped \(dropped) (busy \(droppedBusy), no listener \(droppedRefused), failed \(failed))"
  }
}

/// Connection news for the log (standard error, the journal under
/// systemd), formatted without allocating: `panelctl: ADDRESS: what[: why]`.
final class LinkLog {
  let line = ByteBuffer(capacity: 512)
  let address: [UInt8]

  init(address: String) { self.address = Array(address.utf8) }

  func write(_ what: StaticString, errno code: Int32 = 0) {
    line.removeAll()
    line.append("panelctl: ")
    address.withUnsafeBufferPointer { line.append($0) }
    line.append(": ")
    line.append(what)
    if code != 0, let text = strerror(code) {
      line.append(": ")
      line.append(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)))
    }
    line.append("\n")
    _ = Glibc.write(2, line.bytes.baseAddress, line.count)
  }
}
