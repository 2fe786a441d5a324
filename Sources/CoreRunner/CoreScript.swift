import ForceCore

/// A core script: a panel's core setup and its raw frames as text, the
/// input of `CoreRun` on a host and on a microcontroller alike. Integers
/// only, in the core's own fixed-point formats, so nothing is converted on
/// the way (docs/firmware.md):
///
///     forcecore 1
///     plate <width_um> <height_um>                 or
///     grid <width_um> <height_um> <columns> <rows> <pitch_um>
///     cell <x_um> <y_um>                           plates: one per cell, in cell order
///     set <name> <value>                           a CoreConfiguration setting (Settings)
///     calibration <offset_Q16> <scale_Q40> <linearity_Q60> <linearSkip_Q20> <tcZero_Q32> <tcSpan_Q30> <referenceTemperature_Q8>
///                                                  one per cell, in cell order
///     coupling <m_i0_Q24> ... <m_i(n-1)_Q24>       plates with cross-talk: row i of n
///     frame <t_us> <sequence> <valid 0|1> <temperature_Q8 or -> <raw_0> ... <raw_(N-1)>
///
/// Blank lines and lines starting with `#` are ignored. The setup ends at
/// the first `frame`.
public enum CoreScript {
  public static let header: StaticString = "forcecore 1"
}

/// A script that cannot be run: the line and what is wrong with it.
public struct CoreScriptError: Error, Equatable {
  /// 1-based line number (0: not a line: the input could not be read or
  /// the output written).
  public var line: Int
  public var message: StaticString

  public init(line: Int, message: StaticString) {
    self.line = line
    self.message = message
  }

  public static func == (a: CoreScriptError, b: CoreScriptError) -> Bool {
    a.line == b.line && a.message.utf8Start == b.message.utf8Start
  }
}

/// The setup lines read so far.
struct ScriptSetup {
  var sawHeader = false
  var geometry: PanelGeometry?
  var configuration = CoreConfiguration()
  var calibration: CellArray<CellCalibration> = CellArray(repeating: .unity)
  var calibrated = 0
  var coupling = CouplingMatrix()
  var couplingRows = 0

  /// Reads one setup line (not a `frame`).
  mutating func read(_ reader: inout LineReader, _ keyword: Range<Int>, _ tokens: inout Tokens)
    throws(CoreScriptError)
  {
    let line = reader.number
    func fail(_ message: StaticString) -> CoreScriptError { CoreScriptError(line: line, message: message) }
    func int(_ reader: inout LineReader, _ tokens: inout Tokens) throws(CoreScriptError) -> Int64 {
      guard let word = tokens.next(&reader) else { throw fail("a number is missing") }
      guard let value = reader.integer(word) else { throw fail("not an integer, or beyond 64 bits") }
      return value
    }
    func length(_ reader: inout LineReader, _ tokens: inout Tokens) throws(CoreScriptError) -> Length_um {
      let v = try int(&reader, &tokens)
      guard v >= -0x8000_0000 && v <= 0x7FFF_FFFF else { throw fail("a length beyond 32 bits") }
      return Length_um(rawValue: Int32(truncatingIfNeeded: v))
    }

    if !sawHeader {
      guard reader.word(keyword, is: "forcecore"), try int(&reader, &tokens) == 1 else {
        throw fail("not a core script: the first line is not `forcecore 1`")
      }
      sawHeader = true
    } else if reader.word(keyword, is: "plate") || reader.word(keyword, is: "grid") {
      guard geometry == nil else { throw fail("a second panel") }
      let plate = reader.word(keyword, is: "plate")
      let width = try length(&reader, &tokens)
      let height = try length(&reader, &tokens)
      if plate {
        geometry = PanelGeometry(width: width, height: height)
      } else {
        let columns = try int(&reader, &tokens)
        let rows = try int(&reader, &tokens)
        let pitch = try length(&reader, &tokens)
        guard columns >= 1, rows >= 1, columns <= 256, rows <= 256, columns * rows <= 256 else {
          throw fail("a grid of more cells than the core's capacity (256), or none")
        }
        geometry = PanelGeometry(
          width: width, height: height, columns: Int(truncatingIfNeeded: columns),
          rows: Int(truncatingIfNeeded: rows), pitch: pitch)
      }
    } else if reader.word(keyword, is: "cell") {
      guard var g = geometry, case .supports = g.layout else { throw fail("`cell` before `plate`, or on a grid") }
      let x = try length(&reader, &tokens)
      let y = try length(&reader, &tokens)
      guard g.addCell(x: x, y: y) else { throw fail("more cells than the core's capacity (256)") }
      geometry = g
    } else if reader.word(keyword, is: "set") {
      guard let name = tokens.next(&reader) else { throw fail("`set` without a name") }
      var given = SettingValues()
      given.count = 0
      while let word = tokens.next(&reader) {
        guard given.count < SettingValues.capacity else { throw fail("more values than any setting takes") }
        guard let v = reader.integer(word) else { throw fail("a value that is not an integer") }
        given[given.count] = v
        given.count += 1
      }
      var found = false
      var expected = 0
      Settings.visit(&configuration) { (setting, v) in
        if !found && reader.word(name, is: setting) {
          found = true
          expected = v.count
          if given.count == v.count { v = given }
        }
      }
      guard found else { throw fail("not a setting of the core") }
      guard given.count == expected else {
        if expected == 1 { throw fail("`set` takes one value for this setting") }
        throw fail("a table setting takes every entry (interpolationBias 17, spreading_Q16 13)")
      }
    } else if reader.word(keyword, is: "calibration") {
      guard calibrated < Capacity.cells else { throw fail("more calibrations than the core's capacity (256)") }
      var c = CellCalibration.unity
      c.offset = Counts_Q16(rawValue: try int(&reader, &tokens))
      c.scale_Q40 = try int(&reader, &tokens)
      c.linearity_Q60 = try int(&reader, &tokens)
      c.linearSkip_Q20 = try int(&reader, &tokens)
      c.tcZero_Q32 = try int(&reader, &tokens)
      c.tcSpan_Q30 = try int(&reader, &tokens)
      let t = try int(&reader, &tokens)
      guard t >= -0x8000_0000 && t <= 0x7FFF_FFFF else { throw fail("a temperature beyond 32 bits") }
      c.referenceTemperature = Temperature_C(rawValue: Int32(truncatingIfNeeded: t))
      calibration[calibrated] = c
      calibrated += 1
    } else if reader.word(keyword, is: "coupling") {
      var values: InlineArray<8, Int64> = InlineArray(repeating: 0)
      var n = 0
      while let word = tokens.next(&reader) {
        guard n < CouplingMatrix.capacity else { throw fail("a coupling row of more than 8 entries") }
        guard let v = reader.integer(word), v >= -0x8000_0000 && v <= 0x7FFF_FFFF else {
          throw fail("a coupling entry that is not a Q8.24 integer")
        }
        values[n] = v
        n += 1
      }
      if couplingRows == 0 { coupling = CouplingMatrix(size: n) }
      guard n == coupling.size, couplingRows < n else {
        throw fail("a coupling row of another length, or one too many")
      }
      for j in 0..<n {
        // Exact: a Q8.24 value is a Double, and `set` scales it back by 2^24.
        coupling.set(couplingRows, j, Double(Int(truncatingIfNeeded: values[j])) / 16_777_216)
      }
      couplingRows += 1
    } else {
      throw fail("not a line of a core script")
    }
    guard tokens.isAtEnd(&reader) else { throw fail("more numbers than the line takes") }
  }

  /// Checks that the setup is complete: a panel with cells, a calibration
  /// for each, a square coupling matrix.
  func check(line: Int) throws(CoreScriptError) {
    guard let geometry else { throw CoreScriptError(line: line, message: "a frame before `plate` or `grid`") }
    guard geometry.cellCount > 0 else { throw CoreScriptError(line: line, message: "a plate without cells") }
    guard calibrated == geometry.cellCount else {
      throw CoreScriptError(line: line, message: "not one `calibration` line per cell")
    }
    guard couplingRows == coupling.size else {
      throw CoreScriptError(line: line, message: "fewer coupling rows than entries per row")
    }
  }
}

extension LineReader {
  /// Reads the rest of a `frame` line into `frame`.
  mutating func readFrame(_ tokens: inout Tokens, into frame: inout RawFrame, cells: Int)
    throws(CoreScriptError)
  {
    let line = number
    func fail(_ message: StaticString) -> CoreScriptError { CoreScriptError(line: line, message: message) }
    func int(_ reader: inout LineReader, _ tokens: inout Tokens) throws(CoreScriptError) -> Int64 {
      guard let word = tokens.next(&reader) else { throw fail("a frame with fewer raw counts than cells") }
      guard let value = reader.integer(word) else { throw fail("not an integer, or beyond 64 bits") }
      return value
    }
    frame.time = Time_us(rawValue: try int(&self, &tokens))
    let sequence = try int(&self, &tokens)
    guard sequence >= 0 && sequence <= 0xFFFF_FFFF else { throw fail("a sequence number beyond 32 bits") }
    frame.sequence = UInt32(truncatingIfNeeded: sequence)
    let valid = try int(&self, &tokens)
    guard valid == 0 || valid == 1 else { throw fail("`valid` is 0 or 1") }
    frame.valid = valid == 1
    guard let t = tokens.next(&self) else { throw fail("a frame without a temperature (or `-`)") }
    if word(t, is: "-") {
      frame.hasTemperature = false
    } else {
      guard let q = integer(t), q >= -0x8000_0000 && q <= 0x7FFF_FFFF else {
        throw fail("a temperature that is not a Q23.8 integer")
      }
      frame.temperature = Temperature_C(rawValue: Int32(truncatingIfNeeded: q))
      frame.hasTemperature = true
    }
    frame.cellCount = cells
    for k in 0..<min(cells, Capacity.cells) {
      let raw = try int(&self, &tokens)
      guard raw >= -0x8000_0000 && raw <= 0x7FFF_FFFF else { throw fail("a raw count beyond 32 bits") }
      frame.counts[k] = Int32(truncatingIfNeeded: raw)
    }
    guard tokens.isAtEnd(&self) else { throw fail("a frame with more raw counts than cells") }
  }
}
