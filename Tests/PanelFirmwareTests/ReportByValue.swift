@testable import PanelFirmware

// Tests hand reports over by value (often a temporary); the encoders and
// the haptic responder read them `inout`, in place. These make the copy.

extension NDJSONEncoder {
  func encode(_ report: FrameReport, into out: ByteBuffer) {
    var r = report
    encode(&r, into: out)
  }
}

extension TUIO2Encoder {
  mutating func encode(_ report: FrameReport, time: OSCTimeTag, into out: ByteBuffer) {
    var r = report
    encode(&r, time: time, into: out)
  }
}

extension TUIO1Encoder {
  mutating func encode(_ report: FrameReport, into out: ByteBuffer) {
    var r = report
    encode(&r, into: out)
  }
}

extension MultiTouchEncoder {
  mutating func encode(_ report: FrameReport, into out: InputEventBuffer) {
    var r = report
    encode(&r, into: out)
  }
}

extension HapticFeedback {
  mutating func respond(to report: FrameReport) {
    var r = report
    respond(to: &r)
  }

  func effect(for report: FrameReport) -> UInt8? {
    var r = report
    return effect(for: &r)
  }
}
