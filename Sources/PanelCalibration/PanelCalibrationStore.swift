import PanelFormats
import PanelHardware

/// Why the calibration could not be stored on the panel.
public enum PanelStoreError: Error, Equatable, Sendable, CustomStringConvertible {
  case record(PanelRecordCodec.Problem)
  case eeprom(copy: Int, EEPROMError)
  /// What was read back differs from what was written.
  case verify(copy: Int, offset: Int)

  public var description: String {
    switch self {
    case .record(let p): return "cannot store the calibration on the panel: \(p)"
    case .eeprom(let copy, let e): return "writing copy \(copy) of the calibration to the panel failed: \(e)"
    case .verify(let copy, let offset):
      return "copy \(copy) of the calibration read back different at byte \(offset) (the EEPROM does not hold it)"
    }
  }
}

/// What the panel's EEPROM holds.
public struct PanelReadout: Sendable {
  /// The newest valid copy, if any.
  public var record: CalibrationRecord?
  public var sequence: UInt32?
  /// Which copy (1 or 2) it came from.
  public var copy: Int?
  /// Copies that could not be used, and why ("copy 2: CRC mismatch ...").
  public var problems: [String]

  package init(record: CalibrationRecord? = nil, sequence: UInt32? = nil, copy: Int? = nil, problems: [String]) {
    self.record = record
    self.sequence = sequence
    self.copy = copy
    self.problems = problems
  }
}

/// The panel's calibration in its 24C02/24C32 EEPROM: two copies, one in
/// each half, each with a sequence number and a CRC-32.
///
/// Writing a new calibration overwrites the older copy (or a bad one)
/// first, reads it back and compares, then does the same with the other
/// copy. Power lost at any byte therefore leaves at least one whole copy:
/// the previous calibration while the first copy is being written, the new
/// one afterwards. Reading takes the valid copy with the highest sequence
/// number and reports what is wrong with the other.
public struct PanelCalibrationStore: Sendable {
  public let eeprom: EEPROM24
  public init(eeprom: EEPROM24) { self.eeprom = eeprom }

  /// Bytes per copy (half the EEPROM).
  public var copySize: Int { eeprom.size / 2 }
  func offset(ofCopy copy: Int) -> Int { (copy - 1) * copySize }

  /// Reads both copies. Never throws: an unreadable EEPROM is a problem
  /// reported in the readout (the file is the fallback).
  public func read(on bus: inout some I2CBus, board: Board) -> PanelReadout {
    var readout = PanelReadout(problems: [])
    for copy in 1...2 {
      let bytes: [UInt8]
      do {
        bytes = try eeprom.read(at: offset(ofCopy: copy), count: copySize, on: &bus)
      } catch {
        readout.problems.append("copy \(copy): \(error)")
        continue
      }
      switch PanelRecordCodec.decode(bytes[...], board: board) {
      case .success(let (record, sequence)):
        if readout.sequence.map({ sequence > $0 }) ?? true {
          readout.record = record
          readout.sequence = sequence
          readout.copy = copy
        }
      case .failure(let problem):
        readout.problems.append("copy \(copy): \(problem)")
      }
    }
    return readout
  }

  /// Stores `record` in both copies (see the type), returning its sequence number.
  @discardableResult
  public func write(
    _ record: CalibrationRecord, board: Board, on bus: inout some I2CBus, clock: inout some MonotonicClock
  ) throws(PanelStoreError) -> UInt32 {
    if record.result == "fail" { throw .record(.failedCalibration) }
    let size = PanelRecordCodec.size(
      cells: record.cells.count, coupling: record.coupling != nil, contact: record.contact != nil)
    if size > copySize { throw .record(.tooLarge(size, room: copySize)) }
    // Which copy holds what now.
    var sequences: [Int: UInt32] = [:]
    for copy in 1...2 {
      if let bytes = try? eeprom.read(at: offset(ofCopy: copy), count: copySize, on: &bus),
        case .success(let (_, s)) = PanelRecordCodec.decode(bytes[...], board: board)
      {
        sequences[copy] = s
      }
    }
    let sequence = (sequences.values.max() ?? 0) &+ 1
    let bytes: [UInt8]
    do {
      bytes = try PanelRecordCodec.encode(record, board: board, sequence: sequence)
    } catch {
      throw .record(error)
    }
    // The older (or unusable) copy first; the newest valid one is kept until then.
    let first: Int
    switch (sequences[1], sequences[2]) {
    case (nil, _): first = 1
    case (_, nil): first = 2
    case (let a?, let b?): first = a <= b ? 1 : 2
    }
    for copy in [first, 3 - first] {
      do {
        try eeprom.write(bytes, at: offset(ofCopy: copy), on: &bus, clock: &clock)
      } catch {
        throw .eeprom(copy: copy, error)
      }
      let back: [UInt8]
      do {
        back = try eeprom.read(at: offset(ofCopy: copy), count: bytes.count, on: &bus)
      } catch {
        throw .eeprom(copy: copy, error)
      }
      if let i = back.indices.first(where: { back[$0] != bytes[$0] }) { throw .verify(copy: copy, offset: i) }
    }
    return sequence
  }
}
