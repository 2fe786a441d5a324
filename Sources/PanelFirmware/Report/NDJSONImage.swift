import ForceCore

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
}
