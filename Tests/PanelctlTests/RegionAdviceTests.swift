import Foundation
import Testing

/// Guidelines that are advice reach the user once, as warnings naming the
/// file and line, and the items still load.
@Suite struct RegionAdviceTests {
  @Test func aLongLocalizedTitleRunsWithOneWarning() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let title = String(repeating: "設定を変更する", count: 6).prefix(40)
    let regions = dir.path + "/r.toml"
    try """
      [[item]]
      name = "settings"
      x_mm = 10.0
      y_mm = 10.0
      width_mm = 30.0
      height_mm = 30.0
      [[item.quick_action]]
      title = "\(title)"
      """.write(toFile: regions, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--regions", regions, "--frames", "20"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(r.stderr)")
    #expect(lines.first?.hasPrefix("panelctl: warning: \(regions):8: item[1].quick_action[1] title: is 80 columns wide") == true, "\(r.stderr)")
  }
}

extension RegionAdviceTests {
  /// Control lines: every warning names the control file's line, whether
  /// the line could not be applied or what it declared is only advice.
  @Test func controlLineWarningsNameTheirLine() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let control = dir.path + "/c.control"
    let cjk = String(repeating: "設定を変更する", count: 6).prefix(40)
    try """
      # advice and mistakes, one per line
      quick_actions nobody [{title = "Reply"}]
      quick_actions mail [{title = "\(cjk)"}]
      regions [{name = "row", x_mm = 10.0, y_mm = 10.0, width_mm = 50.0, height_mm = 10.0, peek = true, pop = true, quick_action = [{title = "Reply"}, {title = "Open Message"}]}]

      """.write(toFile: control, atomically: true, encoding: .utf8)
    let r = try Panelctl.run([
      "stream", "--board", "boards/sim-plate4.toml", "--regions", "regions/home.toml", "--control", control,
      "--frames", "20", "--speed", "0",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stderr.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(r.stderr)")
    #expect(lines.count > 0 && lines[0].hasPrefix("panelctl: warning: \(control):2: ") && lines[0].contains("no item is called \"nobody\""), "\(lines)")
    #expect(lines.count > 1 && lines[1].hasPrefix("panelctl: warning: \(control):3: item[2].quick_action[1] title: is 80 columns wide"), "\(lines)")
    #expect(lines.count > 2 && lines[2].hasPrefix("panelctl: warning: \(control):4: item[1].quick_action[2] title: \"Open Message\" only opens \"row\""), "\(lines)")
  }
}
