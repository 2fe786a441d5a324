/// What one address did when probed.
public enum ProbeResult: Equatable, Sendable {
  /// Nobody acknowledged.
  case absent
  /// A chip answered; what it looks like, when the scan could tell.
  case present(ChipIdentity?)
  /// A kernel driver owns the address (i2cdetect's `UU`); not probed.
  case claimed
  /// The transfer failed otherwise (timeout, bus error): the bus may be stuck.
  case failed(I2CError)
}

/// A TCA9548A channel to scan behind.
public struct MuxChannel: Equatable, Sendable, CustomStringConvertible {
  public var mux: I2CAddress
  public var channel: Int
  public init(mux: I2CAddress, channel: Int) {
    self.mux = mux
    self.channel = channel
  }
  /// "mux 0x70 channel 2".
  public var description: String { "mux \(mux) channel \(channel)" }
}

/// Why a scan could not run.
public enum BusScanError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The switch to scan behind did not take the channel.
  case mux(MuxChannel, I2CError)
  /// The switch answered but its control register did not read back.
  case muxDidNotSwitch(MuxChannel, read: UInt8)

  public var description: String {
    switch self {
    case .mux(let m, .nack): return "no answer from the TCA9548A at \(m.mux) (selecting channel \(m.channel))"
    case .mux(let m, let e): return "selecting \(m): \(e)"
    case .muxDidNotSwitch(let m, let v):
      return "the switch at \(m.mux) reads control \(ChipIdentifier.hex(v)) after selecting channel \(m.channel)"
    }
  }
}

/// The result of scanning one bus segment.
public struct BusScan: Equatable, Sendable {
  /// The addresses probed, in order.
  public var range: ClosedRange<UInt8>
  /// The channel scanned behind, if any.
  public var behind: MuxChannel?
  /// One result per address in `range`.
  public var results: [ProbeResult]

  public func result(at address: UInt8) -> ProbeResult? {
    range.contains(address) ? results[Int(address - range.lowerBound)] : nil
  }

  /// The addresses that answered, with what they look like.
  public var found: [(address: I2CAddress, identity: ChipIdentity?)] {
    zip(range, results).compactMap { a, r in
      if case .present(let id) = r { return (I2CAddress(a), id) }
      return nil
    }
  }
}

/// i2cdetect for any `I2CBus`: probes each address with a one-byte read
/// (a quick write where the adapter cannot read a single byte), then tells
/// the project's chips apart by their registers (`ChipIdentifier`).
/// Generic, so it scans the Linux i2c-dev bus and the simulated bus alike.
public enum BusScanner {
  /// i2cdetect's default range: 0x08...0x77 (the others are reserved).
  public static let defaultRange: ClosedRange<UInt8> = 0x08...0x77

  /// Probes every address in `range`, behind `mux` if given (the switch's
  /// selection is restored afterwards). `claimed` tells addresses a kernel
  /// driver owns, which are not touched.
  public static func scan<Bus: I2CBus>(
    _ bus: inout Bus, range: ClosedRange<UInt8> = defaultRange, behind mux: MuxChannel? = nil,
    claimed: (I2CAddress) -> Bool = { _ in false }
  ) throws(BusScanError) -> BusScan {
    var previous: UInt8?
    if let mux {
      let want = UInt8(1) << UInt8(mux.channel & 7)
      let device = TCA9548A(address: mux.mux)
      let now: UInt8
      do throws(I2CError) {
        previous = try device.selection(on: &bus)
        try device.select(mask: want, on: &bus)
        now = try device.selection(on: &bus)
      } catch {
        throw .mux(mux, error)
      }
      if now != want { throw .muxDidNotSwitch(mux, read: now) }
    }
    var results: [ProbeResult] = []
    results.reserveCapacity(range.count)
    for a in range {
      let address = I2CAddress(a)
      results.append(claimed(address) ? .claimed : probe(address, on: &bus))
    }
    if let mux, let previous {
      try? TCA9548A(address: mux.mux).select(mask: previous, on: &bus)
    }
    return BusScan(range: range, behind: mux, results: results)
  }

  /// Whether `address` answers, and what it looks like.
  public static func probe<Bus: I2CBus>(_ address: I2CAddress, on bus: inout Bus) -> ProbeResult {
    do throws(I2CError) {
      do throws(I2CError) {
        _ = try ScanIO.readByte(at: address, on: &bus)
      } catch .unsupported {
        try ScanIO.quickWrite(at: address, on: &bus)
      }
      return .present(ChipIdentifier.identify(address, on: &bus))
    } catch .nack {
      return .absent
    } catch {
      return .failed(error)
    }
  }
}
