import ForceCore

/// Frames from a raw recording (docs/formats.md): replay runs the
/// same scan loop as a live panel, at the recording's own times.
public struct RecordingFrontEnd: FrontEnd {
  public let path: String
  public let cellCount: Int
  public let hasTemperature: Bool
  public private(set) var health = FrontEndHealth()
  var reader: RecordingReader
  var sequence: UInt32 = 0

  /// Opens `path` and checks that it has `board`'s cells.
  public init(path: String, board: Board) throws(FileError) {
    self.path = path
    reader = try RecordingReader(path: path)
    cellCount = reader.header.cellCount
    hasTemperature = reader.header.hasTemperature
    if cellCount != board.cellCount {
      throw FileError(
        file: path, line: 1, field: "header",
        message: "has \(cellCount) raw columns, board \"\(board.name)\" has \(board.cellCount) cells")
    }
  }

  /// How much of the recording has been replayed, 0...1. Copies of this
  /// front end share the reader, so a copy kept aside follows a running loop.
  public var fractionRead: Double { reader.fractionRead }

  /// What the recording holds that replay skips (columns other programs
  /// added), one warning each.
  public var warnings: [FileError] { reader.warnings }

  public mutating func start() throws(FrontEndError) {}

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    let row: (tUs: Int64, temperatureC: Double?)?
    do throws(FileError) {
      var counts = frame.counts.mutableSpan
      row = try counts.withUnsafeMutableBufferPointer { (buffer) throws(FileError) in
        try reader.next(into: buffer)
      }
    } catch {
      throw .source(error.description)
    }
    guard let row else { return false }
    frame.cellCount = cellCount
    frame.time = Time_us(rawValue: row.tUs)
    frame.sequence = sequence
    sequence &+= 1
    if let c = row.temperatureC {
      frame.temperature = Temperature_C(celsius: c)
      frame.hasTemperature = true
    } else {
      frame.hasTemperature = false
    }
    frame.valid = true
    health.frames += 1
    return true
  }
}
