import ForceCore
import PanelTouch

extension NDJSONEncoder {
  /// Adds `"image_n":[...]` to the line just written into `out`: the
  /// frame's calibrated force per cell in newtons (0.001 N), in board cell
  /// order. `out` must end with the line `encode` wrote.
  public func appendImage(_ image: Span<Force_mN>, cellCount: Int, to out: ByteBuffer) {
    guard out.count >= 2, out.storage[out.count - 2] == UInt8(ascii: "}"),
      out.storage[out.count - 1] == UInt8(ascii: "\n")
    else { return }
    out.truncate(to: out.count - 2)
    out.append(",\"image_n\":[")
    for k in 0..<min(cellCount, image.count) {
      if k > 0 { out.append(UInt8(ascii: ",")) }
      out.append(fixed: ReportUnits.millinewtons(image[k]), decimals: 3)
    }
    out.append("]}\n")
  }

  /// Adds the panel's noise as the detector sees it to the line just
  /// written into `out` (after `appendImage`): `"noise_n":[...]`, each
  /// cell's measured noise (one standard deviation, 0.001 N), and
  /// `"touch_on_n"`, `"touch_off_n"`, the touch thresholds in effect
  /// (`ForcePipeline.effectiveThresholds`).
  public func appendNoise(
    _ sigma: Span<Int32>, cellCount: Int, thresholds: (on: Force_mN, off: Force_mN), to out: ByteBuffer
  ) {
    guard out.count >= 2, out.storage[out.count - 2] == UInt8(ascii: "}"),
      out.storage[out.count - 1] == UInt8(ascii: "\n")
    else { return }
    out.truncate(to: out.count - 2)
    out.append(",\"noise_n\":[")
    for k in 0..<min(cellCount, sigma.count) {
      if k > 0 { out.append(UInt8(ascii: ",")) }
      out.append(fixed: ReportUnits.millinewtons(Force_mN(rawValue: sigma[k])), decimals: 3)
    }
    out.append("],\"touch_on_n\":")
    out.append(fixed: ReportUnits.millinewtons(thresholds.on), decimals: 3)
    out.append(",\"touch_off_n\":")
    out.append(fixed: ReportUnits.millinewtons(thresholds.off), decimals: 3)
    out.append("}\n")
  }
}
