import ForceCore

import PanelFirmware

/// A simulated twin built by hand, so a test can hold its chips and bus.
package struct Twin<F: FrontEnd> {
  package let board: Board
  package let configuration: DriverConfiguration
  package let hardware: SimulatedHardware
  package var frontEnd: F
  package var frame: RawFrame

  package var bus: SimulatedI2CBus { hardware.bus }
  package var clock: SimulatedClock { hardware.clock }

  /// Reads frames until `body` says stop or `limit` frames were read.
  package mutating func run(frames limit: Int, _ body: (inout Self) -> Bool = { _ in true }) throws {
    for _ in 0..<limit {
      guard try frontEnd.next(into: &frame) else { return }
      if !body(&self) { return }
    }
  }

  package mutating func notices() -> [String] {
    var all: [String] = []
    while let n = frontEnd.takeNotice() { all.append(n.message) }
    return all
  }
}

package typealias SimLine = SimulatedDataReadyLine

package enum Twins {
  /// A board file's text with `[frontend]` replaced.
  package static func board(cells: Int, frontEnd: String, rate_hz: Int = 320) throws -> Board {
    var text = """
      [board]
      name = "twin-test"

      [panel]
      width_mm = 160.0
      height_mm = 100.0

      """
    let corners = [(0.0, 0.0), (160.0, 0.0), (0.0, 100.0), (160.0, 100.0)]
    for i in 0..<cells {
      text += "\n[[cell]]\nx_mm = \(corners[i % 4].0)\ny_mm = \(corners[i % 4].1)\n"
    }
    text += "\n[frontend]\n" + frontEnd + "\n\n[sampling]\nrate_hz = \(rate_hz)\n"
    return try Board(table: TOML.parse(text, file: "twin.toml"))
  }

  package static func hardware(_ board: Board, scenario: Scenario = .idle()) throws -> (DriverConfiguration, SimulatedHardware) {
    guard case .simulatedTwin(let c, let parameters) = board.frontEnd else {
      throw FileError(file: board.file, field: "[frontend] bus", message: "not a simulated twin")
    }
    return (c, SimulatedHardware(board: board, configuration: c, parameters: parameters, scenario: scenario))
  }

  package static func nau7802(_ board: Board, scenario: Scenario = .idle(), options: RunOptions = RunOptions(speed: 0))
    throws -> Twin<NAU7802FrontEnd<SimulatedI2CBus, SimulatedClock, SimLine>>
  {
    let (c, hw) = try hardware(board, scenario: scenario)
    let fe = NAU7802FrontEnd(
      configuration: c, chip: NAU7802Cell(settings: c.nau7802), bus: hw.bus, clock: hw.clock,
      lines: hw.dataReadyLines(), options: options)
    return Twin(board: board, configuration: c, hardware: hw, frontEnd: fe, frame: RawFrame(cellCount: board.cellCount))
  }
}

extension I2CTransferEvent {
  /// The 3 bytes of a 24-bit result, most significant first.
  package static func bytes24(_ v: Int32) -> [UInt8] {
    let u = UInt32(bitPattern: v)
    return [UInt8(truncatingIfNeeded: u >> 16), UInt8(truncatingIfNeeded: u >> 8), UInt8(truncatingIfNeeded: u)]
  }
}

extension Twins {
  package static func ads122c04(_ board: Board, scenario: Scenario = .idle(), options: RunOptions = RunOptions(speed: 0))
    throws -> Twin<ADS122C04FrontEnd<SimulatedI2CBus, SimulatedClock, SimLine>>
  {
    let (c, hw) = try hardware(board, scenario: scenario)
    let fe = ADS122C04FrontEnd(
      configuration: c, chip: ADS122C04Cell(settings: c.ads122c04), bus: hw.bus, clock: hw.clock,
      lines: hw.dataReadyLines(), options: options)
    return Twin(board: board, configuration: c, hardware: hw, frontEnd: fe, frame: RawFrame(cellCount: board.cellCount))
  }
}

extension Twins {
  package static func frame(_ board: Board, scenario: Scenario = .idle(), options: RunOptions = RunOptions(speed: 0))
    throws -> Twin<FrameFrontEnd<SimulatedI2CBus, SimulatedClock, SimLine>>
  {
    let (c, hw) = try hardware(board, scenario: scenario)
    let fe = FrameFrontEnd(
      configuration: c, bus: hw.bus, clock: hw.clock, lines: hw.dataReadyLines(),
      options: options)
    return Twin(board: board, configuration: c, hardware: hw, frontEnd: fe, frame: RawFrame(cellCount: board.cellCount))
  }
}
