import PanelFirmware

/// The server's connections so far, for `/status.json` and the summary
/// (the network side counts them; this module only reports them).
public struct ConnectionCounts: Sendable, Equatable {
  /// Why the server closed a connection itself.
  public enum Closed: Sendable {
    /// No complete request head in time (a slow sender, an idle keep-alive).
    case requestTimeout
    /// Output that could not be written in time (the peer read nothing).
    case stalled
  }

  /// The most at once (descriptors allowing).
  public var cap = 0
  public var open = 0
  public var most = 0
  public var accepted: UInt64 = 0
  /// Closed at the cap to make room for a new one.
  public var evicted: UInt64 = 0
  public var requestTimeouts: UInt64 = 0
  public var stalled: UInt64 = 0

  public init() {}

  /// The `connections` object of `/status.json`.
  public var json: String {
    var o = JSONWriter.object()
    o.field("open", open)
    o.field("most_at_once", most)
    o.field("max", cap)
    o.field("accepted", accepted)
    o.field("closed_for_room", evicted)
    o.field("closed_request_timeout", requestTimeouts)
    o.field("closed_stalled", stalled)
    return o.done
  }
}
