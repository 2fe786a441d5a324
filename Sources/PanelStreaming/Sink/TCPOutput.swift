import PanelFiles
import PanelHardware

#if canImport(Glibc)
  import Glibc
#endif

/// Lines (NDJSON reports) to a TCP host that may come and go, never making
/// the caller wait:
///
/// - a non-blocking socket; connecting happens in the background, retried
///   with a growing pause (0.1 s doubling to 2 s) while the host is away;
/// - whole lines queue in a buffer sized at setup and go out as fast as the
///   host reads; a line that does not fit (the host stopped reading) is
///   dropped, and every line offered while disconnected is dropped: each
///   counted;
/// - when the connection breaks, the queued bytes are discarded (so the
///   next connection starts on a line boundary) and counted as lines cut off.
///
/// The socket's send buffer is kept small (`SO_SNDBUF`) so that a host that
/// falls behind sees fresh reports, not seconds-old ones.
public final class TCPOutput: MessageOutput {
  public let address: SocketAddress
  let kind: String
  let queue: UnsafeMutablePointer<UInt8>
  let capacity: Int
  var head = 0
  var tail = 0
  var socket: FileDescriptor?
  /// Made under a `MockKernel` (debug builds): closed only under one.
  let mocked = kernelIsMocked
  var state = State.waiting
  var retryAt: Int64 = 0
  var pause_us: Int64 = TCPOutput.firstPause_us
  var lastPeek: Int64 = 0
  var failureLogged = false
  let log: LinkLog

  enum State { case waiting, connecting, connected }

  static let firstPause_us: Int64 = 100_000
  static let longestPause_us: Int64 = 2_000_000
  /// The most of the host's incoming bytes read (and dropped) per check.
  public static let drainBytes = 16 * 1024
  /// Where they are read to (and forgotten).
  let scratch: UnsafeMutableRawPointer

  /// Lines delivered to the host's socket.
  public private(set) var sent: UInt64 = 0
  /// Lines offered while no connection was up.
  public private(set) var droppedDisconnected: UInt64 = 0
  /// Lines that did not fit in the queue (the host is not keeping up).
  public private(set) var droppedFull: UInt64 = 0
  /// Lines queued, or partly sent, when a connection broke.
  public private(set) var cutOff: UInt64 = 0
  /// Connections made.
  public private(set) var connections: UInt64 = 0

  public var dropped: UInt64 { droppedDisconnected + droppedFull + cutOff }

  /// - Parameters:
  ///   - queueBytes: how much may wait for a slow host.
  ///   - kind: names the lines in the summary ("ndjson").
  public init(to address: SocketAddress, kind: String, queueBytes: Int = 64 * 1024) {
    self.address = address
    self.kind = kind
    capacity = max(queueBytes, 4096)
    queue = .allocate(capacity: capacity)
    scratch = .allocate(byteCount: TCPOutput.drainBytes, alignment: 8)
    log = LinkLog(address: address.text)
    poll()
  }

  deinit {
    closeSocket()
    queue.deallocate()
    scratch.deallocate()
  }

  public func send(_ message: ByteBuffer) throws(SinkError) {
    defer { message.removeAll() }
    poll()
    guard state == .connected else {
      droppedDisconnected += 1
      return
    }
    let n = message.count
    if tail + n > capacity && head > 0 {
      (queue).update(from: queue + head, count: tail - head)
      tail -= head
      head = 0
    }
    guard tail + n <= capacity else {
      droppedFull += 1
      return
    }
    (queue + tail).update(from: message.bytes.baseAddress!, count: n)
    tail += n
    flush()
  }

  public func poll() {
    switch state {
    case .waiting:
      if monotonicMicroseconds() >= retryAt { startConnecting() }
    case .connecting:
      finishConnecting()
    case .connected:
      flush()
      checkPeer()
    }
  }

  public func close() {
    if state == .connected { flush() }
    closeSocket()
    cutOff += lines(head, tail)
    head = 0
    tail = 0
    state = .waiting
  }

  public var summary: String? {
    "\(kind) tcp \(address.text): sent \(sent), dropped \(dropped) (disconnected \(droppedDisconnected), queue full \(droppedFull), cut off \(cutOff)), connections \(connections)"
  }

  func startConnecting() {
    let socket: FileDescriptor
    do {
      socket = try FileDescriptor.socket(family: address.family, type: Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
    } catch {
      failed(error)
      return
    }
    self.socket = socket
    socket.setOption(level: Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    socket.setOption(level: SOL_SOCKET, SO_SNDBUF, 16 * 1024)
    do throws(Errno) {
      try address.withSockaddr { (a, n) throws(Errno) in try socket.connect(a, n) }
      connected()
    } catch .nowInProgress {
      state = .connecting
      finishConnecting()
    } catch {
      failed(error)
    }
  }

  func finishConnecting() {
    guard let socket else { return }
    do throws(Errno) {
      guard try Poll.wait(socket, for: Int16(POLLOUT), timeout_ms: 0) != 0 else { return }
      if let error = try socket.pendingError() { failed(error) } else { connected() }
    } catch {
      failed(error)
    }
  }

  func connected() {
    state = .connected
    connections += 1
    pause_us = TCPOutput.firstPause_us
    failureLogged = false
    lastPeek = monotonicMicroseconds()
    log.write("connected")
  }

  func closeSocket() {
    if let socket, !mocked || kernelIsMocked { socket.close() }
    socket = nil
  }

  /// A connection attempt failed: close, and try again after a pause.
  func failed(_ error: Errno) {
    closeSocket()
    state = .waiting
    if !failureLogged {
      log.write("cannot connect, retrying", errno: error)
      failureLogged = true
    }
    retryAt = monotonicMicroseconds() + pause_us
    pause_us = min(pause_us * 2, TCPOutput.longestPause_us)
  }

  /// The connection broke: drop what was queued and reconnect soon.
  func lost(_ error: Errno) {
    closeSocket()
    cutOff += lines(head, tail)
    head = 0
    tail = 0
    state = .waiting
    log.write("connection lost, reconnecting", errno: error)
    failureLogged = true
    retryAt = monotonicMicroseconds() + pause_us
  }

  /// Sends the queue as far as the kernel takes it (short sends keep the
  /// rest queued; EAGAIN waits for the next poll).
  func flush() {
    guard let socket else { return }
    while head < tail {
      do throws(Errno) {
        let n = try socket.send(UnsafeRawBufferPointer(start: queue + head, count: tail - head), flags: Int32(MSG_DONTWAIT))
        guard n > 0 else { throw .brokenPipe }
        sent += lines(head, head + n)
        head += n
      } catch where error.isWouldBlock {
        break
      } catch {
        lost(error)
        return
      }
    }
    if head == tail {
      head = 0
      tail = 0
    }
  }

  /// Notices a host that closed its end while we had nothing to send
  /// (a read of 0 bytes). Whatever the host sends is read and ignored, at
  /// most `drainBytes` per check (one `recv`): a host that talks back
  /// fills its own socket buffers, never the frame's time.
  func checkPeer() {
    let now = monotonicMicroseconds()
    guard state == .connected, let socket, now - lastPeek >= 50_000 else { return }
    lastPeek = now
    do throws(Errno) {
      let n = try socket.receive(into: UnsafeMutableRawBufferPointer(start: scratch, count: TCPOutput.drainBytes), flags: Int32(MSG_DONTWAIT))
      if n == 0 { lost(.connectionReset) }
    } catch where error.isWouldBlock {
    } catch {
      lost(error)
    }
  }

  /// Complete lines (newlines) in `queue[from..<to]`.
  func lines(_ from: Int, _ to: Int) -> UInt64 {
    var n: UInt64 = 0
    var i = from
    while i < to {
      if queue[i] == 10 { n += 1 }
      i += 1
    }
    return n
  }
}
