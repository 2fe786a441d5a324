import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelStreaming
@testable import PanelTouch

#if canImport(Glibc)
  import Glibc
#endif

// <stdlib.h>'s pseudo-terminal calls, hidden from Swift's Glibc module
// (they need _XOPEN_SOURCE).
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ fd: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ fd: Int32) -> Int32
@_silgen_name("ptsname_r") private func ptsname_r(_ fd: Int32, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32

/// The monitor's screen as a terminal shows it: the sink draws into a
/// pseudo-terminal, and what the terminal receives is replayed on an 80x24
/// character grid (cursor moves, erase to end of line, text; colours and
/// modes ignored).
@Suite struct MonitorScreenTests {
  struct Screen {
    var rows = [[Character]](repeating: [Character](repeating: " ", count: 80), count: 24)
    var row = 0
    var column = 0

    mutating func feed(_ text: String) {
      var chars = Array(text)[...]
      while let c = chars.popFirst() {
        if c == "\u{1B}" {
          guard chars.first == "[" else { continue }
          chars.removeFirst()
          var parameters = ""
          while let p = chars.first, !p.isLetter {
            parameters.append(p)
            chars.removeFirst()
          }
          guard let command = chars.popFirst() else { return }
          let numbers = parameters.split(separator: ";").map { Int($0) ?? 0 }
          switch command {
          case "H":
            row = max(0, (numbers.first ?? 1) - 1)
            column = max(0, (numbers.count > 1 ? numbers[1] : 1) - 1)
          case "K":
            if row < 24 { for c in column..<80 { rows[row][c] = " " } }
          case "J":
            rows = [[Character]](repeating: [Character](repeating: " ", count: 80), count: 24)
          default: break
          }
        } else if c == "\r" {
          column = 0
        } else if c == "\n" {
          row += 1
        } else {
          if row < 24 && column < 80 { rows[row][column] = c }
          column += 1
        }
      }
    }

    func line(_ r: Int) -> String { String(rows[r]) }
  }

  /// A pseudo-terminal in raw mode: the sink writes to the returned slave,
  /// the test reads what the terminal got from the master.
  static func pty() throws -> (master: Int32, slave: Int32) {
    let master = posix_openpt(O_RDWR | O_NOCTTY)
    try #require(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0)
    var name = [CChar](repeating: 0, count: 128)
    try #require(ptsname_r(master, &name, name.count) == 0)
    let slave = open(String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), O_RDWR | O_NOCTTY)
    try #require(slave >= 0)
    var attributes = termios()
    tcgetattr(slave, &attributes)
    cfmakeraw(&attributes)
    tcsetattr(slave, TCSANOW, &attributes)
    let flags = fcntl(master, F_GETFL)
    _ = fcntl(master, F_SETFL, flags | O_NONBLOCK)
    return (master, slave)
  }

  static func drain(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = read(fd, &buffer, buffer.count)
      if n <= 0 { break }
      bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A long event line followed by a short one: nothing of the long one is
  /// left on the screen (it used to read "events: pop #3ncelled #12 ...").
  /// Too many events for the line keep the latest, clear of the hint.
  @Test func theEventLineIsRedrawnWhole() throws {
    let (master, slave) = try Self.pty()
    defer {
      close(master)
      close(slave)
    }
    let board = try Repo.board("sim-plate4")
    var sink = MonitorSink(board: board, serial: "S", fd: slave)
    var screen = Screen()
    sink.recent.add(TouchEvent(kind: .peekCancelled, touch: 12))
    sink.recent.add(TouchEvent(kind: .quickActions, touch: 123))
    sink.recent.add(TouchEvent(kind: .peekActionsKept, touch: 4567))
    sink.events()
    sink.flush()
    screen.feed(Self.drain(master))
    let long = screen.line(23)
    #expect(long.hasPrefix("events: quick_actions #123 peek_actions_kept #4567"), "\(long)")
    #expect(long.hasSuffix("Ctrl-C quits "), "\(long)")
    #expect(!long.contains("peek_cancelled"), "the oldest event does not fit: \(long)")
    sink.recent = RecentEvents()
    sink.recent.add(TouchEvent(kind: .pop, touch: 3))
    sink.events()
    sink.flush()
    screen.feed(Self.drain(master))
    let short = screen.line(23)
    #expect(short == "events: pop #3" + String(repeating: " ", count: 53) + "Ctrl-C quits ", "\(short)")
  }

  /// The board's name and the panel's serial come from files: the title
  /// shows them escaped, so they cannot set the terminal's title or clear
  /// its screen.
  @Test func theTitleShowsNamesEscaped() throws {
    var board = try Repo.board("sim-plate4")
    board.name = "x\u{1B}]0;owned\u{7}"
    let fd = open("/dev/null", O_WRONLY)
    defer { close(fd) }
    let sink = MonitorSink(board: board, serial: "\u{1B}[2J", fd: fd)
    #expect(!sink.title.contains(0x1B) && !sink.title.contains(7))
    #expect(String(decoding: sink.title, as: UTF8.self).hasPrefix(#"panelctl monitor  x\u{1B}]0;owned\u{7}"#))
  }
}
