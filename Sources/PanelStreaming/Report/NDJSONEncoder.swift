import ForceCore
import PanelFormats
import PanelTouch

/// Encodes frame reports as NDJSON lines (docs/formats.md) into a
/// `ByteBuffer`, allocation-free: positions with 0.01 mm, forces with
/// 0.001 N and normalized forces with 0.001 resolution.
public struct NDJSONEncoder: Sendable {
  /// The average touch in micronewtons times 1024 (a Q10 force's unit).
  let averageDivisor: Int64
  /// maximumPossibleForce in thousandths.
  let maxForce_milli: Int64

  /// The longest line `encode` writes: a full report (16 touches, 32
  /// events offering four quick actions each), every number at its widest
  /// and every name and text at RegionRules' limits, every byte of it a control
  /// character (`\u001f`, six bytes). The test
  /// `aFullReportFitsTheLineBuffer` writes such a line.
  public static let maxLineBytes: Int = {
    let name = 2 + 6 * RegionRules.maxNameBytes  // quotes, each byte escaped
    let text = 2 + 6 * RegionRules.maxTextBytes
    let number = 21  // an Int64 or UInt64 (sign, 19 or 20 digits, a point)
    let line = 64 + 2 * number + 48  // t_us, frame, brackets, capability
    let touch = 170 + 9 * number + name  // keys, id, phase, six numbers, stage, item, degraded, reason, into
    let action = 40 + 2 * text + name  // {"title":..,"subtitle":..,"icon":..},
    let event = 120 + number + name + RegionRules.maxQuickActions * action  // type, touch, item, from, menu
    return line + Capacity.contacts * touch + FrameReport.eventCapacity * event
  }()

  /// The most `appendImage` adds per cell (`-2097.152,`).
  public static let imageBytesPerCell = 12

  public init(interaction: InteractionSettings) {
    averageDivisor = max(1, Saturating.multiply(Saturating.int64(rounding: interaction.averageTouch_n * 1e6), 1024))
    maxForce_milli = Saturating.int64(rounding: interaction.maxForce * 1000)
  }

  /// Normalized force in thousandths, unclamped.
  @inline(__always)
  public func normalized_milli(_ f: Force_mN) -> Int64 {
    // (mN Q10 -> uN x 1024) x 1000 thousandths / (average uN x 1024), rounded.
    let n = Int64(f.rawValue) * 1_000_000
    return (n + (n < 0 ? -averageDivisor : averageDivisor) / 2) / averageDivisor
  }

  /// `force` as reported (UITouch.force), in thousandths: 0 ...
  /// maximumPossibleForce, however hard the press (`force_n` keeps the
  /// measured newtons).
  @inline(__always)
  public func reportedForce_milli(_ f: Force_mN) -> Int64 {
    max(0, min(maxForce_milli, normalized_milli(f)))
  }

  /// Appends one line for `report`, newline included. (`inout` only so
  /// that the report is read in place; it is not modified.) A line that
  /// does not fit leaves `out.overflowed` set: drop it.
  public func encode(_ report: inout FrameReport, into out: ByteBuffer) {
    out.append("{\"t_us\":")
    out.append(integer: report.time.rawValue)
    out.append(",\"frame\":")
    out.append(unsigned: report.frame)
    out.append(",\"touches\":[")
    for i in 0..<report.touchCount {
      let r = report[touch: i]
      let t = r.touch
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out.append("{\"id\":")
      out.append(integer: Int64(t.id))
      out.append(",\"phase\":\"")
      out.append(t.phase.name)
      out.append("\",\"x_mm\":")
      out.append(fixed: ReportUnits.hundredths_mm(t.x), decimals: 2)
      out.append(",\"y_mm\":")
      out.append(fixed: ReportUnits.hundredths_mm(t.y), decimals: 2)
      out.append(",\"force_n\":")
      out.append(fixed: ReportUnits.millinewtons(t.force), decimals: 3)
      out.append(",\"force\":")
      out.append(fixed: reportedForce_milli(t.force), decimals: 3)
      out.append(",\"max_force\":")
      out.append(fixed: maxForce_milli, decimals: 3)
      out.append(",\"stage\":\"")
      out.append(r.stage.name)
      out.append("\",\"progress\":")
      out.append(fixed: Int64(r.progress_milli), decimals: 3)
      out.append(",\"item\":")
      appendItemName(r.item, report.regions, out)
      if r.degraded { out.append(",\"degraded\":true") }
      if t.phase == .cancelled && t.reason != .none {
        out.append(",\"reason\":\"")
        out.append(t.reason.name)
        out.append("\"")
        if t.reason == .merged {
          out.append(",\"into\":")
          out.append(integer: Int64(t.mergedInto))
        }
      }
      out.append("}")
    }
    out.append("],\"events\":[")
    for i in 0..<report.eventCount {
      let e = report[event: i]
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out.append("{\"type\":\"")
      out.append(e.kind.name)
      out.append("\",\"touch\":")
      out.append(integer: Int64(e.touch))
      if e.kind.isPanelEvent {
        appendPanelEvent(e, &report, out)
      } else {
        out.append(",\"item\":")
        appendItemName(e.item, report.regions, out)
        if e.kind == .quickActions {
          out.append(",\"from\":\"")
          out.append(e.origin.name)
          out.append("\"")
        }
        if e.kind.carriesActions { appendActions(e.item, report.regions, out) }
      }
      out.append("}")
    }
    out.append("],\"force_capability\":\"")
    out.append(report.capability.state.name)
    out.append("\"}\n")
  }

  /// The item's name as a JSON string, or null.
  @inline(__always)
  func appendItemName(_ item: Int16, _ regions: borrowing RegionMap, _ out: ByteBuffer) {
    guard let json = regions.json(of: item) else {
      out.append("null")
      return
    }
    json.name.withUnsafeBufferPointer { out.append($0) }
  }

  /// `,"side":...,"align":...,"actions":[...]` for an event offering the
  /// item's quick actions (`,"actions":[]` without an item).
  func appendActions(_ item: Int16, _ regions: borrowing RegionMap, _ out: ByteBuffer) {
    guard let json = regions.json(of: item) else {
      out.append(",\"actions\":[]")
      return
    }
    out.append(",")
    json.menu.withUnsafeBufferPointer { out.append($0) }
    out.append(",\"actions\":")
    json.actions.withUnsafeBufferPointer { out.append($0) }
  }

  /// The fields of a panel event (touch 0).
  func appendPanelEvent(_ e: TouchEvent, _ report: inout FrameReport, _ out: ByteBuffer) {
    switch e.kind {
    case .capability:
      out.append(",\"capability\":\"")
      out.append(report.capability.state.name)
      out.append("\",\"reason\":\"")
      out.append(report.capability.reason.name)
      out.append("\"")
      if report.capability.cell >= 0 {
        out.append(",\"cell\":")
        out.append(integer: Int64(report.capability.cell))
      }
    case .sensitivity:
      out.append(",\"sensitivity\":\"")
      out.append(report.sensitivity.name)
      out.append("\"")
    case .regions:
      out.append(",\"name\":")
      report.regions.nameJSON.withUnsafeBufferPointer { out.append($0) }
      out.append(",\"items\":")
      out.append(integer: Int64(report.regions.items.count))
    default:
      break
    }
  }
}
