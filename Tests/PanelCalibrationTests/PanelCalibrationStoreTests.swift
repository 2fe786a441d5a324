import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFormats
@testable import PanelHardware
@testable import PanelSimulation

/// The calibration on the panel's EEPROM: two copies with sequence numbers,
/// written so that power lost at any byte leaves a whole copy, read so that
/// a corrupted copy is detected and the other used.
@Suite struct PanelCalibrationStoreTests {
  struct Bench {
    let bus: SimulatedI2CBus
    let chip: SimulatedEEPROM
    let store: PanelCalibrationStore

    init(_ kind: EEPROM24.Kind, contents: [UInt8]? = nil) {
      bus = SimulatedI2CBus(timing: I2CBusTiming(khz: 400, hostOverhead_us: 50))
      chip = SimulatedEEPROM(kind: kind, address: 0x50, contents: contents)
      bus.attach(chip)
      store = PanelCalibrationStore(eeprom: EEPROM24(kind: kind, address: 0x50))
    }

    func write(_ record: CalibrationRecord, board: Board) throws(PanelStoreError) -> UInt32 {
      var b = bus
      var clock = bus.clock
      return try store.write(record, board: board, on: &b, clock: &clock)
    }

    func read(_ board: Board) -> PanelReadout {
      var b = bus
      return store.read(on: &b, board: board)
    }
  }

  /// The simulator's true calibration of `name`, as a passed calibration.
  static func record(_ name: String, created: String = "2026-03-14T09:26:53Z", scale: Double = 1) throws -> (Board, CalibrationRecord) {
    let board = try Repo.board(name)
    let panel = try FrontEndFactory.simulatedPanel(board: board, options: RunOptions(speed: 0))
    var record = panel.trueCalibration(created: created)
    record.result = "pass"
    for k in record.cells.indices { record.cells[k].gain_counts_per_n *= scale }
    return (board, record)
  }

  /// What survives a trip through Float32 must equal what was stored.
  static func expectSame(_ a: CalibrationRecord?, _ b: CalibrationRecord, _ comment: Comment? = nil) {
    guard let a else {
      Issue.record("no record read back. \(comment.map { "\($0)" } ?? "")")
      return
    }
    #expect(a.serial == b.serial && a.board == b.board && a.created == b.created, comment)
    #expect(a.cells.count == b.cells.count, comment)
    for (x, y) in zip(a.cells, b.cells) {
      #expect(abs(x.gain_counts_per_n / y.gain_counts_per_n - 1) < 1e-6, comment)
      #expect(abs(x.offset_counts - y.offset_counts) < 0.02, comment)
      #expect(abs(x.linearity_per_n - y.linearity_per_n) < 1e-9, comment)
      #expect(abs(x.tcSpan_per_c - y.tcSpan_per_c) < 1e-10, comment)
    }
  }

  @Test func aPlateFitsTwiceIntoA24C02AndAGridIntoA24C32() throws {
    let (plate, p) = try Self.record("sim-plate4")
    let (grid, g) = try Self.record("sim-grid")
    #expect(try PanelRecordCodec.encode(p, board: plate, sequence: 1).count <= 128)
    #expect(try PanelRecordCodec.encode(g, board: grid, sequence: 1).count <= 2048)
    let small = Bench(.c02)
    #expect(throws: PanelStoreError.record(.tooLarge(1016, room: 128))) { try small.write(g, board: grid) }
    for (kind, board, record) in [(EEPROM24.Kind.c02, plate, p), (.c32, grid, g)] {
      let bench = Bench(kind)
      #expect(try bench.write(record, board: board) == 1)
      let r = bench.read(board)
      Self.expectSame(r.record, record)
      #expect(r.sequence == 1)
      #expect(r.problems.isEmpty, "\(r.problems)")
      // The second calibration gets the next number.
      #expect(try bench.write(record, board: board) == 2)
      #expect(bench.read(board).sequence == 2)
    }
  }

  /// Power lost at every data byte of the write: while the first copy is
  /// written, the previous calibration stays in use; after it, the new one.
  @Test(arguments: EEPROM24.Kind.allCases)
  func aWriteCutOffAtAnyByteLeavesAWholeCopy(_ kind: EEPROM24.Kind) throws {
    let (board, old) = try Self.record("sim-plate4", created: "2026-01-01T00:00:00Z")
    let (_, new) = try Self.record("sim-plate4", created: "2026-02-01T00:00:00Z", scale: 1.01)
    let size = try PanelRecordCodec.encode(new, board: board, sequence: 1).count
    let image: [UInt8] = try {
      let bench = Bench(kind)
      _ = try bench.write(old, board: board)
      return bench.chip.memory
    }()
    for cut in 0..<(2 * size) {
      let bench = Bench(kind, contents: image)
      bench.chip.cutPower(afterDataBytes: cut)
      #expect(throws: PanelStoreError.self, "cut after \(cut) bytes") { try bench.write(new, board: board) }
      bench.chip.restorePower()
      let r = bench.read(board)
      Self.expectSame(r.record, cut < size ? old : new, "cut after \(cut) of \(2 * size) bytes")
      if cut < size { #expect(r.sequence == 1) } else { #expect(r.sequence == 2) }
      // A later calibration still goes through.
      #expect(try bench.write(new, board: board) >= 2)
    }
  }

  @Test func aCorruptedCopyIsDetectedAndTheOtherUsed() throws {
    let (board, record) = try Self.record("sim-plate4")
    let clean = Bench(.c02)
    _ = try clean.write(record, board: board)
    for copy in [1, 2] {
      var image = clean.chip.memory
      image[(copy - 1) * 128 + 68] ^= 0x10  // a bit of cell 1's gain
      let bench = Bench(.c02, contents: image)
      let r = bench.read(board)
      Self.expectSame(r.record, record)
      #expect(r.copy == 3 - copy)
      #expect(r.problems.count == 1)
      #expect(r.problems.first?.hasPrefix("copy \(copy): CRC mismatch") == true, "\(r.problems)")
    }
    // Both corrupted: no panel record, and the lookup falls back to the file.
    var image = clean.chip.memory
    image[10] ^= 1
    image[128 + 100] ^= 1
    let r = Bench(.c02, contents: image).read(board)
    #expect(r.record == nil)
    #expect(r.problems.count == 2)
    let found = try CalibrationLookup.find(board: board, explicitPath: nil, panel: r)
    #expect(found.origin.hasSuffix("calibration/sim-plate4.toml"))
    #expect(found.notes.count == 2)
  }

  @Test func copiesForAnotherBoardOrBlankAreRefusedSayingWhich() throws {
    let (plate, record) = try Self.record("sim-plate4")
    let bench = Bench(.c32)
    var r = bench.read(plate)
    #expect(r.record == nil)
    #expect(r.problems == ["copy 1: blank (never written)", "copy 2: blank (never written)"])
    _ = try bench.write(record, board: plate)
    var other = plate
    other.name = "another-plate"
    r = bench.read(other)
    #expect(r.record == nil)
    #expect(r.problems.first?.contains("board mismatch") == true, "\(r.problems)")
    // A failed calibration is never written over a good one.
    var failed = record
    failed.result = "fail"
    #expect(throws: PanelStoreError.record(.failedCalibration)) { try bench.write(failed, board: plate) }
    #expect(bench.read(plate).sequence == 1)
  }

  @Test func thePanelCopyComesFirstAndFilesMustMatchItsSerial() throws {
    let (board, record) = try Self.record("sim-plate4")
    var mine = record
    mine.serial = "PANEL-7"
    let bench = Bench(.c32)
    _ = try bench.write(mine, board: board)
    let readout = bench.read(board)
    // The panel's copy, not the file; the default file (another panel's) is noted.
    let found = try CalibrationLookup.find(board: board, explicitPath: nil, panel: readout)
    #expect(found.origin == "panel (copy 1)")
    #expect(found.record.serial == "PANEL-7")
    #expect(found.notes.contains { $0.contains("serial") && $0.contains("SIM-PLATE4-0001") }, "\(found.notes)")
    // An explicit file for another panel is refused, naming the serials.
    #expect {
      _ = try CalibrationLookup.find(board: board, explicitPath: Repo.path("calibration/sim-plate4.toml"), panel: readout)
    } throws: { error in
      let e = error as? FileError
      return e?.field == "serial" && e?.message == "calibration is for panel \"SIM-PLATE4-0001\", this panel is \"PANEL-7\""
    }
  }

  /// The deployed service (deploy/panelctl-stream.service) on a panel whose
  /// EEPROM holds its record: the file the service names for
  /// CALIBRATION, passed the way its ExecStart passes it, never overrides
  /// the panel's own record; it only stands in when the panel holds none.
  @Test func theServiceFallbackNeverOverridesThePanel() throws {
    let unit = try String(contentsOfFile: Repo.path("deploy/panelctl-stream.service"), encoding: .utf8)
    let exec = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
    let words = exec.split(separator: " ").map(String.init)
    let at = try #require(words.firstIndex(of: "${CALIBRATION}"))
    let option = words[at - 1]
    #expect(option == "--fallback-calibration", "the service passes the file as \(option)")
    let (board, record) = try Self.record("sim-plate4")
    var mine = record
    mine.serial = "PANEL-7"
    let bench = Bench(.c32)
    _ = try bench.write(mine, board: board)
    // The service's file: another panel's record (here the repository's).
    let file = Repo.path("calibration/sim-plate4.toml")
    func lookup(_ panel: PanelReadout) throws -> CalibrationLookup.Found {
      option == "--calibration"
        ? try CalibrationLookup.find(board: board, explicitPath: file, panel: panel)
        : try CalibrationLookup.find(board: board, explicitPath: nil, fallbackPath: file, panel: panel)
    }
    let found = try lookup(bench.read(board))
    #expect(found.origin == "panel (copy 1)" && found.record.serial == "PANEL-7")
    // A panel that holds none: the service's file.
    let blank = Bench(.c32)
    let fallback = try lookup(blank.read(board))
    #expect(fallback.origin == file && fallback.record.serial == "SIM-PLATE4-0001")
  }

  @Test func aSimulatedPanelRefusesAnotherPanelsFile() throws {
    let board = try Board.load(path: Repo.path("Tests/Fixtures/calibration/sim-plate4-dead-cell.toml"))
    #expect {
      _ = try CalibrationLookup.load(board: board, explicitPath: Repo.path("calibration/sim-plate4.toml"))
    } throws: { error in
      (error as? FileError)?.description.contains("serial: calibration is for panel \"SIM-PLATE4-0001\", this panel is \"SIM-PLATE4-0002\"") == true
    }
  }
}

extension PanelCalibrationStoreTests {
  /// A simulated twin (the real NAU7802 drivers, a 24C32 on the simulated
  /// bus): the record stored through the board's own EEPROM place is what
  /// the lookup finds first.
  @Test func aTwinBoardKeepsItsCalibrationInItsEEPROM() throws {
    let board = try Repo.board("sim-plate4-nau7802")
    let rig = try SimulatedTwinRig(board: board, speed: 0)
    var memory = try #require(rig.memory)
    var readout = memory.read(board: board)
    #expect(readout.record == nil && readout.problems.count == 2)
    var record = try FrontEndFactory.trueCalibration(board: board, created: "2026-03-14T09:26:53Z")
    record.result = "pass"
    #expect(try memory.write(record, board: board) == 1)
    readout = memory.read(board: board)
    let found = try CalibrationLookup.find(board: board, explicitPath: nil, panel: readout)
    #expect(found.origin == "panel (copy 1)")
    Self.expectSame(found.record, record)
    #expect(rig.hardware.eeprom?.pageWrites ?? 0 >= 2 * 128 / 32)
  }
}

extension PanelCalibrationStoreTests {
  /// How power is lost during a write.
  enum Cut: CaseIterable, CustomStringConvertible {
    /// As the byte arrives on the bus: its page is never programmed.
    case arriving
    /// While the byte is being programmed: its page keeps the bytes before
    /// it, the byte itself corrupted.
    case programming
    var description: String { self == .arriving ? "arriving" : "programming" }
  }

  /// A calibration write interrupted at every byte offset of both copies,
  /// as each byte arrives and while it is programmed, from an EEPROM whose
  /// copies hold the same record, or one record and a broken copy (a write
  /// that was itself interrupted in its second copy): the next boot — the board's lookup, panel
  /// first — always finds a valid record, the newest of the old ones while
  /// the first copy is being written and the new one after, and the next
  /// write goes through. A plate's record on a 24C02 (8-byte pages) and on
  /// a 24C32 (32-byte pages).
  @Test(arguments: [("sim-plate4", EEPROM24.Kind.c02), ("sim-plate4", .c32)])
  func aWriteInterruptedAtEveryByteBootsTheOldOrTheNew(_ name: String, _ kind: EEPROM24.Kind) throws {
    let (board, older) = try Self.record(name, created: "2026-01-01T00:00:00Z", scale: 0.99)
    let (_, old) = try Self.record(name, created: "2026-01-15T00:00:00Z")
    let (_, new) = try Self.record(name, created: "2026-02-01T00:00:00Z", scale: 1.01)
    let size = try PanelRecordCodec.encode(new, board: board, sequence: 1).count
    // Both copies the same (sequence 1), or copy 1 at sequence 2 and copy 2
    // broken (a write interrupted in its second copy).
    let same: [UInt8] = try {
      let bench = Bench(kind)
      _ = try bench.write(old, board: board)
      return bench.chip.memory
    }()
    let mixed: [UInt8] = try {
      let bench = Bench(kind)
      _ = try bench.write(older, board: board)
      bench.chip.cutPower(afterDataBytes: size + size / 2)
      #expect(throws: PanelStoreError.self) { try bench.write(old, board: board) }
      bench.chip.restorePower()
      return bench.chip.memory
    }()
    for (image, sequence) in [(same, UInt32(1)), (mixed, 2)] {
      #expect(Bench(kind, contents: image).read(board).sequence == sequence)
      for cut in Cut.allCases {
        for offset in 0..<(2 * size) {
          let bench = Bench(kind, contents: image)
          switch cut {
          case .arriving: bench.chip.cutPower(afterDataBytes: offset)
          case .programming: bench.chip.cutPower(programmingByte: offset)
          }
          let comment: Comment = "\(name), from sequence \(sequence), power lost \(cut) byte \(offset) of \(2 * size)"
          #expect(throws: PanelStoreError.self, comment) { try bench.write(new, board: board) }
          bench.chip.restorePower()
          // The next boot: the board's lookup, the panel's copy first.
          let found = try CalibrationLookup.find(board: board, explicitPath: nil, panel: bench.read(board))
          #expect(found.origin.hasPrefix("panel"), comment)
          Self.expectSame(found.record, offset < size ? old : new, comment)
          #expect(try bench.write(new, board: board) == (offset < size ? sequence + 1 : sequence + 2), comment)
        }
      }
    }
  }
}
