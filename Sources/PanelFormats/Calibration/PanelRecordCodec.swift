#if canImport(Glibc)
  import Glibc
#endif

/// The calibration as the panel's EEPROM holds it: a compact binary copy of
/// what the runtime needs (little-endian):
///
///     offset  bytes  field
///     0       4      magic "FPCR"
///     4       1      layout version (1)
///     5       1      cell count n
///     6       2      length of the copy, CRC included
///     8       4      sequence number (newer copies have larger ones)
///     12      4      calibration date, seconds since 1970 (UTC)
///     16      4      CRC-32 of the board's name
///     20      20     serial number (UTF-8, zero-padded)
///     40      2      reference temperature, 1/256 degC (signed)
///     42      1      flags: bit 0 = coupling matrix follows the cells,
///                    bit 1 = contact model follows (grids)
///     43      1      0
///     44      20 n   per cell, Float32: offset (counts), gain (counts/N),
///                    linearity (1/N), tcZero (counts/degC), tcSpan (1/degC)
///     ..      4 n n  coupling matrix, Float32, row-major (with flag bit 0)
///     ..      8      contact model (with flag bit 1): capture scale Float32,
///                    radius (cells) UInt8, capture slope Int16 (Q12),
///                    merge saddle UInt8 (/255, 0 = the board's)
///     end-4   4      CRC-32 (IEEE) of every byte before it
///
/// A 24C02 (256 bytes, two copies of 128) holds a 4-cell plate; a 24C32
/// (two copies of 2048) holds up to 100 cells.
public enum PanelRecordCodec {
  public static let magic: [UInt8] = Array("FPCR".utf8)
  public static let layoutVersion: UInt8 = 1
  public static let headerSize = 44
  public static let serialSize = 20

  /// Bytes of a copy for `cells` cells.
  public static func size(cells: Int, coupling: Bool, contact: Bool = false) -> Int {
    headerSize + 20 * cells + (coupling ? 4 * cells * cells : 0) + (contact ? 8 : 0) + 4
  }

  /// Why a record cannot be put on the panel, or a copy cannot be used.
  public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
    case blank
    case notARecord
    case version(UInt8)
    case length(Int)
    case crc(stated: UInt32, computed: UInt32)
    case board(stated: UInt32, expected: UInt32, name: String)
    case cells(Int, expected: Int)
    case serial(String, expected: String)
    case serialTooLong(String)
    case tooLarge(Int, room: Int)
    /// A calibration that failed its checks never replaces one on the panel.
    case failedCalibration

    public var description: String {
      switch self {
      case .blank: return "blank (never written)"
      case .notARecord: return "not a calibration record (no FPCR magic)"
      case .version(let v): return "layout version \(v) is not supported (expected \(PanelRecordCodec.layoutVersion))"
      case .length(let l): return "length \(l) does not fit the copy"
      case .crc(let s, let c): return "CRC mismatch: stored \(hex32(s)), content gives \(hex32(c)) (corrupted or cut off)"
      case .board(let s, let e, let name):
        return "board mismatch: the copy is for board id \(hex32(s)), \"\(name)\" is \(hex32(e))"
      case .cells(let n, let e): return "has \(n) cells, the board has \(e)"
      case .serial(let s, let e): return "serial mismatch: the copy is for panel \"\(s)\", this panel is \"\(e)\""
      case .serialTooLong(let s): return "serial \"\(s)\" is longer than \(PanelRecordCodec.serialSize) bytes"
      case .tooLarge(let n, let room): return "the record needs \(n) bytes, a copy has room for \(room)"
      case .failedCalibration: return "the calibration failed its checks"
      }
    }
  }

  /// The bytes of `record` as copy number `sequence` for `board`.
  public static func encode(_ record: CalibrationRecord, board: Board, sequence: UInt32) throws(Problem) -> [UInt8] {
    let n = record.cells.count
    let serial = Array(record.serial.utf8)
    if serial.count > serialSize { throw .serialTooLong(record.serial) }
    let coupling = record.coupling
    let contact = record.contact
    let length = size(cells: n, coupling: coupling != nil, contact: contact != nil)
    var b: [UInt8] = []
    b.reserveCapacity(length)
    b += magic
    b.append(layoutVersion)
    b.append(UInt8(truncatingIfNeeded: n))
    put16(&b, UInt16(length))
    put32(&b, sequence)
    put32(&b, UInt32(truncatingIfNeeded: epoch(record.created)))
    put32(&b, CRC32.checksum(board.name.utf8))
    b += serial + [UInt8](repeating: 0, count: serialSize - serial.count)
    put16(&b, UInt16(bitPattern: Int16(saturating: (record.referenceTemperature_c * 256).rounded())))
    b.append((coupling == nil ? 0 : 1) | (contact == nil ? 0 : 2))
    b.append(0)
    for c in record.cells {
      for v in [c.offset_counts, c.gain_counts_per_n, c.linearity_per_n, c.tcZero_counts_per_c, c.tcSpan_per_c] {
        put32(&b, Float(v).bitPattern)
      }
    }
    if let coupling { for row in coupling { for v in row { put32(&b, Float(v).bitPattern) } } }
    if let contact {
      put32(&b, Float(contact.captureScale).bitPattern)
      b.append(UInt8(clamping: contact.radius))
      put16(&b, UInt16(bitPattern: Int16(clamping: Int((min(max(contact.captureSlope, -4), 4) * 4096).rounded()))))
      b.append(UInt8(clamping: Int((min(max(contact.mergeSaddle, 0), 1) * 255).rounded())))
    }
    put32(&b, CRC32.checksum(b))
    return b
  }

  /// The record in `bytes` (a whole copy, possibly with trailing space),
  /// checked against `board`, and its sequence number.
  public static func decode(_ bytes: ArraySlice<UInt8>, board: Board) -> Result<(CalibrationRecord, UInt32), Problem> {
    let b = Array(bytes)
    if b.prefix(headerSize).allSatisfy({ $0 == 0xFF }) { return .failure(.blank) }
    guard b.count >= headerSize + 4, Array(b[0..<4]) == magic else { return .failure(.notARecord) }
    guard b[4] == layoutVersion else { return .failure(.version(b[4])) }
    let n = Int(b[5])
    let length = Int(get16(b, 6))
    let hasCoupling = b[42] & 1 != 0
    let hasContact = b[42] & 2 != 0
    guard length == size(cells: n, coupling: hasCoupling, contact: hasContact), length <= b.count else {
      return .failure(.length(length))
    }
    let stated = get32(b, length - 4)
    let computed = CRC32.checksum(b[0..<(length - 4)])
    guard stated == computed else { return .failure(.crc(stated: stated, computed: computed)) }
    let boardID = get32(b, 16)
    let expected = CRC32.checksum(board.name.utf8)
    guard boardID == expected else { return .failure(.board(stated: boardID, expected: expected, name: board.name)) }
    guard n == board.cellCount else { return .failure(.cells(n, expected: board.cellCount)) }
    let serialBytes = b[20..<(20 + serialSize)].prefix { $0 != 0 }
    let serial = String(decoding: serialBytes, as: UTF8.self)
    let reference = Double(Int16(bitPattern: get16(b, 40))) / 256
    func float(_ at: Int) -> Double { Double(Float(bitPattern: get32(b, at))) }
    var cells: [CellParameters] = []
    for k in 0..<n {
      let at = headerSize + 20 * k
      cells.append(
        CellParameters(
          offset_counts: float(at), gain_counts_per_n: float(at + 4), linearity_per_n: float(at + 8),
          tcZero_counts_per_c: float(at + 12), tcSpan_per_c: float(at + 16)))
    }
    var coupling: [[Double]]?
    if hasCoupling {
      let base = headerSize + 20 * n
      coupling = (0..<n).map { i in (0..<n).map { j in float(base + 4 * (i * n + j)) } }
    }
    var contact: ContactModel?
    if hasContact {
      let at = headerSize + 20 * n + (hasCoupling ? 4 * n * n : 0)
      contact = ContactModel(
        radius: max(1, min(8, Int(b[at + 4]))), captureScale: min(max(float(at), 0.5), 4),
        captureSlope: Double(Int16(bitPattern: get16(b, at + 5))) / 4096, mergeSaddle: Double(b[at + 7]) / 255)
    }
    let record = CalibrationRecord(
      board: board.name, serial: serial, created: UTCDate.format(time_t(get32(b, 12))), source: "panel",
      referenceTemperature_c: reference, cells: cells, result: "pass", coupling: coupling, contact: contact)
    return .success((record, get32(b, 8)))
  }

  static func put16(_ b: inout [UInt8], _ v: UInt16) {
    b.append(UInt8(v & 0xFF))
    b.append(UInt8(v >> 8))
  }
  static func put32(_ b: inout [UInt8], _ v: UInt32) {
    for s in stride(from: 0, to: 32, by: 8) { b.append(UInt8((v >> UInt32(s)) & 0xFF)) }
  }
  static func get16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
  static func get32(_ b: [UInt8], _ at: Int) -> UInt32 {
    UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
  }

  /// Seconds since 1970 of an ISO 8601 UTC date ("2026-03-14T09:26:53Z"); 0 when unreadable.
  package static func epoch(_ iso: String) -> Int {
    let digits = iso.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    guard digits.count >= 6 else { return 0 }
    var parts = tm()
    parts.tm_year = Int32(digits[0] - 1900)
    parts.tm_mon = Int32(digits[1] - 1)
    parts.tm_mday = Int32(digits[2])
    parts.tm_hour = Int32(digits[3])
    parts.tm_min = Int32(digits[4])
    parts.tm_sec = Int32(digits[5])
    return max(0, timegm(&parts))
  }
}
