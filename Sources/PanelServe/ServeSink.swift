import ForceCore
import PanelFirmware

/// The scan loop's end of `panelctl serve`: each frame's report, encoded
/// once as the NDJSON line `stream` writes (and, while a client reads the
/// image stream, extended with what `stream --image` adds), goes into the hub's ring
/// for the WebSocket clients; between frames, the control lines the
/// clients sent are applied (`ServeControl`), like `--control`'s. Nothing
/// here waits for a client, and nothing allocates per frame: the line
/// buffer is sized at setup and the ring copies in place.
public struct ServeSink: FrameSink {
  public let hub: ServeHub
  let encoder: NDJSONEncoder
  let line: ByteBuffer
  var control: ServeControl
  /// Frames between status updates (about ten a second).
  let statusEvery: UInt64
  var rateMark: (time_us: Int64, frames: UInt64) = (0, 0)
  var rate_centihertz: Int64 = 0
  /// Lines too long for the line buffer (never expected), dropped.
  public private(set) var oversized: UInt64 = 0

  public init(hub: ServeHub, board: Board) {
    self.hub = hub
    encoder = NDJSONEncoder(interaction: board.interaction)
    line = ByteBuffer(capacity: NDJSONEncoder.maxLineBytes + NDJSONEncoder.imageFieldsBytes)
    control = ServeControl(hub: hub, board: board)
    statusEvery = UInt64(max(1, board.rate_hz / 10))
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    let (encoder, line) = (self.encoder, self.line)
    let loud = loop.withReport { report in
      encoder.encode(&report, into: line)
      return !report.isEmpty
    }
    if line.overflowed {
      oversized += 1
    } else {
      // The message is the line without its newline.
      hub.publish(UnsafeBufferPointer(rebasing: line.bytes.dropLast()), loud: loud)
      if hub.wantsImages {
        encoder.appendImageFields(of: loop, to: line)
        if line.overflowed { oversized += 1 } else { hub.publishImage(UnsafeBufferPointer(rebasing: line.bytes.dropLast())) }
      }
    }
    line.removeAll()
    control.apply(time: loop.reportTime, to: &loop.interaction)
    if loop.frames % statusEvery == 0 || loop.ended { report(loop) }
  }

  /// Copies the frame rate, health and settings into the hub.
  mutating func report<Source: FrontEnd>(_ loop: ScanLoop<Source>) {
    let now = monotonicMicroseconds()
    if rateMark.time_us == 0 { rateMark = (now, loop.frames) }
    if now - rateMark.time_us >= 500_000 {
      rate_centihertz = Int64(loop.frames - rateMark.frames) * 100_000_000 / (now - rateMark.time_us)
      rateMark = (now, loop.frames)
    }
    var s = ServeStatus()
    s.frames = loop.frames
    s.time_us = loop.reportTime.rawValue
    s.rate_centihertz = rate_centihertz
    s.frontEnd = loop.source.health
    s.core = loop.pipeline.health
    s.sensitivity = loop.interaction.settings.sensitivity
    s.forceTouch = loop.interaction.settings.forceTouch
    s.capability = loop.interaction.capability
    s.touches = loop.withReport { $0.touchCount }
    s.ended = loop.ended
    hub.update(s)
  }

  /// Ends the stream for the clients: each gets what is left in the ring,
  /// then its connection closes (`PanelServer.finish` waits for that).
  public mutating func finish() throws(SinkError) {
    var s = hub.status
    s.ended = true
    hub.update(s)
    hub.end()
  }
}
