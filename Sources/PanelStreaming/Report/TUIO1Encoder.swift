import ForceCore
import PanelTouch

/// Encodes frame reports as TUIO 1.1 cursor bundles (`/tuio/2Dcur`) for
/// clients that know only TUIO 1.x, allocation-free:
///
/// ```
/// #bundle, immediate
/// /tuio/2Dcur source name@address        ,ss
/// /tuio/2Dcur alive s_id...              ,si...
/// /tuio/2Dcur set s_id x y X Y m         ,sifffff   (per active touch)
/// /forcepanel/stage, /forcepanel/event              (extension, as TUIO 2.0)
/// /tuio/2Dcur fseq f_id                  ,si
/// ```
///
/// The 2Dcur profile has no pressure: force reaches TUIO 1.1 clients only
/// through the extension messages. X and Y are velocities (normalized units
/// per second), m the motion acceleration.
public struct TUIO1Encoder {
  public let source: TUIOSource
  var motion = TouchMotion()

  public init(source: TUIOSource) { self.source = source }

  public static let maxBundleBytes = 4096

  /// Appends one bundle for `report` (`inout` only so that it is read in
  /// place).
  public mutating func encode(_ report: inout FrameReport, into out: ByteBuffer) {
    let osc = OSCWriter(out)
    osc.beginBundle()
    var slot = osc.begin("/tuio/2Dcur", ",ss")
    osc.string("source")
    source.source1.withUnsafeBufferPointer { osc.string($0) }
    osc.end(slot)

    var alive = 0
    for i in 0..<report.touchCount where !report[touch: i].touch.phase.isFinal { alive += 1 }
    slot = osc.begin("/tuio/2Dcur", tags: ",s", repeating: UInt8(ascii: "i"), count: alive)
    osc.string("alive")
    for i in 0..<report.touchCount {
      let t = report[touch: i].touch
      if !t.phase.isFinal { osc.int32(Int32(bitPattern: t.id)) }
    }
    osc.end(slot)

    for i in 0..<report.touchCount {
      let t = report[touch: i].touch
      guard !t.phase.isFinal else { continue }
      let x = source.x(t)
      let y = source.y(t)
      let m = motion.update(id: t.id, t_us: report.time.rawValue, x: x, y: y, p: 0)
      slot = osc.begin("/tuio/2Dcur", ",sifffff")
      osc.string("set")
      osc.int32(Int32(bitPattern: t.id))
      osc.float32(x)
      osc.float32(y)
      osc.float32(m.vx)
      osc.float32(m.vy)
      osc.float32(m.motionAccel)
      osc.end(slot)
    }
    motion.endFrame()
    ForcePanelOSC.stagesAndEvents(&report, osc)

    slot = osc.begin("/tuio/2Dcur", ",si")
    osc.string("fseq")
    osc.int32(TUIOSource.frameID(report.frame))
    osc.end(slot)
  }
}
