// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "ForcePanel",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "ForceCore", targets: ["ForceCore"]),
    .library(name: "PanelFirmware", targets: ["PanelFirmware"]),
    .library(name: "PanelServe", targets: ["PanelServe"]),
    .library(name: "PanelFactory", targets: ["PanelFactory", "PanelFactoryStore"]),
    .executable(name: "panelctl", targets: ["panelctl"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // `panelctl serve`: HTTP and WebSocket (no default traits: neither
    // swift-configuration nor full Foundation is needed).
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // The factory database (PanelFactoryStore): one query layer, SQLKit,
    // over SQLite (sqlite-nio, its own SQLite built in) and PostgreSQL
    // (postgres-nio); swift-crypto for the rows' SHA-256 (docs/architecture.md).
    .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
    .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
    .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    // `GET /metrics`: swift-metrics' API with the Prometheus text format
    // as its backend.
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
  ],
  targets: [
    // The C boundary to Linux I2C: <linux/i2c-dev.h> ioctls and libi2c.
    .target(
      name: "CI2C",
      linkerSettings: [.linkedLibrary("i2c")]
    ),
    // The C boundary to GPIO lines: libgpiod v1 (Debian 12) or v2, chosen
    // at compile time.
    .target(
      name: "CGPIOD",
      linkerSettings: [.linkedLibrary("gpiod")]
    ),
    // The C boundary to the Linux uinput device (<linux/uinput.h> ioctls).
    .target(name: "CUInput"),
    // The per-cell signal path. Pure Swift; also built as Embedded Swift
    // with -no-allocations for the host and four microcontroller targets
    // by scripts/embedded-check.sh. Imports nothing.
    .target(name: "ForceCore"),
    // The firmware, one module per stage of the frame's way (docs/
    // architecture.md), each depending only on stages below it. A file may
    // import only the modules its target lists (or that a listed one
    // re-exports): scripts/check-imports.sh reads the graph from here.
    //
    // Touches, UITouch phases, the stage machine and press state, compiled
    // regions, force capability, the frame report. Pure Swift (no Glibc,
    // no Foundation); also built as Embedded Swift with -no-allocations by
    // scripts/embedded-check.sh. Imports: ForceCore.
    .target(name: "PanelTouch", dependencies: ["ForceCore"]),
    // Runs the touch stack (ForceCore and PanelTouch) on a core script
    // (setup, raw frames and the host's changes, as integers) and writes
    // its trace: the entry point shared by `panelctl core run` and the
    // microcontroller firmware (Firmware/). Embedded-capable like both.
    // Imports: ForceCore, PanelTouch.
    .target(name: "CoreRunner", dependencies: ["ForceCore", "PanelTouch"]),
    // The files below everything: TOML (with the line of every key), atomic
    // writes and durable renames, recordings, CRC, value bounds, quoting,
    // `FileError`; the one way to the kernel (Kernel/: the syscall shims of
    // files, directories, sockets and poll, `FileDescriptor`, `FileSystem`,
    // `Errno`, and the mock kernel of debug builds). Knows no board and no
    // chip. Imports: nothing.
    .target(
      name: "PanelFiles",
      // Debug builds let tests answer every syscall (Kernel/MockKernel.swift).
      swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]
    ),
    // Real hardware: the bus protocol and clocks, Linux i2c-dev/GPIO
    // shims (over PanelFiles' kernel shims and mock kernel), chip drivers and their typed
    // settings (`DriverConfiguration`, `HapticsSettings`), the front ends
    // over them, haptics, bus scan. Reads no board file. Imports: ForceCore,
    // PanelTouch, PanelFiles, CI2C, CGPIOD.
    .target(
      name: "PanelHardware",
      dependencies: ["ForceCore", "PanelTouch", "PanelFiles", "CI2C", "CGPIOD"],
      // Debug builds let tests answer every syscall (Linux/MockKernel.swift).
      swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]
    ),
    // The schemas above the hardware they name, each read and checked once
    // into typed values: the board file (`Board`, its front end as the
    // `BoardFrontEnd` enum with the chips' `DriverConfiguration`, the
    // haptics), the calibration record and its codecs, region files and
    // rules, the simulated panel's parameters. Re-exports PanelFiles.
    // Imports: ForceCore, PanelTouch, PanelFiles, PanelHardware.
    .target(name: "PanelFormats", dependencies: ["ForceCore", "PanelTouch", "PanelFiles", "PanelHardware"]),
    // The panel's mechanics, what calibration fits, the simulator plays
    // and the contacts read: how a press at a point loads each cell — a
    // plate's statics on its supports, a grid overlay's spreading
    // (`LoadSharing`, `SpreadingKernel`), the learnt radial profile
    // (`SpreadProfile`) and the core's contact model taken from a
    // calibration record. Imports: ForceCore, PanelFormats.
    .target(name: "PanelMechanics", dependencies: ["ForceCore", "PanelFormats"]),
    // The simulated panel: chips on a simulated bus, panel physics,
    // scenarios, wander, the simulated fixture (reference masses, climate
    // chamber). Imports: ForceCore, PanelTouch, PanelFormats,
    // PanelHardware, PanelMechanics.
    .target(
      name: "PanelSimulation",
      dependencies: ["ForceCore", "PanelTouch", "PanelFormats", "PanelHardware", "PanelMechanics"]),
    // Calibration: plans, sessions, fit, checks, certificate, the record
    // on the panel's EEPROM. Knows no simulator: it fits any panel through
    // PanelMechanics. Imports: ForceCore, PanelTouch, PanelFormats,
    // PanelHardware, PanelMechanics.
    // The certificate's page is Templates/certificate.html, compiled in.
    .target(
      name: "PanelCalibration",
      dependencies: ["ForceCore", "PanelTouch", "PanelFormats", "PanelHardware", "PanelMechanics"],
      resources: [.embedInCode("Templates")]),
    // The scan loop and where its reports go: encoders (NDJSON, TUIO,
    // multi-touch), sinks, the control channel. Imports: ForceCore,
    // PanelTouch, PanelFormats, PanelHardware, PanelMechanics (the core's
    // contact model from the calibration), CUInput.
    .target(
      name: "PanelStreaming",
      dependencies: ["ForceCore", "PanelTouch", "PanelFormats", "PanelHardware", "PanelMechanics", "CUInput"]),
    // What wires them: the front-end and haptics factories (each takes the
    // board's typed front end), the board's Linux devices, the calibration
    // lookup, the simulated fixture run by a calibration plan, the fault
    // soak; re-exports every module above so that a program needs one
    // import. Imports: all of them.
    .target(
      name: "PanelFirmware",
      dependencies: [
        "ForceCore", "PanelTouch", "PanelFiles", "PanelFormats", "PanelHardware", "PanelMechanics",
        "PanelSimulation", "PanelCalibration", "PanelStreaming",
      ]
    ),
    // The evaluation harness (`panelctl sim evaluate`, docs/robustness.md):
    // the seeded population of simulated panels across the envelope, each
    // calibrated and run through the standard scenarios with the product's
    // own factories and scan loop, scored against the scripted touches,
    // the table and its JSON. Above the wiring, which it drives; nothing
    // but panelctl and the tests imports it. Imports: the firmware's
    // modules, PanelFirmware.
    .target(
      name: "PanelEvaluationHarness",
      dependencies: [
        "ForceCore", "PanelTouch", "PanelFormats", "PanelHardware", "PanelMechanics", "PanelSimulation",
        "PanelCalibration", "PanelStreaming", "PanelFirmware",
      ]
    ),
    // `panelctl serve` without the network: the scan loop hands each report
    // to a ring that every WebSocket client reads at its own pace, control
    // lines come back, access rules, the server's JSON documents.
    // PanelFirmware stays free of NIO, and so does this (the benchmarks
    // measure it without building a server).
    .target(name: "PanelServe", dependencies: ["ForceCore", "PanelFirmware"]),
    // The factory's calibrations without a database: the row of a run (who,
    // what, where, when, checks, per-cell figures, the model as a format
    // and its bytes), the station's queue and the order a run commits in,
    // yield, Pareto, X-bar/s charts with run rules, the report (HTML, CSV,
    // JSON), the seeded line. Free of NIO like PanelFirmware. Imports:
    // PanelFirmware, Crypto.
    .target(
      name: "PanelFactory",
      dependencies: ["PanelFirmware", .product(name: "Crypto", package: "swift-crypto")]
    ),
    // The factory database: SQLite on a station, PostgreSQL for a line,
    // through SQLKit; the schema's migrations, rows in and out. The only
    // module (with PanelWeb's server) that links NIO. Imports: PanelFactory,
    // SQLKit, SQLiteKit, PostgresKit, NIOCore, NIOPosix, Logging.
    .target(
      name: "PanelFactoryStore",
      dependencies: [
        "PanelFactory",
        .product(name: "SQLKit", package: "sql-kit"),
        .product(name: "SQLiteKit", package: "sqlite-kit"),
        .product(name: "PostgresKit", package: "postgres-kit"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The HTTP and WebSocket server of `panelctl serve` over Hummingbird 2,
    // and its web files (Web/: the dashboard, forcepanel.js, the demo),
    // compiled into the binary.
    .target(
      name: "PanelWeb",
      dependencies: [
        "PanelFirmware", "PanelServe",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      resources: [.embedInCode("Web")]
    ),
    .executableTarget(
      name: "panelctl",
      dependencies: [
        "PanelFirmware", "PanelEvaluationHarness", "CoreRunner", "PanelServe", "PanelWeb", "PanelFactory",
        "PanelFactoryStore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(name: "CI2CTests", dependencies: ["CI2C"]),
    .testTarget(name: "ForceCoreTests", dependencies: ["ForceCore"]),
    // What the firmware's tests share: the repository's board files, a
    // simulated run through the scan loop, simulated twins, scripted
    // presses, temporary directories.
    .target(name: "PanelTestSupport", dependencies: ["PanelFirmware"], path: "Tests/PanelTestSupport"),
    // One test target per module (each may use the layers below it and the
    // shared support); PanelFirmwareTests runs the whole pipeline.
    .testTarget(name: "PanelTouchTests", dependencies: ["PanelTouch", "PanelFirmware", "PanelTestSupport"]),
    .testTarget(
      name: "PanelFormatsTests", dependencies: ["PanelFiles", "PanelFormats", "PanelFirmware", "PanelTestSupport"],
      swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
    .testTarget(name: "PanelMechanicsTests", dependencies: ["PanelMechanics", "PanelFirmware", "PanelTestSupport"]),
    .testTarget(
      name: "PanelHardwareTests", dependencies: ["PanelHardware", "PanelFirmware", "PanelTestSupport"],
      swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
    .testTarget(
      name: "PanelSimulationTests",
      dependencies: ["PanelSimulation", "PanelFirmware", "PanelEvaluationHarness", "PanelTestSupport"]),
    .testTarget(name: "PanelCalibrationTests", dependencies: ["PanelCalibration", "PanelFirmware", "PanelTestSupport"]),
    .testTarget(name: "PanelStreamingTests", dependencies: ["PanelStreaming", "PanelFirmware", "PanelTestSupport"]),
    .testTarget(name: "PanelFirmwareTests", dependencies: ["PanelFirmware", "PanelEvaluationHarness", "PanelTestSupport"]),
    // panelctl run as a process; the golden outputs' evaluation in process
    // (dated by the test) and their SHA-256 (swift-crypto).
    .testTarget(
      name: "PanelctlTests",
      dependencies: ["PanelFirmware", "PanelEvaluationHarness", .product(name: "Crypto", package: "swift-crypto")]),
    .testTarget(name: "PanelServeTests", dependencies: ["PanelServe", "PanelWeb", "PanelFirmware"]),
    .testTarget(
      name: "PanelFactoryTests",
      dependencies: [
        "PanelFactory", "PanelFactoryStore", "PanelFirmware", "PanelTestSupport",
        .product(name: "SQLKit", package: "sql-kit"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// Linux only, but for the touch stack. Everything from PanelFiles up
// calls Linux interfaces (i2c-dev, GPIO character devices, uinput, Linux
// socket flags, the syscall shims of PanelHardware/Linux), and the server
// and database modules build on it; elsewhere the package offers only the
// modules that import no system module (ForceCore, PanelTouch, CoreRunner:
// they build for macOS and, as Embedded Swift, for microcontrollers) and
// ForceCore's tests. No half-support: a macOS build of the rest is not
// attempted.
#if !os(Linux)
  let portable: Set<String> = ["ForceCore", "PanelTouch", "CoreRunner", "ForceCoreTests"]
  package.targets.removeAll { !portable.contains($0.name) }
  package.products = [.library(name: "ForceCore", targets: ["ForceCore"])]
  package.dependencies = []
#endif
