import Benchmark
import ForceCore
import PanelFirmware

/// Simulated twins (the real drivers on register-accurate simulated chips,
/// every transfer costing what the bus-timing model says) through the
/// whole scan loop. Per frame: the host's wall-clock and mallocs. Custom
/// metrics, per run: the frame rate reached on the simulated clock and
/// the rate the bus-timing model allows (BusBudget), in frames per second,
/// and the first as a per-mille share of the second.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [
      .wallClock, .mallocCountTotal, .custom("simulated frames/s", polarity: .prefersLarger, useScalingFactor: false),
      .custom("model frames/s", polarity: .prefersLarger, useScalingFactor: false),
      .custom("reached, per mille of model", polarity: .prefersLarger, useScalingFactor: false),
    ],
    timeUnits: .microseconds, scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 20)

  let root: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)  // Benchmarks/Benchmarks/BusTimingBenchmarks/BusTimingBenchmarks.swift
    return parts.joined(separator: "/")
  }()

  // (name, board file, edits to the board text)
  let twins: [(String, String, [(String, String)])] = [
    ("NAU7802 x4, TCA9548A, 400 kHz, DRDY lines", "sim-plate4-nau7802", []),
    ("NAU7802 x4, TCA9548A, 400 kHz, polled", "sim-plate4-nau7802",
      [("gpio_chip = \"/dev/gpiochip0\"\ndrdy_lines = [17, 27, 22, 23]", "")]),
    ("NAU7802 x4, TCA9548A, 100 kHz, DRDY lines", "sim-plate4-nau7802", [("bus_khz = 400", "bus_khz = 100")]),
    ("ADS122C04 x4, 1 MHz, DRDY lines", "sim-plate4-ads122c04", []),
    ("ADS122C04 x4, 400 kHz, polled, 2000 SPS", "sim-plate4-ads122c04",
      [("bus_khz = 1000", "bus_khz = 400"), ("turbo = false", "turbo = true"), ("rate_sps = 600", "rate_sps = 2000"),
       ("gpio_chip = \"/dev/gpiochip0\"\ndrdy_lines = [17, 27, 22, 23]", "")]),
    ("Frame controller 48 cells, 1 MHz, DRDY line", "sim-grid-frame", []),
    ("Frame controller 48 cells, 400 kHz, DRDY line", "sim-grid-frame", [("bus_khz = 1000", "bus_khz = 400")]),
  ]

  for (name, file, edits) in twins {
    Benchmark("Bus timing: \(name)") { benchmark in
      let path = root + "/boards/\(file).toml"
      var text = try TextFile.read(path: path)
      for (from, to) in edits { text = text.replacing(from, with: to) }
      let board = try Board(table: TOML.parse(text, file: path))
      let configuration = try board.driverConfiguration
      let calibration = try FrontEndFactory.trueCalibration(board: board, created: "2026-01-01T00:00:00Z")
      var frontEnd = try FrontEndFactory.make(board: board, options: RunOptions(speed: 0, duration_s: .infinity))
      try frontEnd.start()
      try run(frontEnd, board, calibration, configuration, benchmark)
    }
  }

  @Sendable func run<F: FrontEnd>(
    _ frontEnd: F, _ board: Board, _ calibration: CalibrationRecord, _ c: DriverConfiguration,
    _ benchmark: Benchmark
  ) throws {
    let loop = ScanLoop(source: frontEnd, board: board, calibration: calibration)
    for _ in 0..<200 { _ = try loop.step() }  // past the discards, in steady state
    let first = loop.frame.time.rawValue
    var frames = 0
    var invalid = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      _ = try loop.step()
      if !loop.frame.valid { invalid += 1 }
      frames += 1
    }
    benchmark.stopMeasurement()
    let seconds = Double(loop.frame.time.rawValue - first) / 1e6
    let reached = Double(frames) / seconds
    let timing = I2CBusTiming(khz: c.bus_khz, hostOverhead_us: board.frontEnd.twinParameters?.hostOverhead_us ?? 200)
    let model = BusBudget(configuration: c).modelFrameRate(c, timing)
    benchmark.measurement(.custom("simulated frames/s"), Int(reached.rounded()))
    benchmark.measurement(.custom("model frames/s"), Int(model.rounded()))
    benchmark.measurement(.custom("reached, per mille of model"), Int((reached / model * 1000).rounded()))
    blackHole(invalid)
  }
}
