import PanelHardware

/// A register-accurate simulated DRV2605L haptic driver: the register file
/// 0x00...0x22 with the datasheet's reset values (its own table,
/// `powerOnValues`, not the driver's), auto-increment on writes
/// and reads, read-only STATUS, VBAT and LRA_PERIOD, DEV_RESET (every
/// register back to its reset value, the bit clearing itself), STANDBY, and
/// the waveform sequencer in internal-trigger mode: a 0 -> 1 write of GO
/// out of standby plays WAV_FRM_SEQ1...8 up to the first 0 (WAIT entries
/// pause n x 10 ms), GO reads 1 until the sequence has played, and writing
/// GO = 0 cancels it. Effects need a library (LIBRARY_SEL != 0).
///
/// What the actuator did is in `played`: each effect with its start time.
/// Effect lengths are approximations (the ROM library's waveforms are not
/// in the datasheet): clicks and ticks 30 ms, buzzes and transitions
/// 300 ms, the alerts 750 and 1000 ms.
///
/// Faults: `isPresent = false` (NACK), `deviceID` (another part),
/// `powerCycle()` (registers back to reset: standby).
public final class SimulatedDRV2605L: SimulatedI2CDevice {
  public let address: I2CAddress = DRV2605L.address
  public var isPresent = true
  /// The register file.
  public private(set) var registers = SimulatedDRV2605L.powerOnValues
  /// Effects played: the effect id, when it started, whether it was cut
  /// short by a cancel.
  public private(set) var played: [(effect: UInt8, at_ns: Int64)] = []
  /// Sequences cancelled by GO = 0 while playing.
  public private(set) var cancels = 0
  var pointer = 0
  var expectPointer = false
  var playingUntil_ns: Int64 = .min

  public init(deviceID: UInt8 = 7) {
    self.deviceID = deviceID
  }

  /// STATUS.DEVICE_ID this part reports.
  public var deviceID: UInt8 {
    didSet { registers[0] = (registers[0] & 0x1F) | (deviceID << 5) }
  }

  /// Power lost and back: every register at its reset value.
  public func powerCycle() {
    registers = SimulatedDRV2605L.powerOnValues
    registers[0] = (registers[0] & 0x1F) | (deviceID << 5)
    playingUntil_ns = .min
  }

  /// Every register after power-on or DEV_RESET, 0x00...0x22 (TI DRV2605L
  /// datasheet, register map and field descriptions), written out field by
  /// field here so that the simulation does not inherit the driver's table.
  public static let powerOnValues: [UInt8] = {
    var r = [UInt8](repeating: 0, count: 0x23)
    r[0x00] = 7 << 5  // STATUS: DEVICE_ID 7 (DRV2605L); DIAG_RESULT, OVER_TEMP, OC_DETECT 0
    r[0x01] = 1 << 6  // MODE: STANDBY 1, MODE 0 (internal trigger)
    r[0x03] = 1  // LIBRARY_SEL: HI_Z 0, library 1 (TS2200 A)
    r[0x04] = 1  // WAV_FRM_SEQ1: effect 1 (strong click); SEQ2...8 0
    r[0x11] = 1 << 2 | 1  // ATH_CTRL: ATH_PEAK_TIME 1 (20 ms), ATH_FILTER 1 (125 Hz)
    r[0x12] = 0x19  // ATH_MIN_INPUT
    r[0x13] = 0xFF  // ATH_MAX_INPUT
    r[0x14] = 0x19  // ATH_MIN_DRIVE
    r[0x15] = 0xFF  // ATH_MAX_DRIVE
    r[0x16] = 0x3E  // RATED_VOLTAGE
    r[0x17] = 0x8C  // OD_CLAMP
    r[0x18] = 0x0C  // A_CAL_COMP
    r[0x19] = 0x6C  // A_CAL_BEMF
    r[0x1A] = 3 << 4 | 1 << 2 | 2  // FEEDBACK_CONTROL: ERM, FB_BRAKE_FACTOR 3, LOOP_GAIN 1, BEMF_GAIN 2
    r[0x1B] = 1 << 7 | 0x13  // CONTROL1: STARTUP_BOOST 1, DRIVE_TIME 0x13
    r[0x1C] = 1 << 7 | 1 << 6 | 3 << 4 | 1 << 2 | 1  // CONTROL2: BIDIR_INPUT, BRAKE_STABILIZER, SAMPLE_TIME 3, BLANKING 1, IDISS 1
    r[0x1D] = 2 << 6 | 1 << 5  // CONTROL3: NG_THRESH 2, ERM_OPEN_LOOP 1
    r[0x1E] = 1 << 5  // CONTROL4: AUTO_CAL_TIME 2 (bits 5:4 = 10)
    r[0x1F] = 1 << 7  // CONTROL5: AUTO_OL_CNT 2 (bits 7:6 = 10)
    r[0x20] = 0x33  // OL_LRA_PERIOD
    return r
  }()

  /// Forgets what was played (tests look at one click at a time).
  public func resetPlayedForTests() { played.removeAll() }

  /// Whether the sequencer is playing at `ns`.
  public func isPlaying(at ns: Int64) -> Bool {
    settle(at: ns)
    return registers[Int(DRV2605L.Go.address)] & 1 != 0
  }

  func settle(at ns: Int64) {
    if registers[Int(DRV2605L.Go.address)] & 1 != 0 && ns >= playingUntil_ns {
      registers[Int(DRV2605L.Go.address)] &= ~1
    }
  }

  /// Approximate length of a ROM effect.
  static func length_ns(_ effect: UInt8) -> Int64 {
    switch effect {
    case 15: return 750_000_000
    case 16: return 1_000_000_000
    case 14, 47...57, 58...117, 118...123: return 300_000_000
    default: return 30_000_000
    }
  }

  // MARK: SimulatedI2CDevice

  public func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool {
    guard isPresent else { return false }
    settle(at: ns)
    expectPointer = !reading
    return true
  }

  public func write(_ byte: UInt8, at ns: Int64) -> Bool {
    guard isPresent else { return false }
    if expectPointer {
      pointer = Int(byte)
      expectPointer = false
      return true
    }
    store(byte, at: pointer, ns: ns)
    pointer += 1
    return true
  }

  public func read(at ns: Int64) -> UInt8 {
    settle(at: ns)
    let value = pointer < registers.count ? registers[pointer] : 0
    pointer += 1
    return value
  }

  public func stop(at ns: Int64) {}

  /// A byte written to register `r`.
  func store(_ value: UInt8, at r: Int, ns: Int64) {
    guard r < registers.count else { return }
    switch r {
    case 0x00, 0x21, 0x22:
      return  // read only
    case Int(DRV2605L.Mode.address):
      if value & 0x80 != 0 {
        powerCycle()  // DEV_RESET: back to reset values, the bit clear
        return
      }
      registers[r] = value
    case Int(DRV2605L.Go.address):
      let wasPlaying = registers[r] & 1 != 0
      if value & 1 == 0 {
        if wasPlaying { cancels += 1 }
        registers[r] = 0
        playingUntil_ns = .min
      } else if !wasPlaying {
        fire(at: ns)
      }
    default:
      registers[r] = value
    }
  }

  /// GO 0 -> 1: plays the sequence if the chip is out of standby in
  /// internal-trigger mode with a library selected.
  func fire(at ns: Int64) {
    let mode = DRV2605L.Mode(rawValue: registers[Int(DRV2605L.Mode.address)])
    let library = DRV2605L.LibrarySelection(rawValue: registers[Int(DRV2605L.LibrarySelection.address)])
    guard !mode.standby, mode.mode == .internalTrigger, library.library != 0 else { return }
    var t = ns
    for slot in 0..<8 {
      let entry = DRV2605L.WaveformSequence(rawValue: registers[Int(DRV2605L.WaveformSequence.address) + slot])
      if entry.rawValue == 0 { break }
      if entry.isWait {
        t += Int64(entry.effect) * 10_000_000
      } else {
        played.append((entry.effect, t))
        t += SimulatedDRV2605L.length_ns(entry.effect)
      }
    }
    guard t > ns else { return }
    registers[Int(DRV2605L.Go.address)] = 1
    playingUntil_ns = t
  }
}
