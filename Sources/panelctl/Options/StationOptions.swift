import ArgumentParser
import PanelFactory
import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// Where a calibration's row goes and who made it: `--db`, `--station`,
/// `--fixture`, `--operator`, `--lot` (docs/factory.md).
struct StationOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The factory database: a SQLite file, postgres://USER@HOST[:PORT]/DB, or none (default: factory.sqlite beside the record).",
      valueName: "DB"))
  var db: String?

  @Option(name: .long, help: "This station's id (default: the host's name).")
  var station: String?

  @Option(name: .long, help: "The fixture's id.")
  var fixture: String?

  @Option(name: .customLong("operator"), help: "Who calibrates (an operator id).")
  var operatorID: String?

  @Option(name: .long, help: "The lot of the panel's force cells.")
  var lot: String?

  func validate() throws {
    for (name, value) in [("--station", station), ("--fixture", fixture), ("--operator", operatorID), ("--lot", lot)] {
      if let value, value.isEmpty || value.count > 200 || value.unicodeScalars.contains(where: { $0.value < 0x20 }) {
        throw ValidationError("\(name): 1 to 200 printable characters")
      }
    }
    if let db, db.isEmpty { throw ValidationError("--db: a SQLite file, postgres://... or none") }
  }

  /// The database for a record at `cal`, nil when off.
  func database(besideRecord cal: String) -> String? {
    if db == "none" { return nil }
    return db ?? Paths.directory(of: cal) + "factory.sqlite"
  }

  /// The station's id.
  var stationID: String {
    if let station { return station }
    var name = [CChar](repeating: 0, count: 256)
    guard gethostname(&name, name.count - 1) == 0 else { return "station" }
    let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return host.isEmpty ? "station" : host
  }
}

/// The factory database's location for the `factory` commands.
struct DatabaseOption: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "A SQLite file or postgres://USER@HOST[:PORT]/DB (default: calibration/factory.sqlite).", valueName: "DB"))
  var db: String = "calibration/factory.sqlite"
}
