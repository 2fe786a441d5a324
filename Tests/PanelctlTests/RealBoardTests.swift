import Foundation
import Testing

/// A real board file on a machine without its bus: one line naming the
/// board's key and the device, exit 1, no crash.
@Suite(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/i2c-1"), "this machine has /dev/i2c-1"))
struct RealBoardTests {
  @Test(arguments: ["rpi4-nau7802x4", "rpi4-ads122c04x4", "rpi4-frame-grid"])
  func recordingFromARealBoardWithoutItsBus(name: String) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("r.csv").path
    let r = try Panelctl.run(["record", "--board", "boards/\(name).toml", "--out", out, "--frames", "1"])
    BadInputTests.expectOneLineError(
      r, contains: ["boards/\(name).toml:", "[frontend] bus", "I2C bus /dev/i2c-1 does not exist"])
    #expect(!FileManager.default.fileExists(atPath: out))
    #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
  }
}
