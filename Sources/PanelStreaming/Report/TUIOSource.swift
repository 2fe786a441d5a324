import ForceCore
import PanelFormats
import PanelTouch

/// What a TUIO stream says about its sender and how it scales the panel:
/// the source string (board name and panel serial), the sensor dimension,
/// and the factors from report units to TUIO's normalized ones. Built at
/// setup; encoders only read it.
public struct TUIOSource: Sendable {
  /// `board/serial` with the characters TUIO reserves (`:` `@`) and blanks
  /// replaced by `_`.
  public let name: String
  /// TUIO 2.0 `source`: `name:instance@address`.
  let source2: [UInt8]
  /// TUIO 1.1 `source`: `name@address`.
  let source1: [UInt8]
  /// TUIO 2.0 `dim`: width << 16 | height, in tenths of a millimetre.
  public let dimension: UInt32
  /// x_pos = x_um * xScale; y_pos = y_um * yScale (0...1 across the panel).
  let xScale: Float
  let yScale: Float
  /// press = force (mN Q10) * pressScale: the touch's force over the
  /// panel's maximumPossibleForce, 0...1 (UITouch.force / maximumPossibleForce).
  let pressScale: Float

  /// - Parameter address: the sender's address as TUIO writes it (an IPv4
  ///   address in hex, `0x7F000001`, or a host name).
  public init(board: Board, serial: String, address: String) {
    name = TUIOSource.clean(board.name) + "/" + TUIOSource.clean(serial.isEmpty ? "unknown" : serial)
    source2 = Array((name + ":0@" + address).utf8)
    source1 = Array((name + "@" + address).utf8)
    let w = UInt32(max(0, min(65535, Saturating.int64(rounding: board.width_mm * 10))))
    let h = UInt32(max(0, min(65535, Saturating.int64(rounding: board.height_mm * 10))))
    dimension = w << 16 | h
    xScale = Float(1 / max(board.width_mm * 1000, 1))
    yScale = Float(1 / max(board.height_mm * 1000, 1))
    let maxForce_n = board.interaction.maxForce * board.interaction.averageTouch_n
    pressScale = Float(1 / max(maxForce_n * 1000 * 1024, 1))
  }

  static func clean(_ s: String) -> String {
    String(s.map { $0 == ":" || $0 == "@" || $0 == " " || $0 == "\t" ? "_" : $0 })
  }

  /// The TUIO frame id of a report's frame: frame + 1, kept within 1 ...
  /// Int32.max (TUIO 2.0 clients reserve 0; TUIO 1.1 reserves -1).
  @inline(__always)
  public static func frameID(_ frame: UInt64) -> Int32 {
    Int32(truncatingIfNeeded: frame % 0x7FFF_FFFF + 1)
  }

  @inline(__always)
  func x(_ t: TrackedTouch) -> Float { Float(t.x.rawValue) * xScale }
  @inline(__always)
  func y(_ t: TrackedTouch) -> Float { Float(t.y.rawValue) * yScale }
  @inline(__always)
  func press(_ t: TrackedTouch) -> Float { max(0, min(1, Float(t.force.rawValue) * pressScale)) }
}

/// Velocity and acceleration of each touch from frame to frame, for TUIO's
/// motion attributes: positions in normalized units, pressure in `press`
/// units, per second. Fixed capacity; allocation-free.
struct TouchMotion {
  struct Entry {
    var id: UInt32 = 0
    var t_us: Int64 = 0
    var x: Float = 0
    var y: Float = 0
    var p: Float = 0
    var vx: Float = 0
    var vy: Float = 0
    var vp: Float = 0
    var seen = false
  }

  /// What `update` computed for one touch.
  struct Motion {
    var vx: Float = 0
    var vy: Float = 0
    var vp: Float = 0
    /// Change of speed (normalized units per second squared).
    var motionAccel: Float = 0
    /// Change of pressure speed (press units per second squared).
    var pressAccel: Float = 0
  }

  var entries: TouchArray<Entry> = TouchArray(repeating: Entry())
  var count = 0

  /// Records where touch `id` is at `t_us` and returns its motion since the
  /// last frame (zero for a touch not seen before).
  mutating func update(id: UInt32, t_us: Int64, x: Float, y: Float, p: Float) -> Motion {
    var motion = Motion()
    var index = -1
    for i in 0..<count where entries[i].id == id {
      index = i
      break
    }
    if index >= 0 {
      let e = entries[index]
      let dt = Float(Saturating.subtract(t_us, e.t_us)) * 1e-6
      if dt > 0 {
        motion.vx = (x - e.x) / dt
        motion.vy = (y - e.y) / dt
        motion.vp = (p - e.p) / dt
        let speed = (motion.vx * motion.vx + motion.vy * motion.vy).squareRoot()
        let lastSpeed = (e.vx * e.vx + e.vy * e.vy).squareRoot()
        motion.motionAccel = (speed - lastSpeed) / dt
        motion.pressAccel = (motion.vp - e.vp) / dt
      }
    } else {
      guard count < Capacity.contacts else { return motion }
      index = count
      count += 1
    }
    entries[index] = Entry(
      id: id, t_us: t_us, x: x, y: y, p: p, vx: motion.vx, vy: motion.vy, vp: motion.vp, seen: true)
    return motion
  }

  /// Forgets the touches not updated since the last call.
  mutating func endFrame() {
    var kept = 0
    for i in 0..<count where entries[i].seen {
      entries[kept] = entries[i]
      entries[kept].seen = false
      kept += 1
    }
    count = kept
  }
}
