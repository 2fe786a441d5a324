import ForceCore
import PanelFirmware

/// The panel's state as the dashboard shows it beside the stream: the
/// frame rate, the health counters of the front end and the core, and the
/// settings the host can change. The scan loop copies it into the hub a
/// few times a second (`ServeSink`); `/status.json` reads it.
public struct ServeStatus: Sendable {
  public var frames: UInt64 = 0
  public var time_us: Int64 = 0
  /// Frames per second over the last half second, in hundredths.
  public var rate_centihertz: Int64 = 0
  public var frontEnd = FrontEndHealth()
  public var core = CoreHealth()
  public var sensitivity = Sensitivity.medium
  public var forceTouch = true
  public var capability = ForceCapability(state: .available, reason: .none)
  public var touches = 0
  /// The stream has ended (its last report is written).
  public var ended = false

  public init() {}
}

extension ServeStatus {
  /// `/status.json`: this status, the clients and their counts, and the
  /// server's connections.
  public func json(clients: [ClientCounts], totals: ServeTotals, connections: ConnectionCounts? = nil) -> String {
    var o = JSONWriter.object()
    o.field("frames", frames)
    o.field("t_us", time_us)
    o.field("frame_rate_hz", json: JSONWriter.number(Double(rate_centihertz) / 100, decimals: 2))
    o.field("ended", ended)
    o.field("sensitivity", sensitivity.rawValue)
    o.field("force_touch", forceTouch)
    o.field("force_capability", "\(capability.state.name)")
    o.field("touches", touches)
    var h = JSONWriter.object()
    h.field("frames", frontEnd.frames)
    h.field("invalid", frontEnd.invalidFrames)
    h.field("missed", frontEnd.missedFrames)
    h.field("retries", frontEnd.retries)
    h.field("bus_errors", frontEnd.busErrors)
    h.field("reinits", frontEnd.reinitialisations)
    h.field("spikes", Int(core.spikes))
    h.field("saturated", Int(core.saturatedSamples))
    h.field("reseeds", Int(core.reseeds))
    h.field("absorbed", Int(core.absorbedLoads))
    o.field("health", json: h.done)
    var list = JSONWriter.array()
    for c in clients {
      var e = JSONWriter.object()
      e.field("id", c.id)
      e.field("address", c.address)
      e.field("stream", c.kind.rawValue)
      e.field("control", c.control)
      e.field("sent", c.sent)
      e.field("dropped", c.dropped)
      list.value(e.done)
    }
    o.field("clients", json: list.done)
    var t = JSONWriter.object()
    t.field("clients", totals.clients)
    t.field("connected", totals.connected)
    t.field("most_at_once", totals.mostAtOnce)
    t.field("sent", totals.sent)
    t.field("dropped", totals.dropped)
    o.field("totals", json: t.done)
    if let connections { o.field("connections", json: connections.json) }
    return o.done
  }
}
