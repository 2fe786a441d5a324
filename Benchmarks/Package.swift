// swift-tools-version: 6.1
// Benchmarks of the frame path (ordo-one/benchmark, malloc counting).
// Run from this folder: `swift package --disable-sandbox benchmark`; figures
// and the per-target commands: docs/performance.md.
import PackageDescription

/// One executable per group in `Benchmarks/NAME`, each with the firmware's
/// modules, the Double reference and the benchmark runner.
let groups = ["ForceCoreBenchmarks", "FramePathBenchmarks", "StreamingBenchmarks", "BusTimingBenchmarks", "InteractionBenchmarks", "SimulationBenchmarks"]

let package = Package(
  name: "ForcePanelBenchmarks",
  platforms: [.macOS(.v15)],
  products: [.library(name: "DoubleReference", targets: ["DoubleReference"])],
  dependencies: [
    .package(path: "ForcePanel"),  // a link to the repository root, so the identity is fixed
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // The same computations written plainly in Double, for the ratios.
    .target(
      name: "DoubleReference",
      dependencies: [.product(name: "PanelFirmware", package: "ForcePanel")]
    ),
    // ForceCore's instructions a frame on the benchmarks' fixture, for
    // callgrind (count.sh; docs/performance.md).
    .executableTarget(
      name: "ForceCoreCount",
      dependencies: [
        "DoubleReference",
        .product(name: "PanelFirmware", package: "ForcePanel"),
        .product(name: "ForceCore", package: "ForcePanel"),
      ],
      path: "Count/ForceCoreCount"
    ),
    // The whole frame path's instructions a frame, likewise (count.sh --path).
    .executableTarget(
      name: "FramePathCount",
      dependencies: [
        "DoubleReference",
        .product(name: "PanelFirmware", package: "ForcePanel"),
      ],
      path: "Count/FramePathCount"
    ),
  ]
    + groups.map { name in
      .executableTarget(
        name: name,
        dependencies: [
          "DoubleReference",
          .product(name: "PanelFirmware", package: "ForcePanel"),
          .product(name: "ForceCore", package: "ForcePanel"),
          .product(name: "PanelServe", package: "ForcePanel"),
          .product(name: "Benchmark", package: "benchmark"),
        ],
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
      )
    },
  swiftLanguageModes: [.v6]
)
