import PanelFiles
import PanelHardware

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
  public let fd: FileDescriptor
  let name: String
  public private(set) var isClosed = false

  public init(fd: FileDescriptor, name: String = "standard output") {
    self.fd = fd
    self.name = name
  }

  public func send(_ message: ByteBuffer) throws(SinkError) {
    defer { message.removeAll() }
    try write(message.bytes)
  }

  /// Writes all of `bytes` (a closed reader sets `isClosed`).
  public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(SinkError) {
    guard !isClosed else { return }
    do throws(Errno) {
      try fd.writeAll(UnsafeRawBufferPointer(bytes))
    } catch .brokenPipe {
      isClosed = true
    } catch {
      throw .output("writing \(name) failed: \(error)")
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
  let socket: FileDescriptor
  let kind: String
  let mocked = kernelIsMocked
  public private(set) var sent: UInt64 = 0
  public private(set) var droppedBusy: UInt64 = 0
  public private(set) var droppedRefused: UInt64 = 0
  public private(set) var failed: UInt64 = 0

  /// `kind` names the messages in the summary ("tuio").
  public init(to address: SocketAddress, kind: String) throws(SocketError) {
    self.address = address
    self.kind = kind
    do {
      socket = try .socket(family: address.family, type: Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
    } catch {
      throw SocketError("UDP socket for \(address.text): \(error)")
    }
    do throws(Errno) {
      try address.withSockaddr { (a, n) throws(Errno) in try socket.connect(a, n) }
    } catch {
      socket.close()
      throw SocketError("UDP to \(address.text): \(error)")
    }
  }

  deinit { if !mocked || kernelIsMocked { socket.close() } }

  /// The address this socket sends from, as TUIO writes it.
  public var localAddressForTUIO: String { Sockets.localAddressForTUIO(socket) }

  public var dropped: UInt64 { droppedBusy + droppedRefused + failed }

  public func send(_ message: ByteBuffer) throws(SinkError) {
    defer { message.removeAll() }
    do throws(Errno) {
      _ = try socket.send(UnsafeRawBufferPointer(message.bytes), flags: Int32(MSG_DONTWAIT))
      sent += 1
    } catch where error.isWouldBlock || error == .noBufferSpace {
      droppedBusy += 1
    } catch .connectionRefused {
      droppedRefused += 1
    } catch {
      failed += 1
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

  func write(_ what: StaticString, errno error: Errno? = nil) {
    line.removeAll()
    line.append("panelctl: ")
    address.withUnsafeBufferPointer { line.append($0) }
    line.append(": ")
    line.append(what)
    if let code = error?.rawValue, let text = strerror(code) {
      line.append(": ")
      line.append(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)))
    }
    line.append("\n")
    StandardError.write(line.bytes)
  }
}
