#if canImport(Glibc)
  import Glibc
#endif
import ForceCore
import FuzzSupport
import PanelFirmware

// Control lines as a host writes them, read through a control channel
// (bounded reads, long lines refused, timed lines capped) poll after poll
// until the input is used up. The channel parses every line it reads
// (`ControlLine.parse`), once: a `regions FILE` line loads and compiles a
// file, the slow part of an input. The channel's file stands in a scratch
// `scenarios/` beside a link to the repository's `regions/`, so lines name
// files as a control file in the repository would:
// `regions ../regions/home.toml`.
enum Fixture {
  static let board: Board = {
    do { return try Board.load(path: repositoryRoot + "/boards/sim-plate4.toml") } catch {
      fatalError("FuzzControlLine needs the repository's boards/sim-plate4.toml (run from the root): \(error)")
    }
  }()
  static let channelFile: String = {
    guard let root = realpath(repositoryRoot, nil) else { fatalError("FuzzControlLine: no repository at \(repositoryRoot)") }
    defer { free(root) }
    mkdir(scratchDirectory + "/scenarios", 0o700)
    symlink(String(cString: root) + "/regions", scratchDirectory + "/regions")
    return scratchDirectory + "/scenarios/fuzz.control"
  }()
}

_ = Fixture.board
_ = Fixture.channelFile
runFuzzer { data, size in
  let bytes = input(data, size)
  let number = bytes.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } + 1
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
