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
  var fd: Int32 = -1
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
    if fd >= 0 { Glibc.close(fd) }
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
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
    cutOff += lines(head, tail)
    head = 0
    tail = 0
    state = .waiting
  }

  public var summary: String? {
    "\(kind) tcp \(address.text): sent \(sent), dropped \(dropped) (disconnected \(droppedDisconnected), queue full \(droppedFull), cut off \(cutOff)), connections \(connections)"
  }

  func startConnecting() {
    fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else {
      failed(errno)
      return
    }
    Sockets.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    Sockets.setOption(fd, SOL_SOCKET, SO_SNDBUF, 16 * 1024)
    let status = address.withSockaddr { connect(fd, $0, $1) }
    if status == 0 {
      connected()
    } else if errno == EINPROGRESS || errno == EINTR {
      state = .connecting
      finishConnecting()
    } else {
      failed(errno)
    }
  }

  func finishConnecting() {
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    guard Glibc.poll(&p, 1, 0) > 0 else { return }
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
    if error == 0 { connected() } else { failed(error) }
  }

  func connected() {
    state = .connected
    connections += 1
    pause_us = TCPOutput.firstPause_us
    failureLogged = false
    lastPeek = monotonicMicroseconds()
    log.write("connected")
  }

  /// A connection attempt failed: close, and try again after a pause.
  func failed(_ code: Int32) {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
    state = .waiting
    if !failureLogged {
      log.write("cannot connect, retrying", errno: code)
      failureLogged = true
    }
    retryAt = monotonicMicroseconds() + pause_us
    pause_us = min(pause_us * 2, TCPOutput.longestPause_us)
  }

  /// The connection broke: drop what was queued and reconnect soon.
  func lost(_ code: Int32) {
    Glibc.close(fd)
    fd = -1
    cutOff += lines(head, tail)
    head = 0
    tail = 0
    state = .waiting
    log.write("connection lost, reconnecting", errno: code)
    failureLogged = true
    retryAt = monotonicMicroseconds() + pause_us
  }

  func flush() {
    while head < tail {
      let n = Glibc.send(fd, queue + head, tail - head, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
      if n > 0 {
        sent += lines(head, head + n)
        head += n
        continue
      }
      let e = errno
      if n < 0 && e == EINTR { continue }
      if n < 0 && (e == EAGAIN || e == EWOULDBLOCK) { break }
      lost(n == 0 ? EPIPE : e)
      return
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
    guard state == .connected, now - lastPeek >= 50_000 else { return }
    lastPeek = now
    while true {
      let n = recv(fd, scratch, TCPOutput.drainBytes, Int32(MSG_DONTWAIT))
      if n > 0 { return }
      if n == 0 {
        lost(ECONNRESET)
        return
      }
      let e = errno
      if e == EINTR { continue }
      if e != EAGAIN && e != EWOULDBLOCK { lost(e) }
      return
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
