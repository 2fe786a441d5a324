import PanelFirmware

// Tests hand reports over by value (often a temporary); the encoders and
// the haptic responder read them `inout`, in place. These make the copy.

extension NDJSONEncoder {
  package func encode(_ report: FrameReport, into out: ByteBuffer) {
    var r = report
    encode(&r, into: out)
  }
}

extension TUIO2Encoder {
  package mutating func encode(_ report: FrameReport, time: OSCTimeTag, into out: ByteBuffer) {
    var r = report
    encode(&r, time: time, into: out)
  }
}

extension TUIO1Encoder {
  package mutating func encode(_ report: FrameReport, into out: ByteBuffer) {
    var r = report
    encode(&r, into: out)
  }
}

extension MultiTouchEncoder {
  package mutating func encode(_ report: FrameReport, into out: InputEventBuffer) {
    var r = report
    encode(&r, into: out)
  }
}

extension HapticFeedback {
  package mutating func respond(to report: FrameReport) {
    var r = report
    respond(to: &r)
  }

  package func effect(for report: FrameReport) -> UInt8? {
    var r = report
    return effect(for: &r)
  }
}
