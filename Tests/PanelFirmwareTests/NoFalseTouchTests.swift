import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelHardware
@testable import PanelStreaming

/// Chips failing, resetting and corrupting results under an untouched
/// panel, through the whole scan loop: frames go invalid, nothing is
/// reported as a touch, and the panel reads again afterwards.
@Suite struct NoFalseTouchTests {
  static func touches<F: FrontEnd>(_ loop: ScanLoop<F>, frames: Int, every: (Int) -> Void) throws -> (touches: Int, invalid: Int) {
    var touches = 0
    var invalid = 0
    for k in 0..<frames {
      every(k)
      guard try loop.step() else { break }
      if !loop.frame.valid { invalid += 1 }
      touches += loop.report.touchCount
    }
    return (touches, invalid)
  }

  @Test func nau7802FaultsUnderAnIdlePanel() throws {
    let board = try Repo.board("sim-plate4-nau7802")
    var twin = try Twins.nau7802(board)
    try twin.frontEnd.start()
    let calibration = try FrontEndFactory.trueCalibration(board: board, created: "test")
    let loop = ScanLoop(source: twin.frontEnd, board: board, calibration: calibration)
    let hw = twin.hardware
    let r = try Self.touches(loop, frames: 3200) { k in
      switch k {
      case 300: hw.nau7802s[1].brownout(at: hw.clock.now_ns)
      case 600: hw.nau7802s[3].isPresent = false
      case 900: hw.nau7802s[3].isPresent = true
      case 1000: hw.bus.inject(.nack, at: 0x2A, count: 40)
      case 1100: hw.nau7802s[0].conversionsStuck = true
      case 1200: hw.nau7802s[0].conversionsStuck = false
      default: break
      }
    }
    #expect(r.touches == 0)
    #expect(r.invalid > 300)
    #expect(loop.frame.valid)
    #expect(loop.source.health.reinitialisations >= 3)
  }

  @Test func corruptedResultsUnderAnIdlePanel() throws {
    let board = try Repo.board("sim-plate4-ads122c04")
    var twin = try Twins.ads122c04(board)
    try twin.frontEnd.start()
    let calibration = try FrontEndFactory.trueCalibration(board: board, created: "test")
    let loop = ScanLoop(source: twin.frontEnd, board: board, calibration: calibration)
    let hw = twin.hardware
    let r = try Self.touches(loop, frames: 3000) { k in
      switch k {
      // Flip a high data bit on every read from one chip for a while: a
      // 2-million-count step that would be a hard press if it got through.
      case 500: hw.bus.inject(.corruptRead(index: 1, mask: 0x20), at: 0x41, count: 60)
      case 1500: hw.ads122c04s[3].brownout(at: hw.clock.now_ns)
      default: break
      }
    }
    #expect(r.touches == 0)
    #expect(r.invalid > 0)
    #expect(loop.frame.valid)
  }

  /// The same corruption without the CRC gets through as a press: what the
  /// check above rests on.
  @Test func withoutTheCRCTheSameCorruptionIsAPress() throws {
    let board = try BoardText.variant("sim-plate4-ads122c04", [("crc = true ", "crc = false ")])
    var twin = try Twins.ads122c04(board)
    try twin.frontEnd.start()
    let calibration = try FrontEndFactory.trueCalibration(board: board, created: "test")
    let loop = ScanLoop(source: twin.frontEnd, board: board, calibration: calibration)
    let hw = twin.hardware
    let r = try Self.touches(loop, frames: 1200) { k in
      if k == 500 { hw.bus.inject(.corruptRead(index: 1, mask: 0x20), at: 0x41, count: 60) }
    }
    #expect(r.touches > 0)
    #expect(r.invalid == 0)
  }
}
