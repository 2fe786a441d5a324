// swift-tools-version: 6.1
// Benchmarks of the frame path (ordo-one/benchmark, malloc counting).
// Run from this folder: `swift package --disable-sandbox benchmark`; figures
// and the per-target commands: docs/performance.md.
import PackageDescription

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
    .executableTarget(
      name: "ForceCoreBenchmarks",
      dependencies: [
        "DoubleReference",
        .product(name: "ForceCore", package: "ForcePanel"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/ForceCoreBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "FramePathBenchmarks",
      dependencies: [
        "DoubleReference",
        .product(name: "PanelFirmware", package: "ForcePanel"),
        .product(name: "ForceCore", package: "ForcePanel"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/FramePathBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "StreamingBenchmarks",
      dependencies: [
        "DoubleReference",
        .product(name: "PanelFirmware", package: "ForcePanel"),
        .product(name: "ForceCore", package: "ForcePanel"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/StreamingBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "BusTimingBenchmarks",
      dependencies: [
        .product(name: "PanelFirmware", package: "ForcePanel"),
        .product(name: "ForceCore", package: "ForcePanel"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/BusTimingBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "InteractionBenchmarks",
      dependencies: [
        .product(name: "PanelFirmware", package: "ForcePanel"),
        .product(name: "ForceCore", package: "ForcePanel"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/InteractionBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
