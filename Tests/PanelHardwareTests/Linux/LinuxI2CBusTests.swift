import PanelFirmware
import PanelTestSupport

@testable import PanelHardware

#if ENABLE_MOCKING
  import Glibc
  import Testing

  @testable import PanelFirmware

  /// A kernel with one i2c-dev adapter at descriptor 3: `functionality` from
  /// I2C_FUNCS, `reads` answering transfers that read, in order.
  final class FakeAdapter: @unchecked Sendable {
    /// i2c-bcm2835: I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL.
    static let bcm2835: UInt = 0x0eff_0009
    /// i2c-stub: quick, byte, byte/word data, I2C block; no I2C_FUNC_I2C.
    static let stub: UInt = 0x0c7f_0000

    let kernel: MockKernel
    var reads: [[UInt8]] = []
    /// The calls `with`'s body made (without open and close).
    var trace: [KernelCall] = []

    init(functionality: UInt) {
      kernel = MockKernel()
      kernel.respond = { [unowned self] call in
        switch call {
        case .open: return .value(3)
        case .i2cFuncs: return .functionality(functionality)
        case .i2cRdwr(_, let messages) where messages.contains(where: \.read):
          return .bytes(self.reads.isEmpty ? [] : self.reads.removeFirst())
        case .smbus(_, .readByte), .smbus(_, .readByteData), .smbus(_, .readWordData),
          .smbus(_, .readI2CBlockData):
          return .bytes(self.reads.isEmpty ? [] : self.reads.removeFirst())
        default: return .ok
        }
      }
    }

    /// Opens /dev/i2c-1 on this kernel and runs `body` with it, then closes it.
    func with<R>(_ body: (LinuxI2CBus) throws -> R) throws -> R {
      try kernel.run { () throws -> R in
        let bus = try LinuxI2CBus(path: "/dev/i2c-1")
        defer {
          trace = Array(kernel.trace.dropFirst(2))
          bus.close()
        }
        return try body(bus)
      }
    }
  }

  extension LinuxI2CBus {
    /// writeRead with arrays, for tests.
    func registerRead(_ command: [UInt8], count: Int, at a: UInt8) throws -> [UInt8] {
      var out = [UInt8](repeating: 0, count: count)
      try command.withUnsafeBytes { w in
        try out.withUnsafeMutableBytes { r in try writeRead(w, into: r, address: I2CAddress(a)) }
      }
      return out
    }
    func send(_ b: [UInt8], to a: UInt8) throws {
      try b.withUnsafeBytes { w in try write(w, to: I2CAddress(a)) }
    }
    func receive(_ count: Int, from a: UInt8) throws -> [UInt8] {
      var out = [UInt8](repeating: 0, count: count)
      try out.withUnsafeMutableBytes { r in try read(into: r, from: I2CAddress(a)) }
      return out
    }
  }

  /// The bus error `body` threw, or its value.
  func capture<T>(_ body: () throws -> T) -> Result<T, I2CError> {
    do { return .success(try body()) } catch let e as I2CError { return .failure(e) } catch {
      Issue.record("not an I2CError: \(error)")
      return .failure(.bus(I2CAddress(0), errno: -1))
    }
  }

  /// The Linux I2C bus against a mocked kernel: the exact ioctls and their
  /// arguments, errno mapping, EINTR retry, the SMBus fallback.
  @Suite struct LinuxI2CBusTests {
    @Test func openReadsTheFunctionalityOnce() throws {
      let kernel = MockKernel { call in
        switch call {
        case .open: return .value(7)
        case .i2cFuncs: return .functionality(FakeAdapter.bcm2835)
        default: return .ok
        }
      }
      try kernel.run { () throws in
        let bus = try LinuxI2CBus(path: "/dev/i2c-1")
        #expect(bus.usesCombinedTransfers)
        #expect(bus.functionality.contains([.i2c, .smbusReadI2CBlock]))
        bus.close()
        bus.close()
      }
      #expect(
        kernel.trace == [
          .open(path: "/dev/i2c-1", flags: O_RDWR | O_CLOEXEC), .i2cFuncs(fd: 7), .close(fd: 7),
        ])
    }

    @Test func aRegisterReadIsOneCombinedTransferWithARepeatedStart() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.bcm2835)
      adapter.reads = [[0x80, 0x00, 0x01]]
      let got = try adapter.with { bus in try bus.registerRead([0x12], count: 3, at: 0x2a) }
      #expect(got == [0x80, 0x00, 0x01])
      // One I2C_RDWR: write the register pointer, then read 3 bytes; one STOP.
      #expect(adapter.trace == [.i2cRdwr(fd: 3, messages: [.write(0x2a, [0x12]), .read(0x2a, 3)])])
    }

    @Test func writesAndReadsAreOneMessageEach() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.bcm2835)
      adapter.reads = [[0x04]]
      let got = try adapter.with { bus in
        try bus.send([0x04], to: 0x70)
        try bus.send([0x01, 0x3f, 0x07], to: 0x2a)
        return try bus.receive(1, from: 0x70)
      }
      #expect(got == [0x04])
      #expect(
        adapter.trace == [
          .i2cRdwr(fd: 3, messages: [.write(0x70, [0x04])]),
          .i2cRdwr(fd: 3, messages: [.write(0x2a, [0x01, 0x3f, 0x07])]),
          .i2cRdwr(fd: 3, messages: [.read(0x70, 1)]),
        ])
    }

    @Test(arguments: [
      (Errno.remoteIOError, I2CError.nack(I2CAddress(0x2a))),
      (.noSuchAddressOrDevice, .nack(I2CAddress(0x2a))),
      (.noSuchDevice, .nack(I2CAddress(0x2a))),
      (.timedOut, .timeout(I2CAddress(0x2a))),
      (.notSupported, .unsupported(I2CAddress(0x2a))),
      (.ioError, .bus(I2CAddress(0x2a), errno: EIO)),
      (.resourceTemporarilyUnavailable, .bus(I2CAddress(0x2a), errno: EAGAIN)),
      (.protocolError, .bus(I2CAddress(0x2a), errno: EPROTO)),
    ])
    func errnoIsMappedToATypedBusError(errno: Errno, expected: I2CError) throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.bcm2835)
      adapter.kernel.fail(errno) { if case .i2cRdwr = $0 { return true } else { return false } }
      let result: Result<[UInt8], I2CError> = try adapter.with { bus in
        capture { try bus.registerRead([0x1f], count: 1, at: 0x2a) }
      }
      #expect(result == .failure(expected))
      #expect(adapter.trace.count == 1, "no retry of \(errno)")
    }

    @Test func interruptedCallsAreRetried() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.bcm2835)
      adapter.reads = [[0x0f]]
      adapter.kernel.fail(.interrupted, times: 2) { if case .i2cRdwr = $0 { return true } else { return false } }
      let got = try adapter.with { bus in try bus.registerRead([0x1f], count: 1, at: 0x2a) }
      #expect(got == [0x0f])
      let transfer = KernelCall.i2cRdwr(fd: 3, messages: [.write(0x2a, [0x1f]), .read(0x2a, 1)])
      #expect(adapter.trace == [transfer, transfer, transfer])
    }

    @Test func openIsRetriedOnEINTRAndFailsNamingTheDevice() throws {
      let kernel = MockKernel { call in
        if case .open = call { return .value(3) }
        return .functionality(FakeAdapter.stub)
      }
      kernel.fail(.interrupted) { if case .open = $0 { return true } else { return false } }
      try kernel.run { () throws in
        let bus = try LinuxI2CBus(path: "/dev/i2c-1")
        bus.close()
      }
      #expect(kernel.trace.prefix(2).allSatisfy { if case .open = $0 { return true } else { return false } })

      let missing = MockKernel()
      missing.fail(.noSuchFileOrDirectory)
      let error = missing.run { () -> I2CBusOpenError? in
        do throws(I2CBusOpenError) {
          _ = try LinuxI2CBus(path: "/dev/i2c-9")
          return nil
        } catch { return error }
      }
      #expect(error == .open(path: "/dev/i2c-9", .noSuchFileOrDirectory))
      #expect(error?.description.contains("/dev/i2c-9") == true)
    }

    @Test func aFileThatIsNotAnAdapterIsClosedAndNamed() {
      let kernel = MockKernel { call in
        if case .open = call { return .value(5) }
        return .ok
      }
      kernel.fail(.inappropriateIOCTLForDevice) { if case .i2cFuncs = $0 { return true } else { return false } }
      let error = kernel.run { () -> I2CBusOpenError? in
        do throws(I2CBusOpenError) {
          _ = try LinuxI2CBus(path: "/dev/null")
          return nil
        } catch { return error }
      }
      #expect(error == .notAnAdapter(path: "/dev/null", .inappropriateIOCTLForDevice))
      #expect(kernel.trace.last == .close(fd: 5))
    }

    // MARK: SMBus-only adapters (i2c-stub)

    @Test func smbusAdaptersGetTheTransactionOfTheSameShape() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.stub)
      adapter.reads = [[0x0f], [0x80, 0x00, 0x01], [0x2a], [0x34, 0x12]]
      let got = try adapter.with { bus in
        #expect(!bus.usesCombinedTransfers)
        let rev = try bus.registerRead([0x1f], count: 1, at: 0x2a)
        let adc = try bus.registerRead([0x12], count: 3, at: 0x2a)
        try bus.send([0x00, 0x06], to: 0x2a)
        try bus.send([0x01, 0x27, 0x70, 0x30], to: 0x2a)
        try bus.send([0x04], to: 0x70)
        try bus.send([], to: 0x70)
        let control = try bus.receive(1, from: 0x70)
        return [rev, adc, control]
      }
      #expect(got == [[0x0f], [0x80, 0x00, 0x01], [0x2a]])
      #expect(
        adapter.trace == [
          .i2cSlave(fd: 3, address: 0x2a),
          .smbus(fd: 3, .readByteData(command: 0x1f)),
          .smbus(fd: 3, .readI2CBlockData(command: 0x12, length: 3)),
          .smbus(fd: 3, .writeByteData(command: 0x00, value: 0x06)),
          .smbus(fd: 3, .writeI2CBlockData(command: 0x01, bytes: [0x27, 0x70, 0x30])),
          .i2cSlave(fd: 3, address: 0x70),
          .smbus(fd: 3, .writeByte(0x04)),
          .smbus(fd: 3, .writeQuick(0)),
          .smbus(fd: 3, .readByte),
        ])
    }

    @Test func smbusWordReadsWhenThereIsNoBlockRead() throws {
      // Byte and word data only: a 2-byte register read is a word read, low byte first.
      let adapter = FakeAdapter(functionality: 0x0060_0000 | 0x0018_0000)
      adapter.reads = [[0x34, 0x12]]
      let got = try adapter.with { bus in try bus.registerRead([0x10], count: 2, at: 0x40) }
      #expect(got == [0x34, 0x12])
      #expect(adapter.trace.last == .smbus(fd: 3, .readWordData(command: 0x10)))
    }

    @Test func shapesSMBusCannotCarryAreRefusedWithoutTouchingTheBus() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.stub)
      let results: [I2CError?] = try adapter.with { bus in
        func attempt(_ body: () throws -> Void) -> I2CError? {
          if case .failure(let e) = capture(body) { return e }
          return nil
        }
        return [
          attempt { _ = try bus.receive(3, from: 0x2a) },  // plain multi-byte read
          attempt { _ = try bus.registerRead([0x00, 0x10], count: 4, at: 0x50) },  // 2-byte address
          attempt { _ = try bus.registerRead([0x12], count: 33, at: 0x2a) },  // over 32 bytes
        ]
      }
      #expect(results == [.unsupported(I2CAddress(0x2a)), .unsupported(I2CAddress(0x50)), .unsupported(I2CAddress(0x2a))])
      #expect(adapter.trace.allSatisfy { if case .smbus = $0 { return false } else { return true } })
    }

    @Test func aShortBlockReadIsABusError() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.stub)
      adapter.reads = [[0x80, 0x00]]
      let result: Result<[UInt8], I2CError> = try adapter.with { bus in
        capture { try bus.registerRead([0x12], count: 3, at: 0x2a) }
      }
      #expect(result == .failure(.bus(I2CAddress(0x2a), errno: EIO)))
    }

    @Test func anAbsentStubAddressIsANackAndSMBusCallsRetryEINTR() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.stub)
      adapter.reads = [[0x0f]]
      adapter.kernel.fail(.interrupted) { if case .smbus = $0 { return true } else { return false } }
      adapter.kernel.fail(.noSuchDevice) { $0 == .smbus(fd: 3, .readByte) }
      let (rev, probe) = try adapter.with { bus in
        let rev = try bus.registerRead([0x1f], count: 1, at: 0x2a)
        let probe = capture { try bus.receive(1, from: 0x2b) }
        return (rev, probe)
      }
      #expect(rev == [0x0f])
      #expect(probe == Result<[UInt8], I2CError>.failure(.nack(I2CAddress(0x2b))))
      #expect(adapter.trace.filter { $0 == .smbus(fd: 3, .readByteData(command: 0x1f)) }.count == 2)
    }

    @Test func anSMBusTransferToAClaimedAddressSaysSo() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.stub)
      adapter.kernel.fail(.resourceBusy) { $0 == .i2cSlave(fd: 3, address: 0x50) }
      let result = try adapter.with { bus in capture { try bus.registerRead([0x00], count: 1, at: 0x50) } }
      #expect(result == .failure(.claimed(I2CAddress(0x50))))
      if case .failure(let e) = result {
        #expect(e.description == "address 0x50 is claimed by a kernel driver (ioctl I2C_SLAVE: EBUSY); unbind the driver to use it here")
      }
      // Other I2C_SLAVE failures stay bus errors with their errno.
      let other = FakeAdapter(functionality: FakeAdapter.stub)
      other.kernel.fail(.ioError) { $0 == .i2cSlave(fd: 3, address: 0x50) }
      let io = try other.with { bus in capture { try bus.registerRead([0x00], count: 1, at: 0x50) } }
      #expect(io == .failure(.bus(I2CAddress(0x50), errno: EIO)))
    }

    @Test func theAdapterTimeoutIsSetAtOpenInTensOfMilliseconds() throws {
      let kernel = MockKernel { call in
        switch call {
        case .open: return .value(3)
        case .i2cFuncs: return .functionality(FakeAdapter.bcm2835)
        default: return .ok
        }
      }
      try kernel.run { () throws in
        for ms in [50, 1, 125] { try LinuxI2CBus(path: "/dev/i2c-1", timeout_ms: ms).close() }
        try LinuxI2CBus(path: "/dev/i2c-1").close()
      }
      #expect(
        kernel.trace.compactMap { if case .i2cTimeout(let fd, let t) = $0 { return "\(fd):\(t)" } else { return nil } }
          == ["3:5", "3:1", "3:13"])
      #expect(Array(kernel.trace.prefix(4)) == [.open(path: "/dev/i2c-1", flags: O_RDWR | O_CLOEXEC), .i2cFuncs(fd: 3), .i2cTimeout(fd: 3, tensOfMilliseconds: 5), .close(fd: 3)])

      // A board's bus gets the board's timeout_ms.
      let board = try Repo.board("rpi4-nau7802x4")
      let config = try board.driverConfiguration
      kernel.clearTrace()
      try kernel.run { () throws in try LinuxI2CBus.open(board: board, config: config).close() }
      #expect(kernel.trace.contains(.i2cTimeout(fd: 3, tensOfMilliseconds: UInt((config.timeout_ms + 9) / 10))))

      // Refused: the descriptor is closed and the device named.
      kernel.fail(.invalidArgument) { if case .i2cTimeout = $0 { return true } else { return false } }
      kernel.clearTrace()
      let error = kernel.run { () -> I2CBusOpenError? in
        do throws(I2CBusOpenError) {
          _ = try LinuxI2CBus(path: "/dev/i2c-1", timeout_ms: 50)
          return nil
        } catch { return error }
      }
      #expect(error == .timeout(path: "/dev/i2c-1", .invalidArgument))
      #expect(kernel.trace.last == .close(fd: 3))
    }

    @Test func anAddressClaimedByAKernelDriverIsReported() throws {
      let adapter = FakeAdapter(functionality: FakeAdapter.bcm2835)
      adapter.kernel.fail(.resourceBusy) { $0 == .i2cSlave(fd: 3, address: 0x50) }
      let (claimed, free) = try adapter.with { bus in (bus.claimedByDriver(I2CAddress(0x50)), bus.claimedByDriver(I2CAddress(0x2a))) }
      #expect(claimed)
      #expect(!free)
    }
  }

  /// The real kernel, no mock: what opening a missing or wrong device says.
  @Suite struct LinuxI2CBusRealKernelTests {
    @Test func aBusThatDoesNotExist() {
      do throws(I2CBusOpenError) {
        _ = try LinuxI2CBus(path: "/dev/i2c-250")
        Issue.record("opened /dev/i2c-250")
      } catch {
        #expect(error == .open(path: "/dev/i2c-250", .noSuchFileOrDirectory))
        #expect(error.description == "I2C bus /dev/i2c-250 does not exist (is the bus enabled and i2c-dev loaded?)")
      }
    }

    @Test func aDeviceThatIsNotAnI2CAdapter() {
      do throws(I2CBusOpenError) {
        _ = try LinuxI2CBus(path: "/dev/null")
        Issue.record("opened /dev/null as an adapter")
      } catch {
        #expect(error == .notAnAdapter(path: "/dev/null", .inappropriateIOCTLForDevice))
      }
    }
  }
#endif
