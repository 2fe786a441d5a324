import ForceCore
import PanelFiles

/// Frames from a raw recording (docs/formats.md): replay runs the
/// same scan loop as a live panel, at the recording's own times.
public struct RecordingFrontEnd: FrontEnd {
  public let path: String
  public let cellCount: Int
  public let hasTemperature: Bool
  public private(set) var health = FrontEndHealth()
  var reader: RecordingReader
  var sequence: UInt32 = 0

  /// Opens `path` and checks that it has the `cells` of the board named
  /// `board` (PanelFormats' `init(path:board:)` passes a board's).
  public init(path: String, cells: Int, board: String) throws(FileError) {
    self.path = path
    reader = try RecordingReader(path: path)
    cellCount = reader.header.cellCount
    pending = RawFrame(cellCount: cellCount)
    hasTemperature = reader.header.hasTemperature
    if cellCount != cells {
      throw FileError(
        file: path, line: 1, field: "header",
        message: "has \(cellCount) raw columns, board \(Quote.text(board)) has \(cells) cells")
    }
  }

  /// How much of the recording has been replayed, 0...1. Copies of this
  /// front end share the reader, so a copy kept aside follows a running loop.
  public var fractionRead: Double { reader.fractionRead }

  /// A `.partial` recording's cut-off last row, left out (one line), or nil.
  public var cutOffNote: String? { reader.cutOffNote }

  /// What the recording holds that replay skips (columns other programs
  /// added), one warning each.
  public var warnings: [FileError] { reader.warnings }

  public mutating func start() throws(FrontEndError) {}

  /// The row after the frame last delivered: read one ahead, so that the
  /// last row is known to be the last when it is delivered (`isAtEnd`),
  /// and a malformed row ends the run at the row before it.
  enum Lookahead {
    case unread, ready, end
    case failed(FrontEndError)
  }
  var ahead = Lookahead.unread
  var pending: RawFrame

  public var isAtEnd: Bool {
    switch ahead {
    case .end, .failed: return true
    case .unread, .ready: return false
    }
  }

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    if case .unread = ahead { readAhead() }
    switch ahead {
    case .unread, .end: return false
    case .failed(let error): throw error
    case .ready: break
    }
    swap(&frame, &pending)
    health.frames += 1
    readAhead()
    return true
  }

  /// Reads the next row into `pending`.
  mutating func readAhead() {
    let row: (tUs: Int64, temperatureC: Double?)?
    // A copy of the reader reads on (it shares the file and position).
    var reader = self.reader
    do throws(FileError) {
      var counts = pending.counts.mutableSpan
      row = try counts.withUnsafeMutableBufferPointer { (buffer) throws(FileError) in
        try reader.next(into: buffer)
      }
    } catch {
      ahead = .failed(.source(error.description))
      return
    }
    guard let row else {
      ahead = .end
      return
    }
    pending.cellCount = cellCount
    pending.time = Time_us(rawValue: row.tUs)
    pending.sequence = sequence
    sequence &+= 1
    if let c = row.temperatureC {
      pending.temperature = Temperature_C(celsius: c)
      pending.hasTemperature = true
    } else {
      pending.hasTemperature = false
    }
    pending.valid = true
    ahead = .ready
  }
}
