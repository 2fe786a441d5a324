import ArgumentParser
import PanelFirmware

extension PanelCtl {
  /// `panelctl scan`: i2cdetect with chip identification.
  struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show which addresses answer on an I2C bus and what chip each looks like.",
      discussion: """
        Probes each address with a one-byte read (i2cdetect -r), then identifies \
        the chips panelctl drives by their registers: NAU7802 (REV_ID), \
        TCA9548A (control register), ADS122C04 (RREG), 24Cxx EEPROM. \
        In the table: -- no answer, UU in use by a kernel driver, !! the \
        transfer failed.
        """)

    @Option(
      name: .long,
      help: ArgumentHelp("The I2C bus: /dev/i2c-N, i2c-N or N.", valueName: "BUS"))
    var bus: String?

    @Option(
      name: .long,
      help: ArgumentHelp(
        "A board file: scan its bus and every switch channel it uses, and check each chip it names.",
        valueName: "BOARD.toml"))
    var board: String?

    @Option(name: .long, help: ArgumentHelp("Scan behind this TCA9548A switch (0x70...0x77; default 0x70 with --channel).", valueName: "ADDRESS"))
    var mux: String?

    @Option(name: .long, help: ArgumentHelp("The switch channel to scan (0...7).", valueName: "N"))
    var channel: Int?

    @Flag(name: [.short, .long], help: "Probe every address 0x00...0x7f (default 0x08...0x77).")
    var all = false

    @Argument(help: ArgumentHelp("The first address to probe.", valueName: "FIRST"))
    var first: String?

    @Argument(help: ArgumentHelp("The last address to probe.", valueName: "LAST"))
    var last: String?

    func validate() throws {
      if bus == nil && board == nil { throw ValidationError("give the bus to scan: --bus /dev/i2c-N or --board BOARD.toml") }
      if bus != nil && board != nil { throw ValidationError("--bus and --board exclude each other") }
      if board != nil && (mux != nil || channel != nil) {
        throw ValidationError("--mux and --channel come from the board file with --board")
      }
      _ = try range()
      _ = try behind()
    }

    func range() throws -> ClosedRange<UInt8> {
      let defaults: ClosedRange<UInt8> = all ? 0x00...0x7F : BusScanner.defaultRange
      let lo = try first.map { try I2CNumber.address($0, field: "first address") } ?? defaults.lowerBound
      let hi = try last.map { try I2CNumber.address($0, field: "last address") } ?? defaults.upperBound
      guard lo <= hi else {
        throw ValidationError("first address \(I2CNumber.hex(lo)) is after last address \(I2CNumber.hex(hi))")
      }
      return lo...hi
    }

    func behind() throws -> MuxChannel? {
      guard mux != nil || channel != nil else { return nil }
      let address = try mux.map { try I2CNumber.address($0, field: "--mux", range: 0x70...0x77) } ?? 0x70
      guard let channel else { throw ValidationError("--mux needs --channel N (0...7)") }
      guard (0...7).contains(channel) else { throw OptionBounds.outOfRange("--channel", channel, allowed: "0...7") }
      return MuxChannel(mux: I2CAddress(address), channel: channel)
    }

    func run() throws {
      if let board { return try scanBoard(board) }
      let path = BusName.path(bus ?? "")
      let range = try range()
      let behind = try behind()
      let linux: LinuxI2CBus
      do {
        linux = try LinuxI2CBus(path: path)
      } catch {
        throw CommandFailure(message: error.description, status: .error)
      }
      var target = linux
      let scan: BusScan
      do {
        scan = try BusScanner.scan(&target, range: range, behind: behind) { linux.claimedByDriver($0) }
      } catch {
        throw CommandFailure(message: "\(path): \(error)", status: .error)
      }
      Self.show(scan, on: path + " (" + (linux.usesCombinedTransfers ? "I2C" : "SMBus only") + ")")
    }

    func scanning(_ config: DriverConfiguration, _ body: () throws(BusScanError) -> BoardScan) throws -> BoardScan {
      do throws(BusScanError) {
        return try body()
      } catch {
        throw CommandFailure(message: "\(config.bus): \(error)", status: .error)
      }
    }

    static func show(_ scan: BusScan, on bus: String) {
      var header = bus
      if let behind = scan.behind { header += ", " + behind.description }
      print(header)
      print(ScanTable.grid(scan), terminator: "")
      let listing = ScanTable.listing(scan)
      if !listing.isEmpty { print("\n" + listing, terminator: "") }
    }

    /// Scans a board's bus and checks every chip the board names; fails
    /// naming the first chip that is not as the board says.
    func scanBoard(_ path: String) throws {
      let b = try Board.load(path: path)
      let config = try b.driverConfiguration
      let report: BoardScan
      let header: String
      let range = try range()
      if case .simulatedTwin(_, let parameters) = b.frontEnd {
        // A simulated twin: its simulated chips, wired as the board says.
        let hardware = try FrontEndFactory.simulatedHardware(
          board: b, configuration: config, parameters: parameters, options: RunOptions(speed: 0))
        var bus = hardware.bus
        report = try scanning(config) { () throws(BusScanError) in try BoardScanner.scan(config, on: &bus, range: range) }
        header = "\(config.bus) (simulated)"
      } else {
        let linux = try LinuxI2CBus.open(board: b, config: config)
        var bus = linux
        report = try scanning(config) { () throws(BusScanError) in
          try BoardScanner.scan(config, on: &bus, range: range) { linux.claimedByDriver($0) }
        }
        header = "\(config.bus)" + " (" + (linux.usesCombinedTransfers ? "I2C" : "SMBus only") + ")"
      }
      for (i, segment) in report.segments.enumerated() {
        if i > 0 { print("") }
        Self.show(segment, on: header)
      }
      let n = report.chips.count
      print("\nboard \(b.name): \(n) chip\(n == 1 ? "" : "s")")
      for (chip, status) in report.chips {
        if case .found(let id?) = status, id.note != nil {
          print("  ok       \(chip.location): \(id.summary)")
        } else {
          print((status.isOK ? "  ok       " : "  FAILED   ") + (status.isOK ? chip.location.description : BoardScanner.message(chip, status)))
        }
      }
      let problems = report.problems
      if let first = problems.first {
        let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
        throw CommandFailure(message: BoardScanner.message(first.chip, first.status) + more, status: .error)
      }
    }
  }
}
