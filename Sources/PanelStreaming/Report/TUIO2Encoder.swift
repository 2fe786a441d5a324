import ForceCore
import PanelTouch

/// Encodes frame reports as TUIO 2.0 bundles (OSC 1.0, one bundle per
/// frame, one UDP datagram each), allocation-free:
///
/// ```
/// #bundle, immediate
/// /tuio2/frm   f_id time dim source                       ,itis
/// /tuio2/ptr   s_id tu_id c_id x y angle shear radius press
///              x_vel y_vel p_vel m_acc p_acc              ,iiifffffffffff
/// /forcepanel/stage  s_id stage force_n                   ,isf   (extension)
/// /forcepanel/event  type s_id                            ,si    (extension)
/// /tuio2/alv   s_id...                                    ,i...
/// ```
///
/// One `ptr` and one `stage` per active touch (began, moved, stationary),
/// one `event` per interaction event; touches that ended this frame are
/// left out of `alv`. `f_id` is the report's `frame` + 1, `time` the
/// frame's time, `s_id` the touch id, `press` force / maximumPossibleForce.
/// docs/formats.md has the details.
public struct TUIO2Encoder {
  public let source: TUIOSource
  var motion = TouchMotion()

  public init(source: TUIOSource) { self.source = source }

  /// The largest bundle: 16 touches, 32 events.
  public static let maxBundleBytes = 4096

  /// Appends one bundle for `report`, stamped with `time` (the frame's
  /// time). `inout` only so that the report is read in place.
  public mutating func encode(_ report: inout FrameReport, time: OSCTimeTag, into out: ByteBuffer) {
    let osc = OSCWriter(out)
    osc.beginBundle()
    var slot = osc.begin("/tuio2/frm", ",itis")
    osc.int32(TUIOSource.frameID(report.frame))
    osc.timeTag(time)
    osc.int32(Int32(bitPattern: source.dimension))
    source.source2.withUnsafeBufferPointer { osc.string($0) }
    osc.end(slot)

    var alive = 0
    for i in 0..<report.touchCount {
      let r = report[touch: i]
      let t = r.touch
      guard !t.phase.isFinal else { continue }
      alive += 1
      let x = source.x(t)
      let y = source.y(t)
      let p = source.press(t)
      let m = motion.update(id: t.id, t_us: report.time.rawValue, x: x, y: y, p: p)
      slot = osc.begin("/tuio2/ptr", ",iiifffffffffff")
      osc.int32(Int32(bitPattern: t.id))
      osc.int32(0)  // tu_id: type and user unknown
      osc.int32(0)  // c_id
      osc.float32(x)
      osc.float32(y)
      osc.float32(0)  // angle
      osc.float32(0)  // shear
      osc.float32(0)  // radius: contact size not measured
      osc.float32(p)
      osc.float32(m.vx)
      osc.float32(m.vy)
      osc.float32(m.vp)
      osc.float32(m.motionAccel)
      osc.float32(m.pressAccel)
      osc.end(slot)
    }
    motion.endFrame()
    ForcePanelOSC.stagesAndEvents(&report, osc)

    slot = osc.begin("/tuio2/alv", tags: ",", repeating: UInt8(ascii: "i"), count: alive)
    for i in 0..<report.touchCount {
      let t = report[touch: i].touch
      if !t.phase.isFinal { osc.int32(Int32(bitPattern: t.id)) }
    }
    osc.end(slot)
  }
}

/// The project's OSC extension messages, sent inside TUIO bundles (TUIO 2.0
/// and 1.1) before the frame's closing message; TUIO clients ignore
/// addresses they do not know.
enum ForcePanelOSC {
  /// `/forcepanel/stage s_id stage force_n` (`,isf`) per active touch, and
  /// `/forcepanel/event type s_id` (`,si`) per event of the frame.
  static func stagesAndEvents(_ report: inout FrameReport, _ osc: OSCWriter) {
    for i in 0..<report.touchCount {
      let r = report[touch: i]
      guard !r.touch.phase.isFinal else { continue }
      let slot = osc.begin("/forcepanel/stage", ",isf")
      osc.int32(Int32(bitPattern: r.touch.id))
      osc.string(r.stage.name)
      osc.float32(Float(r.touch.force.rawValue) * (1.0 / 1_024_000))
      osc.end(slot)
    }
    for i in 0..<report.eventCount {
      let e = report[event: i]
      let slot = osc.begin("/forcepanel/event", ",si")
      osc.string(e.kind.name)
      osc.int32(Int32(bitPattern: e.touch))
      osc.end(slot)
    }
  }
}
