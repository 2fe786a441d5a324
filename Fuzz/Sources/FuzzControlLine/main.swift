import ForceCore
import FuzzSupport
import PanelFirmware

// Control lines as a host writes them: each line parsed on its own, then
// the whole input read through a control channel (bounded reads, long
// lines refused, timed lines capped) poll after poll until it is used up.
enum Fixture {
  static let board: Board = {
    do { return try Board.load(path: repositoryRoot + "/boards/sim-plate4.toml") } catch {
      fatalError("FuzzControlLine needs the repository's boards/sim-plate4.toml (run from the root): \(error)")
    }
  }()
  /// Lines name files relative to the control file: `regions ../regions/home.toml`.
  static let file = repositoryRoot + "/scenarios/fuzz.control"
  static let channelFile = scratchDirectory + "/fuzz.control"
}

_ = Fixture.board
runFuzzer { data, size in
  let bytes = input(data, size)
  var number = 0
  for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
    number += 1
    _ = try? ControlLine.parse(String(decoding: line, as: UTF8.self), file: Fixture.file, line: number, board: Fixture.board)
  }
  writeFile(bytes, to: Fixture.channelFile)
  guard var channel = try? ControlChannel(path: Fixture.channelFile, board: Fixture.board) else { return 0 }
  defer { channel.close() }
  let polls = size / ControlChannel.readBytesPerPoll + number / ControlChannel.maxLinesPerPoll + 4
  for k in 0..<polls {
    let (due, errors) = channel.poll(time: Time_us(rawValue: Int64(k) * 1_000_000_000))
    precondition(due.count <= ControlChannel.maxLinesPerPoll + ControlChannel.maxLinesPerPoll)
    precondition(errors.count <= ControlChannel.maxLinesPerPoll + 2)
  }
  return 0
}
