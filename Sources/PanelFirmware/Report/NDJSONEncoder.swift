import ForceCore

/// Encodes frame reports as NDJSON lines (CONTRACTS.md section 4) into a
/// `ByteBuffer`, allocation-free: positions with 0.01 mm, forces with
/// 0.001 N and normalized forces with 0.001 resolution.
public struct NDJSONEncoder: Sendable {
  /// The average touch in micronewtons times 1024 (a Q10 force's unit).
  let averageDivisor: Int64
  /// maximumPossibleForce in thousandths.
  let maxForce_milli: Int64

  public init(interaction: InteractionSettings) {
    averageDivisor = max(1, Int64((interaction.averageTouch_n * 1e6).rounded()) * 1024)
    maxForce_milli = Int64((interaction.maxForce * 1000).rounded())
  }

  /// Normalized force (UITouch.force) in thousandths.
  @inline(__always)
  public func normalized_milli(_ f: Force_mN) -> Int64 {
    // (mN Q10 -> uN x 1024) x 1000 thousandths / (average uN x 1024), rounded.
    let n = Int64(f.rawValue) * 1_000_000
    return (n + (n < 0 ? -averageDivisor : averageDivisor) / 2) / averageDivisor
  }

  /// Appends one line for `report`, newline included.
  public func encode(_ report: borrowing FrameReport, into out: ByteBuffer) {
    out.append("{\"t_us\":")
    out.append(integer: report.time.rawValue)
    out.append(",\"frame\":")
    out.append(integer: Int64(report.frame))
    out.append(",\"touches\":[")
    for i in 0..<report.touchCount {
      let r = report.touch(i)
      let t = r.touch
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out.append("{\"id\":")
      out.append(integer: Int64(t.id))
      out.append(",\"phase\":\"")
      out.append(t.phase.name)
      out.append("\",\"x_mm\":")
      out.append(fixed: (Int64(t.x.rawValue) + 5) / 10, decimals: 2)
      out.append(",\"y_mm\":")
      out.append(fixed: (Int64(t.y.rawValue) + 5) / 10, decimals: 2)
      out.append(",\"force_n\":")
      out.append(fixed: Saturating.multiplyShift(Int64(t.force.rawValue), 1, 10), decimals: 3)
      out.append(",\"force\":")
      out.append(fixed: normalized_milli(t.force), decimals: 3)
      out.append(",\"max_force\":")
      out.append(fixed: maxForce_milli, decimals: 3)
      out.append(",\"stage\":\"")
      out.append(r.stage.name)
      out.append("\"}")
    }
    out.append("],\"events\":[")
    for i in 0..<report.eventCount {
      let e = report.event(i)
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out.append("{\"type\":\"")
      out.append(e.kind.name)
      out.append("\",\"touch\":")
      out.append(integer: Int64(e.touch))
      out.append("}")
    }
    out.append("]}\n")
  }
}
