import ForceCore
import PanelTouch

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
///
/// and, for the touch layer (tracker, stages, regions: `TouchFrame`):
///
///     touch <name> <value>                         a TrackerSettings setting (TouchSettings)
///     interaction <name> <value>                   an InteractionSettings setting (a Double's bits)
///     calibrated <0|1>                             0: nominal gains, force unavailable
///     position <x_mm bits> <y_mm bits>             one per cell: where a dead cell is estimated from
///     pitch <pitch_mm bits>                        a grid's pitch, for the same
///     region <x0_um> <y0_um> <x1_um> <y1_um> <traits>   an item (ItemTraits' bits), on top of the last
///     frames <N>                                   frames in the script: the last ends the stream
///
/// then the frames, and between them what the host changes:
///
///     frame <t_us> <sequence> <valid 0|1> <temperature_Q8 or -> <raw_0> ... <raw_(N-1)>
///     sensitivity <light|medium|firm>
///     force_touch <0|1>
///     region ...                                   the items of a map to come, then
///     regions                                      the map in their place
///
/// Blank lines and lines starting with `#` are ignored. The setup ends at
/// the first `frame`; a script with no `touch` line runs ForceCore alone.
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
  var sawPanel = false
  var geometry = PanelGeometry(width: .zero, height: .zero)
  var configuration = CoreConfiguration()
  var calibration: CellArray<CellCalibration> = CellArray(repeating: .unity)
  var calibrations = 0
  var coupling = CouplingMatrix()
  var couplingRows = 0
  /// The touch layer, when the script has `touch` lines.
  var touchLayer = false
  var tracker = TouchSettings.standard
  var interaction = InteractionSettings()
  var calibrated = true
  var positionX: CellArray<Double> = CellArray(repeating: 0)
  var positionY: CellArray<Double> = CellArray(repeating: 0)
  var positions = 0
  var pitch_mm = 0.0
  var regions = RegionMap.whole(panelWidth_mm: 0, panelHeight_mm: 0)
  /// The `frames` line: the frame that ends the stream (nil: the end of
  /// the script does, with a closing report).
  var frames: Int?

  /// Back to no line read, in place (a firmware's static storage: nothing
  /// large is built on the stack).
  mutating func reset() {
    sawHeader = false
    sawPanel = false
    geometry = PanelGeometry(width: .zero, height: .zero)
    configuration = CoreConfiguration()
    for k in 0..<Capacity.cells {
      calibration[k] = .unity
      positionX[k] = 0
      positionY[k] = 0
    }
    calibrations = 0
    coupling = CouplingMatrix()
    couplingRows = 0
    touchLayer = false
    tracker = TouchSettings.standard
    interaction = InteractionSettings()
    calibrated = true
    positions = 0
    pitch_mm = 0
    regions = RegionMap.whole(panelWidth_mm: 0, panelHeight_mm: 0)
    frames = nil
  }

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
      guard !sawPanel else { throw fail("a second panel") }
      sawPanel = true
      let plate = reader.word(keyword, is: "plate")
      let width = try length(&reader, &tokens)
      let height = try length(&reader, &tokens)
      if plate {
        geometry = PanelGeometry(width: width, height: height)
      } else {
        let columns = try int(&reader, &tokens)
        let rows = try int(&reader, &tokens)
        let pitch = try length(&reader, &tokens)
        guard columns >= 1, rows >= 1, columns <= 256, rows <= 256, columns * rows <= Int64(Capacity.cells) else {
          throw fail("a grid of more cells than the core holds (Capacity.cells, 256 unless built smaller), or none")
        }
        geometry = PanelGeometry(
          width: width, height: height, columns: Int(truncatingIfNeeded: columns),
          rows: Int(truncatingIfNeeded: rows), pitch: pitch)
      }
    } else if reader.word(keyword, is: "cell") {
      guard sawPanel, case .supports = geometry.layout else { throw fail("`cell` before `plate`, or on a grid") }
      let x = try length(&reader, &tokens)
      let y = try length(&reader, &tokens)
      guard geometry.addCell(x: x, y: y) else { throw fail("more cells than the core holds (Capacity.cells, 256 unless built smaller)") }
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
      guard calibrations < Capacity.cells else { throw fail("more calibrations than the core holds (Capacity.cells, 256 unless built smaller)") }
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
      calibration[calibrations] = c
      calibrations += 1
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
    } else if reader.word(keyword, is: "touch") || reader.word(keyword, is: "interaction") {
      let tracker = reader.word(keyword, is: "touch")
      guard let name = tokens.next(&reader) else { throw fail("a setting without a name") }
      let value = try int(&reader, &tokens)
      var found = false
      if tracker {
        touchLayer = true
        TouchSettings.visit(&self.tracker) { (setting, v) in
          if !found && reader.word(name, is: setting) {
            found = true
            v = value
          }
        }
      } else {
        TouchSettings.visit(&interaction) { (setting, v) in
          if !found && reader.word(name, is: setting) {
            found = true
            v = value
          }
        }
      }
      guard found else { throw fail("not a setting of the touch layer") }
    } else if reader.word(keyword, is: "calibrated") {
      let v = try int(&reader, &tokens)
      guard v == 0 || v == 1 else { throw fail("`calibrated` is 0 or 1") }
      calibrated = v == 1
    } else if reader.word(keyword, is: "position") {
      guard positions < Capacity.cells else { throw fail("more positions than the core holds (Capacity.cells, 256 unless built smaller)") }
      positionX[positions] = Double(bitPattern: UInt64(bitPattern: try int(&reader, &tokens)))
      positionY[positions] = Double(bitPattern: UInt64(bitPattern: try int(&reader, &tokens)))
      positions += 1
    } else if reader.word(keyword, is: "pitch") {
      pitch_mm = Double(bitPattern: UInt64(bitPattern: try int(&reader, &tokens)))
    } else if reader.word(keyword, is: "region") {
      try reader.readRegion(&tokens, into: &regions)
    } else if reader.word(keyword, is: "frames") {
      let n = try int(&reader, &tokens)
      guard n >= 0 else { throw fail("a negative number of frames") }
      frames = Wide.int(n)
    } else {
      throw fail("not a line of a core script")
    }
    guard tokens.isAtEnd(&reader) else { throw fail("more numbers than the line takes") }
  }

  /// Checks that the setup is complete: a panel with cells, a calibration
  /// for each, a square coupling matrix.
  mutating func check(line: Int) throws(CoreScriptError) {
    guard sawPanel else { throw CoreScriptError(line: line, message: "a frame before `plate` or `grid`") }
    guard geometry.cellCount > 0 else { throw CoreScriptError(line: line, message: "a plate without cells") }
    guard calibrations == geometry.cellCount else {
      throw CoreScriptError(line: line, message: "not one `calibration` line per cell")
    }
    guard couplingRows == coupling.size else {
      throw CoreScriptError(line: line, message: "fewer coupling rows than entries per row")
    }
    guard !touchLayer || positions == geometry.cellCount else {
      throw CoreScriptError(line: line, message: "the touch layer without one `position` line per cell")
    }
  }
}

extension LineReader {
  /// Reads the rest of a `region` line (a rectangle in um and the item's
  /// traits) onto `map`.
  mutating func readRegion(_ tokens: inout Tokens, into map: inout RegionMap) throws(CoreScriptError) {
    let line = number
    func fail(_ message: StaticString) -> CoreScriptError { CoreScriptError(line: line, message: message) }
    func length(_ reader: inout LineReader, _ tokens: inout Tokens) throws(CoreScriptError) -> Length_um {
      guard let word = tokens.next(&reader), let v = reader.integer(word), v >= -0x8000_0000 && v <= 0x7FFF_FFFF else {
        throw fail("a region's corner is missing or beyond 32 bits")
      }
      return Length_um(rawValue: Int32(truncatingIfNeeded: v))
    }
    let x0 = try length(&self, &tokens)
    let y0 = try length(&self, &tokens)
    let x1 = try length(&self, &tokens)
    let y1 = try length(&self, &tokens)
    guard let word = tokens.next(&self), let t = integer(word), t >= 0 && t <= 255 else {
      throw fail("a region's traits are missing or beyond 8 bits")
    }
    guard map.add(x0: x0, y0: y0, x1: x1, y1: y1, traits: ItemTraits(rawValue: UInt8(truncatingIfNeeded: t))) else {
      throw fail("more regions than a map holds")
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
