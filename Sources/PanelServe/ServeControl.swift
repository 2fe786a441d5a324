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
struct ServeControl {
  let hub: ServeHub
  var schedule = ControlSchedule<ControlTag>()
  var due: [(command: InteractionCommand, tag: ControlTag)] = []
  var started = false

  init(hub: ServeHub, board: Board) {
    self.hub = hub
    due.reserveCapacity(64)
  }

  /// Applies what is due at frame time `time`. Allocates nothing when no
  /// line arrived and none is waiting.
  mutating func apply(time: Time_us, to interaction: inout Interaction) {
    if !started {
      // The stream's clock (for `at`) starts at the first frame.
      schedule.take(time: time, into: &due)
      started = true
    }
    let fresh = hub.takeControl(budget: ControlChannel.maxLinesPerPoll)
    guard !fresh.isEmpty || schedule.pending > 0 else { return }
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
        try interaction.apply(command)
        hub.reply(tag.client, ControlReply.ok(line: tag.line))
      } catch {
        hub.reply(tag.client, ControlReply.error(line: tag.line, "\(ControlReply.source(tag.client)):\(tag.line): \(error)"))
      }
    }
    due.removeAll(keepingCapacity: true)
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

  static func reply(_ outcome: String, line: Int, _ message: String?) -> String {
    var o = JSONWriter.object()
    o.add("control", outcome)
    o.add("line", line)
    if let message { o.add("message", message) }
    return o.done
  }
}
