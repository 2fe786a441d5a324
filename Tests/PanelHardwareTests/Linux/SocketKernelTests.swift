import PanelFirmware
import PanelTestSupport

@testable import PanelHardware

#if ENABLE_MOCKING
  import Foundation
  import Glibc
  import Testing

  /// A kernel that answers each kind of call from a script, in order, and
  /// keeps what each descriptor was really given (the accepted part of
  /// every write and send).
  final class ScriptedKernel: @unchecked Sendable {
    let kernel = MockKernel()
    /// Replies still to come, per kind of call ("send", "poll", ...).
    var script: [String: [KernelReply]] = [:]
    /// The bytes each descriptor took, in order.
    var delivered: [Int32: [UInt8]] = [:]

    init() {
      kernel.respond = { [unowned self] call in
        let reply: KernelReply
        if var queued = self.script[Self.kind(call)], !queued.isEmpty {
          reply = queued.removeFirst()
          self.script[Self.kind(call)] = queued
        } else {
          reply = Self.unscripted(call)
        }
        switch call {
        case .write(let fd, let bytes), .send(let fd, let bytes, _):
          if reply.errno == nil { self.delivered[fd, default: []] += bytes.prefix(Int(reply.value)) }
        default: break
        }
        return reply
      }
    }

    /// Queues `replies` for the calls of `kind`.
    func then(_ kind: String, _ replies: KernelReply...) { script[kind, default: []] += replies }

    /// What the descriptor was given, as text.
    func text(_ fd: Int32) -> String { String(decoding: delivered[fd] ?? [], as: UTF8.self) }

    /// The calls of `kind` made so far.
    func calls(_ kind: String) -> [KernelCall] { kernel.trace.filter { Self.kind($0) == kind } }

    /// Without a script: writes take everything, a socket has nothing to
    /// read (EAGAIN), poll finds nothing ready, the rest succeeds.
    static func unscripted(_ call: KernelCall) -> KernelReply {
      switch call {
      case .write(_, let bytes), .send(_, let bytes, _): return .value(Int32(bytes.count))
      case .recv, .read: return .failure(.resourceTemporarilyUnavailable)
      case .poll: return .ready([])
      default: return .ok
      }
    }

    /// "send", "poll", ...; a write with its descriptor ("write 1").
    static func kind(_ call: KernelCall) -> String {
      if case .write(let fd, _) = call { return "write \(fd)" }
      return String(call.description.prefix { $0 != "(" })
    }
  }

  let interrupted = KernelReply.failure(.interrupted)
  let wouldBlock = KernelReply.failure(.resourceTemporarilyUnavailable)

  /// The TCP output, the control channel and `listen` on a kernel that
  /// interrupts calls (EINTR), takes part of a write and has nothing to
  /// give (EAGAIN): FileDescriptor's one policy, seen from each of them.
  @Suite(.serialized) struct SocketKernelTests {
    @Test func theTCPOutputKeepsWhatTheKernelDidNotTakeAndRetriesInterruptedCalls() throws {
      let k = ScriptedKernel()
      let address = try SocketAddress("127.0.0.1:3334", datagram: false)
      // socket -> 5; an interrupted connect goes on in the background; the
      // first two looks find it still connecting, the third connected.
      k.then("socket", .value(5))
      k.then("connect", interrupted)
      k.then("poll", .ready([]), .ready([]), .ready([Int16(POLLOUT)]))
      k.then("getsockopt", .value(0))
      let a = Array(#"{"frame":1}"#.utf8) + [10]
      let b = Array(#"{"frame":2}"#.utf8) + [10]
      let c = Array(#"{"frame":3}"#.utf8) + [10]
      try k.kernel.run { () throws -> Void in
        let output = TCPOutput(to: address, kind: "ndjson")
        #expect(output.connections == 0)
        try output.send(buffer(Array(#"{"frame":0}"#.utf8) + [10]))  // still connecting: dropped
        #expect(output.connections == 0 && output.droppedDisconnected == 1)
        output.poll()
        #expect(output.connections == 1)

        // Line a: interrupted, then 5 bytes taken, then the socket is full.
        k.then("send", interrupted, .value(5), wouldBlock)
        try output.send(buffer(a))
        #expect(k.delivered[5] == Array(a.prefix(5)))
        #expect(output.sent == 0 && output.dropped == 1)

        // Line b: the rest of a goes first, then b whole.
        k.then("send", .value(Int32(a.count - 5)), .value(Int32(b.count)))
        try output.send(buffer(b))
        #expect(k.delivered[5] == a + b)
        #expect(output.sent == 2 && output.dropped == 1)

        // Line c: the host is gone (EPIPE): c is cut off, the socket closed.
        k.then("send", .failure(.brokenPipe))
        try output.send(buffer(c))
        #expect(output.cutOff == 1 && output.sent == 2)
        #expect(k.kernel.trace.contains(.close(fd: 5)))
      }
      // MSG_NOSIGNAL on every send: a gone host is EPIPE, never SIGPIPE.
      for case .send(_, _, let flags) in k.calls("send") { #expect(flags & Int32(MSG_NOSIGNAL) != 0) }
      #expect(k.text(2).contains("127.0.0.1:3334: connected"))
      #expect(k.text(2).contains("connection lost, reconnecting: Broken pipe"))
    }

    @Test func theControlChannelJoinsLinesAcrossInterruptedAndEmptyReads() throws {
      let dir = try FilesTestSupport.makeTemporaryDirectory()
      defer { try? FileManager.default.removeItem(atPath: dir) }
      let path = dir + "/control.txt"
      try "".write(toFile: path, atomically: true, encoding: .utf8)
      let board = try Repo.board("sim-plate4")
      let k = ScriptedKernel()
      var channel = try k.kernel.run { () throws -> ControlChannel in
        // A line in two reads with EINTR and EAGAIN between them, then a
        // second line in the same read as the end of the first.
        k.then("read", interrupted, .bytes(Array("sensitivity fi".utf8)))
        k.then("read", wouldBlock)
        k.then("read", interrupted, .bytes(Array("rm\nforce_touch off\n".utf8)))
        k.then("read", .failure(.ioError))
        // The file is opened through the shims too (InputFile): descriptor 40.
        k.then("open", .value(40))
        return try ControlChannel(path: path, board: board)
      }
      var seen: [InteractionCommand] = []
      var errors: [FileError] = []
      for frame in 0..<5 {
        let (due, bad) = k.kernel.run { channel.poll(time: Time_us(rawValue: Int64(frame) * 1000)) }
        seen += due
        errors += bad
        if frame == 1 { #expect(seen.isEmpty) }  // half a line, then nothing: nothing yet
      }
      k.kernel.run { channel.close() }  // the mocked descriptor, not a real one
      #expect(seen.count == 2)
      if case .sensitivity(.firm)? = seen.first {} else { Issue.record("expected sensitivity firm, got \(seen)") }
      if case .forceTouch(false)? = seen.last {} else { Issue.record("expected force_touch off, got \(seen)") }
      // EIO ends the reading, once, naming the file.
      #expect(errors.count == 1)
      #expect(errors.first?.description.contains(path) == true)
      #expect(errors.first?.description.contains("cannot read: Input/output error") == true)
      #expect(k.calls("read").count == 6)  // 4 answered reads + 2 retried EINTR, none after EIO
      #expect(k.calls("open").count == 1)
      #expect(k.calls("close") == [.close(fd: 40)])
      // InputFile: F_GETFL (a regular file opened O_NONBLOCK blocks again:
      // the mock's flags are clear already); the channel: F_GETFL, F_SETFL O_NONBLOCK.
      #expect(k.calls("fcntl").count == 3)
    }

    @Test func listenPrintsWholeLinesThroughShortWritesAndSpuriousWakeups() throws {
      let k = ScriptedKernel()
      let address = try SocketAddress("127.0.0.1:3334", datagram: false)
      k.then("socket", .value(3))
      k.then("accept", .value(4))
      // poll: the server is readable; then the connection, four times.
      let server = KernelReply.ready([Int16(POLLIN)])
      let client = KernelReply.ready([0, Int16(POLLIN)])
      k.then("poll", server, client)
      // An interrupted recv is retried; part of line 2 arrives with line 1.
      k.then("recv", interrupted, .bytes(Array(#"{"a":1}"#.utf8) + [10] + Array(#"{"b""#.utf8)))
      // Standard output takes 3 bytes, is interrupted, is full (waited for
      // with poll for POLLOUT), then takes the rest.
      k.then("write 1", .value(3), interrupted, wouldBlock)
      k.then("poll", .ready([Int16(POLLOUT)]))
      // A wakeup with nothing to read (EAGAIN) keeps the connection.
      k.then("poll", client, client)
      k.then("recv", wouldBlock, .bytes(Array(":2}".utf8) + [10]))
      var listener = ReportListener(limit: 2, deadline: monotonicMicroseconds() + 10_000_000, idle_us: 60_000_000)
      try k.kernel.run { try listener.lines(on: address) }

      #expect(k.text(1) == #"{"a":1}"# + "\n" + #"{"b":2}"# + "\n")
      #expect(k.calls("poll").contains(.poll(fds: [1], events: [Int16(POLLOUT)], timeout_ms: -1)))
      #expect(!k.text(2).contains("connection 1 closed"))
      #expect(k.text(2).contains("2 lines, 1 connections"))
      #expect(k.calls("listen") == [.listen(fd: 3, backlog: 16)])
      // Both descriptors closed at the end, the connection first.
      #expect(k.calls("close") == [.close(fd: 4), .close(fd: 3)])
    }

    func buffer(_ bytes: [UInt8]) -> ByteBuffer {
      let b = ByteBuffer(capacity: 256)
      bytes.withUnsafeBufferPointer { b.append($0) }
      return b
    }
  }
#endif
