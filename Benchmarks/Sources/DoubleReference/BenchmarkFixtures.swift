import ForceCore
import PanelFirmware

/// Boards, calibrations and pre-rendered frames for the benchmarks: the
/// simulated panels of `boards/`, plus a 16 x 16 grid for 256 cells.
public enum BenchmarkFixtures {
  /// A simulated board with `cells` cells: 4 (plate), 48 (8 x 6 grid) or
  /// 256 (16 x 16 grid), 20 mm pitch.
  public static func board(cells: Int) -> Board {
    if cells == 4 {
      let corners = [(0.0, 0.0), (160.0, 0.0), (0.0, 100.0), (160.0, 100.0)]
      return Board(
        name: "bench-plate4", width_mm: 160, height_mm: 100,
        cells: corners.map { CellPosition(x_mm: $0.0, y_mm: $0.1) },
        frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: 320)
    }
    let side = cells == 48 ? (8, 6) : (16, 16)
    var positions: [CellPosition] = []
    for k in 0..<(side.0 * side.1) {
      positions.append(CellPosition(x_mm: (Double(k % side.0) + 0.5) * 20, y_mm: (Double(k / side.0) + 0.5) * 20))
    }
    var b = Board(
      name: "bench-grid\(cells)", width_mm: Double(side.0) * 20, height_mm: Double(side.1) * 20,
      cells: positions, grid: GridSpec(columns: side.0, rows: side.1, pitch_mm: 20),
      frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: 500)
    b.interaction.maxTouches = 10
    return b
  }

  /// A scenario that keeps the panel busy: one press (plate) or two moving
  /// presses (grid), repeated; with `fingers` > 2 (a grid), that many
  /// presses down together in two rows, each sliding 10 mm and back.
  public static func scenario(for board: Board, fingers: Int = 0) -> Scenario {
    let w = board.width_mm
    let h = board.height_mm
    var touches: [ScriptedTouch] = []
    if fingers > 2 {
      let columns = (fingers + 1) / 2
      for k in 0..<fingers {
        let x = w * (Double(k % columns) + 0.5) / Double(columns)
        let y = h * (k < columns ? 0.3 : 0.7)
        touches.append(
          ScriptedTouch(
            start_s: 0.02 * Double(k),
            force: [Keyframe(0, 0), Keyframe(0.1, 1.2), Keyframe(3.6, 1.2), Keyframe(3.7, 0)],
            x: [Keyframe(0, x), Keyframe(1.8, x + 10), Keyframe(3.6, x)], y: [Keyframe(0, y)]))
      }
      return Scenario(name: "bench-\(fingers)", duration_s: 4, touches: touches)
    }
    for i in 0..<4 {
      let start = Double(i) * 1.0
      touches.append(
        ScriptedTouch(
          start_s: start, force: [Keyframe(0, 0), Keyframe(0.1, 1.5), Keyframe(0.7, 1.5), Keyframe(0.8, 0)],
          x: [Keyframe(0, w * 0.3), Keyframe(0.8, w * 0.6)], y: [Keyframe(0, h * 0.4), Keyframe(0.8, h * 0.6)]))
      if board.grid != nil {
        touches.append(
          ScriptedTouch(
            start_s: start + 0.05, force: [Keyframe(0, 0), Keyframe(0.1, 1.0), Keyframe(0.6, 1.0), Keyframe(0.7, 0)],
            x: [Keyframe(0, w * 0.8), Keyframe(0.7, w * 0.7)], y: [Keyframe(0, h * 0.3), Keyframe(0.7, h * 0.2)]))
      }
    }
    return Scenario(name: "bench", duration_s: 4, touches: touches)
  }

  /// The simulated panel for `board` and its exact calibration.
  public static func panel(_ board: Board, fingers: Int = 0) -> SimulatedPanel {
    var p = SimulationParameters()
    p.seed = UInt64(board.cellCount)
    p.spikeRate_hz = 0
    return SimulatedPanel(board: board, parameters: p, scenario: scenario(for: board, fingers: fingers), speed: 0)
  }

  /// `count` consecutive frames of the benchmark scenario.
  public static func frames(_ board: Board, count: Int, fingers: Int = 0) -> [RawFrame] {
    var panel = panel(board, fingers: fingers)
    var frames: [RawFrame] = []
    var frame = RawFrame(cellCount: board.cellCount)
    while frames.count < count, (try? panel.next(into: &frame)) == true {
      frames.append(frame)
    }
    return frames
  }

  public static func calibration(_ board: Board) -> CalibrationRecord {
    panel(board).trueCalibration(created: "2026-01-01T00:00:00Z")
  }
}

/// Pre-rendered frames played in a loop: a front end with no cost of its own.
public struct LoopedFrames: FrontEnd {
  let frames: [RawFrame]
  var index = 0
  var time: Int64 = 0
  public let cellCount: Int
  public var health = FrontEndHealth()

  public init(_ frames: [RawFrame]) {
    self.frames = frames
    cellCount = frames.first?.cellCount ?? 0
  }

  public mutating func start() throws(FrontEndError) {}

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    frame = frames[index]
    frame.time.rawValue = time
    time += 2000
    index = index + 1 == frames.count ? 0 : index + 1
    return true
  }
}
