import PanelHardware

/// The board's haptic output as a sink: the click in the frame of its
/// stage change (see `HapticOutput`).
public struct HapticSink<Output: HapticOutput>: FrameSink {
  public var output: Output

  public init(_ output: Output) { self.output = output }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    output.respond(to: &loop.report)
  }

  public mutating func finish() throws(SinkError) {}
}
