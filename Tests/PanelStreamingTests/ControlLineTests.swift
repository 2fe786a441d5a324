import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelStreaming
@testable import PanelTouch

/// Control lines: parsing, errors naming the line, and the channel reading
/// a file as it grows, with timed lines applied at their stream time.
@Suite struct ControlLineTests {
  static func parse(_ text: String, line: Int = 1) throws -> ControlLine? {
    try ControlLine.parse(text, file: Repo.path("scenarios/x.control"), line: line, board: try Repo.board("sim-plate4"))
  }

  @Test func parsesEveryCommand() throws {
    guard case .sensitivity(.firm)? = try Self.parse("sensitivity firm")?.command else { Issue.record("sensitivity"); return }
    guard case .forceTouch(false)? = try Self.parse("  force_touch off  # the host's switch")?.command else {
      Issue.record("force_touch")
      return
    }
    let timed = try Self.parse("at 2.5 force_touch on")
    #expect(timed?.at_s == 2.5)
    guard case .regions(let map)? = try Self.parse("regions ../regions/home.toml")?.command else {
      Issue.record("regions")
      return
    }
    #expect(map.items.count == 5)
    guard case .quickActions(let item, let actions)? = try Self.parse(
      #"quick_actions mail [{title = "Inbox", subtitle = "3 # unread", icon = "tray"}, {title = "VIP"}]"#)?.command
    else {
      Issue.record("quick_actions")
      return
    }
    #expect(item == "mail")
    #expect(actions == [QuickAction(title: "Inbox", subtitle: "3 # unread", icon: "tray"), QuickAction(title: "VIP")])
    #expect(try Self.parse("   ") == nil)
    #expect(try Self.parse("# nothing") == nil)
  }

  @Test func errorsNameTheLineAndTheCommand() {
    func failure(_ text: String) -> String? {
      FilesTestSupport.failure { _ = try Self.parse(text, line: 7) }
    }
    let f = Repo.path("scenarios/x.control")
    #expect(failure("sensitivity hard") == "\(f):7: sensitivity: \"hard\" is not one of light, medium, firm")
    #expect(failure("force_touch maybe") == "\(f):7: force_touch: \"maybe\" is not one of on, off")
    #expect(failure("at soon sensitivity firm") == "\(f):7: at: expected a time in seconds (0 or more), found \"soon\"")
    #expect(failure("volume 11")?.hasPrefix("\(f):7: unknown command \"volume\"") == true)
    #expect(failure("quick_actions mail")?.contains("expected an item name and a list") == true)
    #expect(failure("quick_actions mail [{title = }]")?.hasPrefix("\(f):7:") == true)
    #expect(failure("regions nowhere.toml")?.contains("no such file") == true)
  }

  @Test func theChannelFollowsAGrowingFileAndWaitsForTimedLines() throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/c.txt"
    try "at 1.0 sensitivity light\nsensitivity firm\nforce_touch".write(toFile: path, atomically: true, encoding: .utf8)
    var channel = try ControlChannel(path: path, board: try Repo.board("sim-plate4"))
    defer { channel.close() }
    // The first poll sets the stream's start; the untimed line is due at
    // once; the half line waits for its newline.
    var (due, errors) = channel.poll(time: Time_us(rawValue: 5_000_000))
    #expect(errors.isEmpty)
    #expect(due.count == 1)
    if case .sensitivity(.firm)? = due.first {} else { Issue.record("expected sensitivity firm, got \(due)") }
    // The rest of the line arrives (appended, as a host writes).
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(" off\nbogus\n".utf8))
    try handle.close()
    (due, errors) = channel.poll(time: Time_us(rawValue: 5_500_000))
    #expect(due.count == 1 && errors.count == 1)
    if case .forceTouch(false)? = due.first {} else { Issue.record("expected force_touch off, got \(due)") }
    #expect(errors.first?.line == 4)
    // 1.0 s after the first poll: the timed line.
    (due, _) = channel.poll(time: Time_us(rawValue: 5_999_999))
    #expect(due.isEmpty)
    (due, _) = channel.poll(time: Time_us(rawValue: 6_000_000))
    if case .sensitivity(.light)? = due.first {} else { Issue.record("expected sensitivity light, got \(due)") }
  }
}
