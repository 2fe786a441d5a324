/// What one frame of a driver front end costs on the bus, by the timing
/// model (`I2CBusTiming`): the transfers a frame takes when every chip is
/// ready at its first look, and their bit times. It gives the highest frame
/// rate the bus allows; the rate a board can reach is the lower of that and
/// its chips' conversion rate.
///
/// Per cell (one chip per cell):
/// - NAU7802: [mux select, 20 bt] + [PU_CTRL.CR poll, 39 bt, without data-
///   ready lines] + ADCO burst, 57 bt.
/// - ADS122C04: [mux select] + [register 2 poll, 39 bt] + RDATA and the
///   result, 9·(2 + 1 + 3 + DCNT + CRC) + 3 bt.
/// Per frame (frame controller): [STATUS poll, 39 bt] + one read of
/// 8 + 3N bytes, 9·(9 + 3N) + 2 bt.
public struct BusBudget: Sendable, Equatable, CustomStringConvertible {
  public var transfers: Int
  public var bitTimes: Int

  public init(transfers: Int, bitTimes: Int) {
    self.transfers = transfers
    self.bitTimes = bitTimes
  }

  public init(configuration c: DriverConfiguration) {
    let polling = c.dataReady == nil
    let poll = I2CBusTiming.bitTimes(writing: 1, reading: 1)
    var transfers = 0
    var bits = 0
    switch c.chip {
    case .nau7802, .ads122c04:
      let switching = c.mux != nil && Set(c.places.compactMap(\.channel)).count > 1
      for _ in c.places {
        if switching {
          transfers += 1
          bits += I2CBusTiming.bitTimes(writing: 1)
        }
        if polling {
          transfers += 1
          bits += poll
        }
        transfers += 1
        if c.chip == .nau7802 {
          bits += I2CBusTiming.bitTimes(writing: 1, reading: 3)
        } else {
          let n = 3 + (c.ads122c04.counter ? 1 : 0) + (c.ads122c04.crc ? 2 : 0)
          bits += I2CBusTiming.bitTimes(writing: 1, reading: n)
        }
      }
    case .frame:
      if polling {
        transfers += 1
        bits += poll
      }
      transfers += 1
      bits += I2CBusTiming.bitTimes(reading: FrameProtocol.frameSize(cells: c.cellCount))
    }
    self.init(transfers: transfers, bitTimes: bits)
  }

  /// Time of one frame's transfers, ns: host overhead and tBUF per
  /// transfer plus the bits on the wire.
  public func frame_ns(_ t: I2CBusTiming) -> Int64 {
    Int64(transfers) * (t.hostOverhead_ns + t.tBUF_ns) + t.wire_ns(bitTimes: bitTimes)
  }

  /// The highest frame rate the bus allows, frames per second.
  public func maxFrameRate(_ t: I2CBusTiming) -> Double { 1e9 / Double(frame_ns(t)) }

  /// The chips' nominal conversion (frame) rate.
  public static func conversionRate(_ c: DriverConfiguration) -> Double {
    switch c.chip {
    case .nau7802: Double(c.nau7802.rate.samplesPerSecond)
    case .ads122c04: Double(c.ads122c04.samplesPerSecond)
    case .frame: Double(c.frame.rate_hz)
    }
  }

  /// The frame rate the model allows: the lower of the bus's and the chips'.
  public func modelFrameRate(_ c: DriverConfiguration, _ t: I2CBusTiming) -> Double {
    min(maxFrameRate(t), BusBudget.conversionRate(c))
  }

  public var description: String {
    "\(transfers) transfer\(transfers == 1 ? "" : "s"), \(bitTimes) bit times per frame"
  }
}
