import ForceCore
import PanelFormats
import PanelHardware
import PanelTouch

#if canImport(Glibc)
  import Glibc
#endif

/// A live view of the panel for bring-up over SSH, drawn on a terminal of
/// at least 80x24 a few times a second: the force image as a heatmap with
/// the touches on it, a table of touches with force and stage, the last
/// events, the frame rate and the health counters of the front end and the
/// core. Drawn with ANSI escapes into a buffer sized at setup (no
/// allocation per frame), in the terminal's alternate screen, restored at
/// the end. When the output is not a terminal it draws nothing.
public struct MonitorSink: FrameSink {
  let fd: Int32
  let draws: Bool
  let screen = ByteBuffer(capacity: 64 * 1024)
  let map: HeatmapLayout
  /// `force` as the report stream gives it (clamped to max_force).
  let normalizer: NDJSONEncoder
  let title: [UInt8]
  let interval_us: Int64
  var lastDraw: Int64 = 0
  var rateMark: (time: Int64, frames: UInt64) = (0, 0)
  var rate_centihertz: Int64 = 0
  var scale_mN: Int64 = 500
  var recent = RecentEvents()
  var touchesSeen: UInt64 = 0
  var lastTouchID: UInt32 = 0
  var frames: UInt64 = 0

  /// - Parameters:
  ///   - fd: the terminal (standard output).
  ///   - refresh_hz: redraws per second.
  public init(board: Board, serial: String, fd: Int32 = 1, refresh_hz: Int = 10, colour: Bool = true) {
    self.fd = fd
    draws = isatty(fd) != 0
    map = HeatmapLayout(board: board, colour: colour)
    normalizer = NDJSONEncoder(interaction: board.interaction)
    // The names come from files: escaped, so they cannot drive the terminal.
    title = Array(String(Quote.printable("panelctl monitor  \(board.name)  \(serial)").prefix(46)).utf8)
    interval_us = 1_000_000 / Int64(max(1, refresh_hz))
    if draws {
      screen.append("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
      flush()
    }
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    frames = loop.frames
    for i in 0..<loop.report.eventCount { recent.add(loop.report[event: i]) }
    for i in 0..<loop.report.touchCount {
      let id = loop.report[touch: i].touch.id
      if id > lastTouchID {
        lastTouchID = id
        touchesSeen += 1
      }
    }
    guard draws else { return }
    let now = monotonicMicroseconds()
    if rateMark.time == 0 { rateMark = (now, loop.frames) }
    if now - rateMark.time >= 500_000 {
      rate_centihertz = Int64(loop.frames - rateMark.frames) * 100_000_000 / (now - rateMark.time)
      rateMark = (now, loop.frames)
    }
    guard now - lastDraw >= interval_us else { return }
    lastDraw = now
    draw(loop)
  }

  public mutating func finish() throws(SinkError) {
    guard draws else { return }
    screen.append("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
    flush()
  }

  /// Piped: one line at the end instead of a screen.
  public var summary: String? {
    draws ? nil : "monitor: \(touchesSeen) touches, \(recent.total) events"
  }

  // MARK: drawing

  mutating func draw<Source: FrontEnd>(_ loop: ScanLoop<Source>) {
    screen.removeAll()
    screen.append("\u{1B}[H\u{1B}[0m")
    header(loop)
    let peak = heatmap(loop)
    side(loop, peak: peak)
    touches(loop)
    events()
    flush()
  }

  func header<Source: FrontEnd>(_ loop: ScanLoop<Source>) {
    at(1, 1)
    screen.append("\u{1B}[1m")
    title.withUnsafeBufferPointer { screen.append($0) }
    screen.append("\u{1B}[0m")
    at(1, 49)
    number(rate_centihertz, decimals: 2, width: 7)
    screen.append(" Hz  frame ")
    number(Int64(loop.frames), width: 8)
    endLine()
    at(2, 1)
    screen.append("t ")
    number(loop.report.time.rawValue / 10_000, decimals: 2, width: 8)
    screen.append(" s   ")
    switch loop.pipeline.outcome {
    case .seeding: screen.append("seeding baselines")
    case .measured: screen.append(loop.pipeline.touched ? "touched" : "idle")
    case .invalid: screen.append("\u{1B}[7m INVALID FRAME \u{1B}[0m")
    }
    endLine()
  }

  /// Draws the force image and the touches on it; returns the largest cell
  /// force (mN).
  mutating func heatmap<Source: FrontEnd>(_ loop: ScanLoop<Source>) -> Int64 {
    let image = loop.pipeline.image.span
    var peak: Int64 = 0
    for k in 0..<min(image.count, map.cellCount) { peak = max(peak, Int64(image[k].rawValue) >> 10) }
    scale_mN = max(500, max(peak, scale_mN * 9 / 10))
    let row0 = 4
    at(row0 - 1, 1)
    screen.append("+")
    for _ in 0..<map.width { screen.append("-") }
    screen.append("+")
    for r in 0..<map.height {
      at(row0 + r, 1)
      screen.append("|")
      var level = -1
      for c in 0..<map.width {
        let marker = touchMarker(loop, column: c, row: r)
        let l = marker == nil ? map.level(at: c, r, image, scale_mN: scale_mN) : -2
        if l != level {
          level = l
          if map.colour {
            if l >= 0 {
              screen.append("\u{1B}[0;48;5;")
              screen.append(integer: Int64(HeatmapLayout.palette[l]))
              screen.append("m")
            } else {
              screen.append("\u{1B}[0;1;7m")
            }
          }
        }
        if let marker {
          screen.append(UInt8(ascii: "0") + UInt8(marker % 10))
        } else {
          screen.append(HeatmapLayout.shade(l))
        }
      }
      screen.append("\u{1B}[0m|")
    }
    at(row0 + map.height, 1)
    screen.append("+")
    for _ in 0..<map.width { screen.append("-") }
    screen.append("+")
    return peak
  }

  /// The id (last digit drawn) of an active touch at this character.
  func touchMarker<Source: FrontEnd>(_ loop: ScanLoop<Source>, column c: Int, row r: Int) -> UInt32? {
    for i in 0..<loop.report.touchCount {
      let t = loop.report[touch: i].touch
      guard !t.phase.isFinal else { continue }
      if map.column(of: t.x) == c && map.row(of: t.y) == r { return t.id }
    }
    return nil
  }

  func side<Source: FrontEnd>(_ loop: ScanLoop<Source>, peak: Int64) {
    let c = 55
    var total: Int64 = 0
    let image = loop.pipeline.image.span
    for k in 0..<min(image.count, map.cellCount) { total += Int64(image[k].rawValue) }
    at(3, c)
    screen.append("\u{1B}[1mForce\u{1B}[0m")
    label(4, c, "total N", value: Saturating.multiplyShift(total, 1, 10), decimals: 3)
    label(5, c, "peak cell N", value: peak, decimals: 3)
    label(6, c, "scale N", value: scale_mN, decimals: 3)
    at(7, c)
    screen.append(" 0 ")
    for l in 0..<HeatmapLayout.levels {
      if map.colour {
        screen.append("\u{1B}[48;5;")
        screen.append(integer: Int64(HeatmapLayout.palette[l]))
        screen.append("m")
      }
      screen.append(HeatmapLayout.shade(l))
    }
    screen.append("\u{1B}[0m max")
    endLine()
    // The touch threshold in effect: the board's, or the measured noise's.
    label(8, c, "touch on N", value: ReportUnits.millinewtons(loop.pipeline.effectiveThresholds.on), decimals: 3)
    let f = loop.source.health
    let h = loop.pipeline.health
    at(9, c)
    screen.append("\u{1B}[1mHealth\u{1B}[0m")
    label(10, c, "invalid", value: Int64(f.invalidFrames))
    label(11, c, "missed", value: Int64(f.missedFrames))
    label(12, c, "retries", value: Int64(f.retries))
    label(13, c, "bus errors", value: Int64(f.busErrors))
    label(14, c, "re-inits", value: Int64(f.reinitialisations))
    label(15, c, "spikes", value: Int64(h.spikes))
    label(16, c, "saturated", value: Int64(h.saturatedSamples))
    label(17, c, "re-seeds", value: Int64(h.reseeds))
    label(18, c, "absorbed", value: Int64(h.absorbedLoads))
  }

  func touches<Source: FrontEnd>(_ loop: ScanLoop<Source>) {
    let row0 = 19
    at(row0, 1)
    screen.append("\u{1B}[1m   id  phase          x mm     y mm   force N   force  stage\u{1B}[0m")
    endLine()
    let shown = min(loop.report.touchCount, 3)
    for i in 0..<4 {
      at(row0 + 1 + i, 1)
      if i < shown {
        let r = loop.report[touch: i]
        let t = r.touch
        number(Int64(t.id), width: 5)
        screen.append("  ")
        text(t.phase.name, width: 11)
        number(ReportUnits.hundredths_mm(t.x), decimals: 2, width: 9)
        number(ReportUnits.hundredths_mm(t.y), decimals: 2, width: 9)
        number(ReportUnits.millinewtons(t.force), decimals: 3, width: 10)
        number(normalizer.reportedForce_milli(t.force), decimals: 3, width: 8)
        screen.append("  ")
        if r.stage >= .peek { screen.append("\u{1B}[1m") }
        screen.append(r.stage.name)
        screen.append("\u{1B}[0m")
      } else if i == 3 && loop.report.touchCount > 3 {
        screen.append("  ... ")
        number(Int64(loop.report.touchCount - 3), width: 1)
        screen.append(" more")
      }
      endLine()
    }
  }

  /// The bottom line: the latest events that fit before column 67, the
  /// rest of the line cleared (a longer line drawn before leaves nothing
  /// behind), then the hint at column 68.
  func events() {
    at(24, 1)
    screen.append("events:")
    var first = recent.count
    var width = 7
    while first > 0 {
      let w = RecentEvents.width(recent.at(first - 1))
      if width + w > 66 { break }
      width += w
      first -= 1
    }
    for i in first..<recent.count {
      let e = recent.at(i)
      screen.append(" ")
      screen.append(e.kind.name)
      screen.append(" #")
      number(Int64(e.touch), width: 1)
    }
    screen.append("\u{1B}[K")
    at(24, 68)
    screen.append("Ctrl-C quits")
    screen.append("\u{1B}[K")
  }

  // MARK: text helpers

  func at(_ row: Int, _ column: Int) {
    screen.append("\u{1B}[")
    screen.append(integer: Int64(row))
    screen.append(";")
    screen.append(integer: Int64(column))
    screen.append("H")
  }

  func endLine() { screen.append("\u{1B}[K") }

  func label(_ row: Int, _ column: Int, _ name: StaticString, value: Int64, decimals: Int = 0) {
    at(row, column)
    screen.append(" ")
    text(name, width: 12)
    number(value, decimals: decimals, width: 10)
    endLine()
  }

  func text(_ s: StaticString, width: Int) {
    screen.append(s)
    for _ in s.utf8CodeUnitCount..<max(width, s.utf8CodeUnitCount) { screen.append(UInt8(ascii: " ")) }
  }

  /// `scaled / 10^decimals`, right-aligned in `width` columns.
  func number(_ scaled: Int64, decimals: Int = 0, width: Int) {
    var digits = 1
    var m = scaled.magnitude
    var divisor: UInt64 = 1
    for _ in 0..<decimals { divisor *= 10 }
    m /= divisor
    while m >= 10 {
      m /= 10
      digits += 1
    }
    let length = digits + (scaled < 0 ? 1 : 0) + (decimals > 0 ? decimals + 1 : 0)
    for _ in length..<max(width, length) { screen.append(UInt8(ascii: " ")) }
    screen.append(fixed: scaled, decimals: decimals)
  }

  func flush() {
    try? FileDescriptor(rawValue: fd).writeAll(UnsafeRawBufferPointer(screen.bytes))
    screen.removeAll()
  }
}

/// The last few interaction events, for the monitor's bottom line.
struct RecentEvents {
  var events: InlineArray<3, TouchEvent> = InlineArray(repeating: TouchEvent(kind: .peek, touch: 0))
  var count = 0
  var total: UInt64 = 0

  mutating func add(_ e: TouchEvent) {
    total += 1
    if count == 3 {
      for i in 0..<2 { events[i] = events[i + 1] }
      count = 2
    }
    events[count] = e
    count += 1
  }

  func at(_ i: Int) -> TouchEvent { events[i] }

  /// Columns " NAME #TOUCH" takes.
  static func width(_ e: TouchEvent) -> Int {
    var digits = 1
    var n = e.touch
    while n >= 10 {
      n /= 10
      digits += 1
    }
    return 3 + e.kind.name.utf8CodeUnitCount + digits
  }
}

/// Where the panel's cells fall on the monitor's character field: the field
/// keeps the panel's aspect (a character is about twice as tall as wide),
/// at most 50x14. Each character shows the force of the nearest cell on a
/// grid, or a blend of the nearest cells (inverse square distance) for
/// cells at arbitrary places (a plate on corner load cells).
struct HeatmapLayout {
  let width: Int
  let height: Int
  let cellCount: Int
  let colour: Bool
  let panelWidth_um: Int64
  let panelHeight_um: Int64
  let averageTouch_mN: Int64
  /// Per character: up to 4 (cell, weight in 1/65536) pairs.
  let cells: [Int16]
  let weights: [Int32]

  static let levels = 9
  /// Black through red and orange to yellow and white (xterm 256 colours).
  static let palette: [UInt8] = [16, 52, 88, 124, 160, 196, 208, 220, 231]

  init(board: Board, colour: Bool) {
    let aspect = board.width_mm / max(board.height_mm, 1)
    var h = 14
    var w = Int(min(1000, Saturating.int64(rounding: Double(h) * 2 * aspect)))
    if w > 50 {
      w = 50
      h = Int(max(4, min(14, Saturating.int64(rounding: Double(w) / (2 * aspect)))))
    }
    width = max(8, w)
    height = h
    cellCount = board.cellCount
    self.colour = colour
    panelWidth_um = Saturating.int64(rounding: board.width_mm * 1000)
    panelHeight_um = Saturating.int64(rounding: board.height_mm * 1000)
    averageTouch_mN = max(1, Saturating.int64(rounding: board.interaction.averageTouch_n * 1000))
    var cells = [Int16](repeating: -1, count: width * height * 4)
    var weights = [Int32](repeating: 0, count: width * height * 4)
    for r in 0..<height {
      for c in 0..<width {
        let x = (Double(c) + 0.5) / Double(width) * board.width_mm
        let y = (Double(r) + 0.5) / Double(height) * board.height_mm
        let ranked = board.cells.enumerated()
          .map { (k, p) in (k, (p.x_mm - x) * (p.x_mm - x) + (p.y_mm - y) * (p.y_mm - y)) }
          .sorted { $0.1 < $1.1 }
        let base = (r * width + c) * 4
        if board.grid != nil || ranked.isEmpty {
          if let nearest = ranked.first {
            cells[base] = Int16(nearest.0)
            weights[base] = 65536
          }
          continue
        }
        let near = ranked.prefix(4)
        let inverse = near.map { 1 / max($0.1, 1e-6) }
        let sum = inverse.reduce(0, +)
        for (i, (k, _)) in near.enumerated() {
          cells[base + i] = Int16(k)
          weights[base + i] = Saturating.int32(rounding: inverse[i] / sum * 65536)
        }
      }
    }
    self.cells = cells
    self.weights = weights
  }

  /// Shade level 0 ..< levels of the character at (c, r).
  func level(at c: Int, _ r: Int, _ image: Span<Force_mN>, scale_mN: Int64) -> Int {
    let base = (r * width + c) * 4
    var f: Int64 = 0
    for i in 0..<4 {
      let k = Int(cells[base + i])
      guard k >= 0, k < image.count else { break }
      f += Int64(image[k].rawValue) * Int64(weights[base + i])
    }
    let mN = f >> 26  // Q10 x Q16
    // Below 2 % of the scale (and at least 10 mN) is noise: blank.
    guard mN > max(10, scale_mN / 50) else { return 0 }
    return Int(min(Int64(HeatmapLayout.levels - 1), 1 + mN * Int64(HeatmapLayout.levels - 1) / max(scale_mN, 1)))
  }

  static func shade(_ level: Int) -> StaticString {
    switch level {
    case ..<1: return " "
    case 1: return "\u{00B7}"
    case 2, 3: return "\u{2591}"
    case 4, 5: return "\u{2592}"
    case 6, 7: return "\u{2593}"
    default: return "\u{2588}"
    }
  }

  func column(of x: Length_um) -> Int { Int(min(max(0, Int64(x.rawValue) * Int64(width) / max(panelWidth_um, 1)), Int64(width - 1))) }
  func row(of y: Length_um) -> Int { Int(min(max(0, Int64(y.rawValue) * Int64(height) / max(panelHeight_um, 1)), Int64(height - 1))) }
}
