import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats

@Suite("Recording CSV")
struct FilesRecordingTests {
  struct Row: Equatable {
    var tUs: Int64
    var counts: [Int32]
    var temperatureC: Double?
  }

  /// Reads every row of `path`.
  private static func readAll(_ path: String) throws(FileError) -> (RecordingHeader, [Row]) {
    var reader = try RecordingReader(path: path)
    let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reader.header.cellCount)
    defer { counts.deallocate() }
    var rows: [Row] = []
    while let row = try reader.next(into: counts) {
      rows.append(Row(tUs: row.tUs, counts: Array(counts), temperatureC: row.temperatureC))
    }
    return (reader.header, rows)
  }

  /// Writes `rows` with a writer and finishes it.
  private static func writeAll(_ path: String, _ header: RecordingHeader, _ rows: [Row]) throws(FileError) {
    var writer = try RecordingWriter(path: path, header: header)
    for row in rows {
      var failure: FileError?
      row.counts.withUnsafeBufferPointer { counts in
        do throws(FileError) {
          try writer.append(tUs: row.tUs, counts: counts, temperatureC: row.temperatureC)
        } catch {
          failure = error
        }
      }
      if let failure {
        throw failure
      }
    }
    try writer.finish()
  }

  private func failure(_ body: () throws -> Void) -> String? {
    FilesTestSupport.failure(body)
  }

  private func write(_ text: String, in directory: String, name: String = "rec.csv") throws -> String {
    let path = directory + "/" + name
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  @Test func roundTripIsExact() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/rec.csv"
    let header = RecordingHeader(cellCount: 3, hasTemperature: true)
    let rows = [
      Row(tUs: 0, counts: [1, -2, 8_388_607], temperatureC: 24.125),
      Row(tUs: 3125, counts: [-8_388_608, 0, 42], temperatureC: -0.5),
      Row(tUs: 3125, counts: [7, 7, 7], temperatureC: nil),
      Row(tUs: 6250, counts: [100, 200, 300], temperatureC: 123.5),
    ]
    try Self.writeAll(path, header, rows)
    #expect(try FilesTestSupport.contents(of: directory) == ["rec.csv"])
    #expect(
      try FilesTestSupport.text(at: path) == """
        t_us,raw_0,raw_1,raw_2,temp_c
        0,1,-2,8388607,24.125
        3125,-8388608,0,42,-0.500
        3125,7,7,7,
        6250,100,200,300,123.500

        """)
    let (readHeader, readRows) = try Self.readAll(path)
    #expect(readHeader == header)
    #expect(readRows == rows)
  }

  @Test func temperatureIsWrittenWithThreeDecimalsAndReadAsAnyDecimal() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let header = RecordingHeader(cellCount: 1, hasTemperature: true)
    let path = directory + "/t.csv"
    try Self.writeAll(
      path, header,
      [
        Row(tUs: 1, counts: [0], temperatureC: 0.0004),
        Row(tUs: 2, counts: [0], temperatureC: -0.0004),
        Row(tUs: 3, counts: [0], temperatureC: 19.9996),
        Row(tUs: 4, counts: [0], temperatureC: 25),
      ])
    #expect(
      try FilesTestSupport.text(at: path)
        == "t_us,raw_0,temp_c\n1,0,0.000\n2,0,0.000\n3,0,20.000\n4,0,25.000\n")

    let input = try write(
      "t_us,raw_0,temp_c\r\n1,5,24.1\r\n2, -6 ,-3\r\n3,7,.5\r\n4,8,1.25e1\r\n5,9,0.1234567890123456789\r\n\r\n",
      in: directory)
    let (_, rows) = try Self.readAll(input)
    #expect(rows.map(\.temperatureC) == [24.1, -3, 0.5, 12.5, 0.1234567890123456789])
    #expect(rows.map(\.counts) == [[5], [-6], [7], [8], [9]])
  }

  @Test func rowErrorsNameLineAndColumn() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let head = "t_us,raw_0,raw_1,raw_2,temp_c\n0,1,2,3,20.0\n"
    let cases: [(String, String)] = [
      ("10,1,2\n", "3: row has 3 values, the header has 5"),
      ("10,1,2,3,4,5\n", "3: row has 6 values, the header has 5"),
      ("10,1,abc,3,20\n", #"3: column raw_1: "abc" is not an integer"#),
      ("10,1,2,,20\n", #"3: column raw_2: "" is not an integer"#),
      ("1.5,1,2,3,20\n", #"3: column t_us: "1.5" is not an integer"#),
      ("10,1,2,8388608,20\n", "3: column raw_2: 8388608 is outside the 24-bit range -8388608...8388607"),
      ("10,-9999999999999999999,2,3,20\n",
       "3: column raw_0: -9999999999999999999 is outside the 24-bit range -8388608...8388607"),
      ("10,1,2,3,warm\n", #"3: column temp_c: "warm" is not a decimal number"#),
      ("\n\n-5,1,2,3,20\n", "5: t_us goes backwards (-5 after 0)"),
    ]
    for (index, (row, expected)) in cases.enumerated() {
      let path = try write(head + row, in: directory, name: "case\(index).csv")
      #expect(failure { _ = try Self.readAll(path) } == "\(path):\(expected)")
    }
  }

  @Test func headerErrorsNameTheColumn() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let cases: [(String, String)] = [
      ("time,raw_0\n", #":1: column 1: expected t_us, found "time""#),
      ("t_us,raw_0,raw_2\n", #":1: column 3: expected raw_1 or temp_c, found "raw_2""#),
      ("t_us,temp_c\n", #":1: column 2: expected raw_0, found "temp_c""#),
      ("t_us,raw_0,temp_c,raw_1\n", ":1: column 4: raw_1 comes after temp_c: the raw_ columns come first, right after t_us"),
      ("t_us\n", ":1: the header has no raw_ columns (expected t_us,raw_0,...)"),
      ("", ": empty file (expected a header row t_us,raw_0,...)"),
    ]
    for (index, (text, expected)) in cases.enumerated() {
      let path = try write(text, in: directory, name: "header\(index).csv")
      #expect(failure { _ = try RecordingReader(path: path) } == path + expected)
    }
    #expect(
      failure { _ = try RecordingReader(path: directory + "/missing.csv") }
        == "\(directory)/missing.csv: no such file")
  }

  @Test func headerWithoutTemperatureIsRead() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = try write("t_us,raw_0,raw_1\n0,1,2\n5,3,4", in: directory)
    let (header, rows) = try Self.readAll(path)
    #expect(header == RecordingHeader(cellCount: 2, hasTemperature: false))
    #expect(rows == [Row(tUs: 0, counts: [1, 2], temperatureC: nil), Row(tUs: 5, counts: [3, 4], temperatureC: nil)])
  }

  @Test func copiesOfAReaderShareThePosition() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = try write("t_us,raw_0\n1,10\n2,20\n3,30\n", in: directory)
    var first = try RecordingReader(path: path)
    var second = first
    let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 1)
    defer { counts.deallocate() }
    #expect(try first.next(into: counts)?.tUs == 1)
    #expect(try second.next(into: counts)?.tUs == 2)
    #expect(counts[0] == 20)
    #expect(try first.next(into: counts)?.tUs == 3)
    #expect(try second.next(into: counts) == nil)
    #expect(
      failure { _ = try first.next(into: UnsafeMutableBufferPointer(rebasing: counts[0..<0])) }
        == "\(path): next(into:) needs room for 1 counts, got 0")
  }

  @Test func hundredThousandRows() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/big.csv"
    let cellCount = 4
    var writer = try RecordingWriter(path: path, header: RecordingHeader(cellCount: cellCount, hasTemperature: true))
    let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: cellCount)
    defer { counts.deallocate() }
    var expectedSum: Int64 = 0
    for row in 0..<100_000 {
      for cell in 0..<cellCount {
        let value = Int32((row * 7919 + cell * 104_729) % 16_777_216) - 8_388_608
        counts[cell] = value
        expectedSum &+= Int64(value)
      }
      try writer.append(
        tUs: Int64(row) * 3125, counts: UnsafeBufferPointer(counts), temperatureC: 20 + Double(row % 1000) / 1000)
    }
    #expect(writer.rowCount == 100_000)
    try writer.finish()

    var reader = try RecordingReader(path: path)
    var rows = 0
    var sum: Int64 = 0
    var lastTime: Int64 = -1
    var temperatureMatches = true
    while let row = try reader.next(into: counts) {
      for cell in 0..<cellCount {
        sum &+= Int64(counts[cell])
      }
      // Written with three decimals: read back as the nearest Double to that decimal.
      let written = 20 + Double(rows % 1000) / 1000
      if let temperature = row.temperatureC, abs(temperature - written) < 1e-9 {
      } else {
        temperatureMatches = false
      }
      lastTime = row.tUs
      rows += 1
    }
    #expect(rows == 100_000)
    #expect(sum == expectedSum)
    #expect(lastTime == 99_999 * 3125)
    #expect(temperatureMatches)
  }

  @Test func rowsWiderThanTheReadBuffer() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/wide.csv"
    let cellCount = 40_000  // about 360 KB per row, more than one read chunk
    var rows: [Row] = []
    for row in 0..<3 {
      var counts: [Int32] = []
      for cell in 0..<cellCount {
        let value: Int = (cell * 31 + row) % 16_000_000 - 8_000_000
        counts.append(Int32(value))
      }
      rows.append(Row(tUs: Int64(row), counts: counts, temperatureC: nil))
    }
    try Self.writeAll(path, RecordingHeader(cellCount: cellCount, hasTemperature: false), rows)
    let (header, readRows) = try Self.readAll(path)
    #expect(header.cellCount == cellCount)
    #expect(readRows == rows)
  }

  @Test func droppedWriterLeavesThePartialFile() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/rec.csv"
    do {
      var writer = try RecordingWriter(path: path, header: RecordingHeader(cellCount: 2, hasTemperature: false))
      try [Int32(1), 2].withUnsafeBufferPointer { counts in
        try writer.append(tUs: 10, counts: counts, temperatureC: nil)
      }
      try writer.flush()
      #expect(try FilesTestSupport.contents(of: directory) == ["rec.csv.partial"])
      try [Int32(3), 4].withUnsafeBufferPointer { counts in
        try writer.append(tUs: 20, counts: counts, temperatureC: 5)
      }
    }
    #expect(try FilesTestSupport.contents(of: directory) == ["rec.csv.partial"])
    #expect(try FilesTestSupport.text(at: path + ".partial") == "t_us,raw_0,raw_1\n10,1,2\n20,3,4\n")
  }

  @Test func writerRejectsRowsTheReaderWouldReject() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/rec.csv"
    let header = RecordingHeader(cellCount: 2, hasTemperature: true)
    #expect(
      failure { try Self.writeAll(path, header, [Row(tUs: 5, counts: [1, 8_388_608], temperatureC: nil)]) }
        == "\(path):2: column raw_1: 8388608 is outside the 24-bit range -8388608...8388607")
    #expect(
      failure {
        try Self.writeAll(
          path, header, [Row(tUs: 5, counts: [1, 2], temperatureC: nil), Row(tUs: 4, counts: [1, 2], temperatureC: nil)])
      } == "\(path):3: t_us goes backwards (4 after 5)")
    #expect(
      failure { try Self.writeAll(path, header, [Row(tUs: 5, counts: [1], temperatureC: nil)]) }
        == "\(path):2: append got 1 counts, the header has 2 cells")
    #expect(
      failure { try Self.writeAll(path, header, [Row(tUs: Int64(1) << 62, counts: [1, 2], temperatureC: nil)]) }
        == "\(path):2: column t_us: 4611686018427387904 is outside |t_us| < 2^62")
    #expect(
      failure { _ = try RecordingWriter(path: directory + "/no/such/rec.csv", header: header) }
        == "\(directory)/no/such/rec.csv.partial: cannot create: No such file or directory")
  }

  /// A byte order mark (spreadsheets write one) is not part of the header.
  @Test func aByteOrderMarkBeforeTheHeaderIsSkipped() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = try write("\u{FEFF}t_us,raw_0,temp_c\n1,5,24.5\n", in: directory)
    let (header, rows) = try Self.readAll(path)
    #expect(header == RecordingHeader(cellCount: 1, hasTemperature: true))
    #expect(rows == [Row(tUs: 1, counts: [5], temperatureC: 24.5)])
  }

  /// Columns another program added after the contract's are skipped with
  /// a warning naming them; the contract's columns out of place are errors.
  @Test func columnsAfterTheContractsAreSkippedWithAWarning() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = try write("t_us,raw_0,raw_1,temp_c,fixture_mm, note\n1,5,6,24.5,12.5,x\n2,7,8,,,\n", in: directory)
    var reader = try RecordingReader(path: path)
    #expect(reader.extraColumns == ["fixture_mm", "note"])
    #expect(
      reader.warnings.map(\.description) == [
        "\(path):1: column 5: \"fixture_mm\" is not a recording column: ignored",
        "\(path):1: column 6: \"note\" is not a recording column: ignored",
      ])
    let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 2)
    defer { counts.deallocate() }
    let first = try #require(try reader.next(into: counts))
    #expect(first.tUs == 1 && first.temperatureC == 24.5 && Array(counts) == [5, 6])
    let second = try #require(try reader.next(into: counts))
    #expect(second.tUs == 2 && second.temperatureC == nil && Array(counts) == [7, 8])
    let cases: [(String, String)] = [
      ("t_us,raw_0,note,raw_1\n", #":1: column 4: raw_1 comes after "note": the raw_ columns come first, right after t_us"#),
      ("t_us,raw_0,temp_c,temp_c\n", ":1: column 4: temp_c appears twice"),
      ("t_us,raw_0,x\n1,2\n", ":2: row has 2 values, the header has 3"),
    ]
    for (index, (text, expected)) in cases.enumerated() {
      let bad = try write(text, in: directory, name: "extra\(index).csv")
      #expect(failure { _ = try Self.readAll(bad) } == bad + expected)
    }
  }

  /// Times are held within +-2^62 us (so any two differ by an Int64) and
  /// temperatures within the range a session step may set.
  @Test func timesAndTemperaturesOutsideTheirBoundsAreRefused() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let limit = "-4611686018427387903...4611686018427387903 (|t_us| < 2^62)"
    let cases: [(String, String)] = [
      ("t_us,raw_0\n-9000000000000000000,1\n0,1\n", ":2: column t_us: -9000000000000000000 is outside \(limit)"),
      ("t_us,raw_0\n0,1\n4611686018427387904,1\n", ":3: column t_us: 4611686018427387904 is outside \(limit)"),
      ("t_us,raw_0,temp_c\n0,1,150.5\n", ":2: column temp_c: 150.5 is outside -60...150 degC"),
      ("t_us,raw_0,temp_c\n0,1,-1e300\n", ":2: column temp_c: -1e300 is outside -60...150 degC"),
    ]
    for (index, (text, expected)) in cases.enumerated() {
      let path = try write(text, in: directory, name: "bound\(index).csv")
      #expect(failure { _ = try Self.readAll(path) } == path + expected)
    }
    let edge = try write("t_us,raw_0,temp_c\n-4611686018427387903,1,-60\n4611686018427387903,1,150\n", in: directory)
    #expect(try Self.readAll(edge).1.map(\.tUs) == [-4_611_686_018_427_387_903, 4_611_686_018_427_387_903])
  }

  /// A temperature the reader would refuse (a sensor glitch) is recorded
  /// as no reading: the recording goes on and stays readable.
  @Test func aTemperatureOutsideItsBoundIsRecordedAsNoReading() throws {
    let directory = try FilesTestSupport.makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/t.csv"
    try Self.writeAll(
      path, RecordingHeader(cellCount: 1, hasTemperature: true),
      [
        Row(tUs: 1, counts: [0], temperatureC: .nan), Row(tUs: 2, counts: [0], temperatureC: 200),
        Row(tUs: 3, counts: [0], temperatureC: 21),
      ])
    #expect(try FilesTestSupport.text(at: path) == "t_us,raw_0,temp_c\n1,0,\n2,0,\n3,0,21.000\n")
    #expect(try Self.readAll(path).1.map(\.temperatureC) == [nil, nil, 21])
  }
}
