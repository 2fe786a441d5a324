import PanelFiles

/// How long I2C transfers take on the wire and through the host, so that
/// simulated conversion timing and frame rates mean something.
///
/// Arithmetic (UM10204; adc-calibration.md section 5): a byte is 8 bits and
/// an ACK, 9 SCL periods; START, repeated START and STOP count one bit time
/// each; a STOP is followed by the bus-free time tBUF before the next START.
/// Each transfer also costs the host a fixed overhead (one `ioctl(I2C_RDWR)`
/// from user space, about 0.2 ms on a Pi-class board).
///
/// | transfer                     | bit times        |
/// |------------------------------|------------------|
/// | write `n` bytes              | 9·(1+n) + 2      |
/// | read `n` bytes               | 9·(1+n) + 2      |
/// | write `w`, Sr, read `r`      | 9·(2+w+r) + 3    |
/// | address not acknowledged     | 9 + 2            |
public struct I2CBusTiming: Sendable, Equatable, CustomStringConvertible {
  /// SCL frequency, hertz.
  public var scl_hz: Int
  /// Bus-free time between a STOP and the next START, nanoseconds.
  public var tBUF_ns: Int64
  /// Host cost of one transfer (system call, driver, interrupt), nanoseconds.
  public var hostOverhead_ns: Int64

  /// The speeds a board file may name, kHz: standard, fast and fast-mode plus.
  public static let speeds_khz = [100, 400, 1000]

  /// Timing at `khz` with tBUF of its speed band (4.7, 1.3, 0.5 µs).
  public init(khz: Int, hostOverhead_us: Double = 200) {
    scl_hz = max(khz, 1) * 1000
    tBUF_ns = khz <= 100 ? 4_700 : khz <= 400 ? 1_300 : 500
    hostOverhead_ns = Int64((hostOverhead_us * 1000).rounded())
  }

  /// One SCL period, nanoseconds (fractional at odd rates).
  public var bitTime_ns: Double { 1e9 / Double(scl_hz) }

  /// START, address+W, `count` bytes, STOP.
  public static func bitTimes(writing count: Int) -> Int { 9 * (1 + count) + 2 }
  /// START, address+R, `count` bytes, STOP.
  public static func bitTimes(reading count: Int) -> Int { 9 * (1 + count) + 2 }
  /// START, address+W, `written` bytes, Sr, address+R, `read` bytes, STOP.
  public static func bitTimes(writing written: Int, reading read: Int) -> Int {
    9 * (2 + written + read) + 3
  }
  /// START, an address nobody acknowledges, STOP.
  public static let bitTimesOfNack = 9 + 2

  /// Wire time of `bitTimes` bit times, nanoseconds, without tBUF or overhead.
  public func wire_ns(bitTimes: Int) -> Int64 {
    Int64((Double(bitTimes) * bitTime_ns).rounded())
  }

  /// Everything one transfer of `bitTimes` costs: host overhead, the bits
  /// on the wire and the bus-free time after its STOP.
  public func transfer_ns(bitTimes: Int) -> Int64 {
    hostOverhead_ns + wire_ns(bitTimes: bitTimes) + tBUF_ns
  }

  public var description: String {
    let khz = scl_hz / 1000
    let overhead = Double(hostOverhead_ns) / 1000
    return "\(khz) kHz, tBUF \(Double(tBUF_ns) / 1000) µs, \(overhead) µs host overhead per transfer"
  }
}
