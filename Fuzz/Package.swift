// swift-tools-version: 6.1
// libFuzzer targets for the readers of outside input. Build and run with
// scripts/fuzz.sh (docs/reliability.md); each target is an executable
// whose main hands over to libFuzzer's driver.
import PackageDescription

let targets = ["FuzzTOML", "FuzzRecording", "FuzzOSC", "FuzzFrameProtocol", "FuzzControlLine"]

let package = Package(
  name: "ForcePanelFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [.package(path: "ForcePanel")],  // a link to the repository root
  targets: [.target(name: "FuzzSupport")]
    + targets.map { name in
      .executableTarget(
        name: name,
        dependencies: [
          "FuzzSupport", .product(name: "PanelFirmware", package: "ForcePanel"),
          .product(name: "ForceCore", package: "ForcePanel"),
        ],
        path: "Sources/\(name)")
    },
  swiftLanguageModes: [.v6]
)
