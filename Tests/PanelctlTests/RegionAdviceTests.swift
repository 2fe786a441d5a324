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
