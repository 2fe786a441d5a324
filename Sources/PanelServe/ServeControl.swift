import ForceCore
import PanelFirmware

/// The control lines of WebSocket clients, applied between frames in the
/// scan loop's thread, in the order they arrived (a line with `at SECONDS`
/// at its stream time, as from `--control`). Each client gets one reply
/// per line it sent: `ok` once applied, or `error` with the reason. What
/// one frame does is bounded as for `--control`: at most
/// `ControlChannel.maxLinesPerPoll` lines taken and timed lines applied,
/// at most `ControlChannel.maxScheduled` timed lines waiting (a line beyond
/// is `refused`).
///
/// Items are each client's own (`ClientItems`): a client's `regions` line
/// replaces its layer of the panel's map, never another's, and its layer
/// goes when it leaves. The map is the server's own items (`--regions`, a
/// `--control` line) beneath the clients' layers, the newest client's
/// lowest and the longest-connected client's on top: where two pages'
/// items overlap, a touch goes to the page that was there first.
struct ServeControl {
  let hub: ServeHub
  var schedule = ControlSchedule<ControlTag>()
  var due: [(command: InteractionCommand, tag: ControlTag)] = []
  var started = false
  /// The clients' layers, by client id (oldest first).
  var layers: [(client: Int, map: RegionMap)] = []
  /// `Interaction.regionsVersion` once the composed map was put in place:
  /// another version means someone else (`--control`) changed the map.
  var composedVersion: UInt64?

  init(hub: ServeHub, board: Board) {
    self.hub = hub
    due.reserveCapacity(64)
  }

  /// Applies what is due at frame time `time`. Allocates nothing when no
  /// line arrived, none is waiting and no client with items left.
  mutating func apply(time: Time_us, to interaction: inout Interaction) {
    if !started {
      // The stream's clock (for `at`) starts at the first frame.
      schedule.take(time: time, into: &due)
      started = true
    }
    var recompose = false
    for id in hub.takeDepartures() {
      if let i = layers.firstIndex(where: { $0.client == id }) {
        layers.remove(at: i)
        recompose = true
      }
    }
    if !layers.isEmpty, interaction.regionsVersion != composedVersion { recompose = true }
    let fresh = hub.takeControl(budget: ControlChannel.maxLinesPerPoll)
    if !fresh.isEmpty || schedule.pending > 0 {
      for (line, tag) in fresh {
        if !schedule.add(line, tag: tag, due: &due) {
          hub.reply(
            tag.client,
            ControlReply.refused(
              line: tag.line, "\(ControlChannel.maxScheduled) timed lines are already waiting (the limit)"))
        }
      }
      schedule.take(time: time, into: &due, limit: ControlChannel.maxLinesPerPoll)
      for (command, tag) in due {
        do {
          if try applyToLayer(command, tag) {
            recompose = true
          } else {
            try interaction.apply(command)
          }
          hub.reply(tag.client, ControlReply.applied(tag))
        } catch {
          hub.reply(tag.client, ControlReply.error(line: tag.line, "\(ControlReply.source(tag.client)):\(tag.line): \(error)"))
        }
      }
      due.removeAll(keepingCapacity: true)
    }
    if recompose { compose(&interaction) }
  }

  /// A client's items, or the quick actions of one of them, into its
  /// layer; false for any other command (applied to the panel as is).
  mutating func applyToLayer(_ command: InteractionCommand, _ tag: ControlTag) throws(RegionViolation) -> Bool {
    switch command {
    case .regions:
      guard let items = tag.items else { return false }
      setLayer(tag.client.id, items.map)
      return true
    case .quickActions(let name, let actions):
      let scoped = ClientItems.scope(tag.client) + name
      guard let i = layers.firstIndex(where: { $0.client == tag.client.id }), layers[i].map.index(of: scoped) != nil
      else { return false }
      // The layer's names carry the scope, beyond what a name may have:
      // the item is checked under its own name.
      let plain = ClientItems.unscoped(layers[i].map, scope: ClientItems.scope(tag.client))
      let changed = try plain.replacingQuickActions(of: name, with: actions)
      layers[i].map = ClientItems.scoped(changed, scope: ClientItems.scope(tag.client))
      return true
    case .sensitivity, .forceTouch:
      return false
    }
  }

  mutating func setLayer(_ client: Int, _ map: RegionMap) {
    if let i = layers.firstIndex(where: { $0.client == client }) {
      layers[i].map = map
    } else {
      layers.append((client, map))
      layers.sort { $0.client < $1.client }
    }
  }

  /// The server's items with the clients' layers over them, the oldest
  /// client's on top. The server's own are the map's items in no client's
  /// scope: whoever changed the map since (`--control`: a new map, new
  /// quick actions) changed those.
  mutating func compose(_ interaction: inout Interaction) {
    let base = interaction.regions.keeping { !ClientItems.isScoped($0.name) }
    let map = RegionMap.concatenating([base] + layers.reversed().map(\.map), over: base)
    interaction.replaceRegions(map)
    composedVersion = interaction.regionsVersion
  }
}

/// The answers to control lines: one JSON object per line sent, only to
/// the client that sent it. Report lines never have a `control` key.
package enum ControlReply {
  /// How a client's lines are named in messages, as a file would be: `ws#3`.
  package static func source(_ client: ClientHandle) -> String { "ws#\(client.id)" }

  package static func ok(line: Int) -> String { reply("ok", line: line, nil) }
  package static func error(line: Int, _ message: String) -> String { reply("error", line: line, message) }
  package static func refused(line: Int, _ message: String) -> String { reply("refused", line: line, message) }

  /// The answer to a line that was applied: `ok`; for a client's items,
  /// `ok` with its scope when every item was kept, else `error` naming
  /// each refused item, with how many were kept.
  static func applied(_ tag: ControlTag) -> String {
    guard let items = tag.items else { return ok(line: tag.line) }
    var o = JSONWriter.object()
    let (kept, refused) = items.json
    o.field("control", items.refused.isEmpty ? "ok" : "error")
    o.field("line", tag.line)
    o.field("scope", ClientItems.scope(tag.client))
    o.field("kept", kept)
    if !items.refused.isEmpty {
      let first = items.refused[0].message
      let more = items.refused.count > 1 ? " (and \(items.refused.count - 1) more)" : ""
      o.field(
        "message",
        "\(source(tag.client)):\(tag.line): \(items.refused.count) of \(kept + items.refused.count) items refused: \(first)\(more)")
      o.field("refused", json: refused)
    }
    return o.done
  }

  static func reply(_ outcome: String, line: Int, _ message: String?) -> String {
    var o = JSONWriter.object()
    o.field("control", outcome)
    o.field("line", line)
    if let message { o.field("message", message) }
    return o.done
  }
}
