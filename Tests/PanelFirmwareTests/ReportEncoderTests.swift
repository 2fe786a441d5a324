import ForceCore
import Testing

@testable import PanelFirmware

@Suite struct ReportEncoderTests {
  static func text(_ buffer: ByteBuffer) -> String { String(decoding: buffer.bytes, as: UTF8.self) }

  @Test func encodesTheContractLine() {
    var report = FrameReport()
    report.time = Time_us(rawValue: 1_234_567)
    report.frame = 395
    report.append(
      TouchReport(
        touch: TrackedTouch(
          id: 1, phase: .moved, x: Length_um(rawValue: 80_204), y: Length_um(rawValue: 49_695),
          force: Force_mN(newtons: 1.21)), stage: .peek))
    report.append(TouchEvent(kind: .peek, touch: 1))
    let buffer = ByteBuffer(capacity: 1024)
    NDJSONEncoder(interaction: InteractionSettings()).encode(report, into: buffer)
    #expect(
      Self.text(buffer)
        == """
        {"t_us":1234567,"frame":395,"touches":[{"id":1,"phase":"moved","x_mm":80.20,"y_mm":49.70,\
        "force_n":1.210,"force":1.513,"max_force":6.670,"stage":"peek","progress":0.000,"item":null}],\
        "events":[{"type":"peek","touch":1,"item":null}],"force_capability":"available"}

        """)
  }

  @Test func namesEveryPhaseStageAndEvent() {
    let buffer = ByteBuffer(capacity: 8192)
    let encoder = NDJSONEncoder(interaction: InteractionSettings())
    var report = FrameReport()
    for (i, phase) in TouchPhase.allCases.enumerated() {
      report.append(
        TouchReport(
          touch: TrackedTouch(id: UInt32(i + 1), phase: phase, x: .zero, y: .zero, force: .zero),
          stage: Stage.allCases[i % 4]))
    }
    for kind in EventKind.allCases { report.append(TouchEvent(kind: kind, touch: 2)) }
    encoder.encode(report, into: buffer)
    let line = Self.text(buffer)
    for p in ["began", "moved", "stationary", "ended", "cancelled"] { #expect(line.contains("\"phase\":\"\(p)\"")) }
    for s in ["none", "hint", "peek", "pop"] { #expect(line.contains("\"stage\":\"\(s)\"")) }
    for e in ["peek", "pop", "peek_cancelled", "long_press"] { #expect(line.contains("\"type\":\"\(e)\"")) }
  }

  @Test func writesFixedDecimalsAndNegatives() {
    let b = ByteBuffer(capacity: 64)
    b.append(fixed: -1205, decimals: 3)
    b.append(UInt8(ascii: " "))
    b.append(fixed: 7, decimals: 2)
    b.append(UInt8(ascii: " "))
    b.append(integer: Int64.min + 1)
    #expect(Self.text(b) == "-1.205 0.07 -9223372036854775807")
  }

  @Test func aFullBufferDropsInsteadOfOverrunning() {
    let b = ByteBuffer(capacity: 16)
    b.append("0123456789")
    b.append("0123456789")
    #expect(b.count == 10)
    #expect(b.overflowed)
  }
}
