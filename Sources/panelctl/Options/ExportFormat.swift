import ArgumentParser
import PanelFactory

/// `factory export --format`.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
  case ndjson, csv

  func text(_ rows: [CalibrationRow]) throws -> String {
    switch self {
    case .ndjson: return try ExportRows.ndjson(rows)
    case .csv: return ExportRows.csv(rows)
    }
  }

  static func json(_ row: CalibrationRow) throws -> String { try ExportRows.json(row) }
}
