// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "ForcePanel",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "ForceCore", targets: ["ForceCore"]),
    .library(name: "PanelFirmware", targets: ["PanelFirmware"]),
    .executable(name: "panelctl", targets: ["panelctl"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
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
    // with -no-allocations for four microcontroller targets by
    // scripts/embedded-check.sh.
    .target(name: "ForceCore"),
    // Runs ForceCore on a core script (setup and raw frames as integers) and
    // writes its trace: the entry point shared by `panelctl core run` and the
    // microcontroller firmware (Firmware/). Embedded-capable like ForceCore.
    .target(name: "CoreRunner", dependencies: ["ForceCore"]),
    // Bus, front ends, simulated panel, scan loop, tracker, reports, files.
    .target(
      name: "PanelFirmware",
      dependencies: ["ForceCore", "CI2C", "CGPIOD", "CUInput"],
      // Debug builds let tests answer every syscall (Linux/MockKernel.swift).
      swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]
    ),
    .executableTarget(
      name: "panelctl",
      dependencies: [
        "PanelFirmware", "CoreRunner",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(name: "CI2CTests", dependencies: ["CI2C"]),
    .testTarget(name: "ForceCoreTests", dependencies: ["ForceCore"]),
    .testTarget(
      name: "PanelFirmwareTests", dependencies: ["PanelFirmware"],
      swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug))]),
    .testTarget(name: "PanelctlTests", dependencies: ["PanelFirmware"]),
  ],
  swiftLanguageModes: [.v6]
)
