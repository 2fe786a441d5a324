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
    o.add("frames", frames)
    o.add("t_us", time_us)
    o.raw("frame_rate_hz", JSONWriter.number(Double(rate_centihertz) / 100, decimals: 2))
    o.add("ended", ended)
    o.add("sensitivity", sensitivity.rawValue)
    o.add("force_touch", forceTouch)
    o.add("force_capability", "\(capability.state.name)")
    o.add("touches", touches)
    var h = JSONWriter.object()
    h.add("frames", frontEnd.frames)
    h.add("invalid", frontEnd.invalidFrames)
    h.add("missed", frontEnd.missedFrames)
    h.add("retries", frontEnd.retries)
    h.add("bus_errors", frontEnd.busErrors)
    h.add("reinits", frontEnd.reinitialisations)
    h.add("spikes", Int(core.spikes))
    h.add("saturated", Int(core.saturatedSamples))
    h.add("reseeds", Int(core.reseeds))
    h.add("absorbed", Int(core.absorbedLoads))
    o.raw("health", h.done)
    var list = JSONWriter.array()
    for c in clients {
      var e = JSONWriter.object()
      e.add("id", c.id)
      e.add("address", c.address)
      e.add("stream", c.kind.rawValue)
      e.add("control", c.control)
      e.add("sent", c.sent)
      e.add("dropped", c.dropped)
      list.raw(e.done)
    }
    o.raw("clients", list.done)
    var t = JSONWriter.object()
    t.add("clients", totals.clients)
    t.add("connected", totals.connected)
    t.add("most_at_once", totals.mostAtOnce)
    t.add("sent", totals.sent)
    t.add("dropped", totals.dropped)
    o.raw("totals", t.done)
    if let connections { o.raw("connections", connections.json) }
    return o.done
  }
}
